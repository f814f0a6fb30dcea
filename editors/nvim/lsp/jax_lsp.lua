-- jax-lsp for Neovim >= 0.11: put the folder holding this `lsp/` on the runtimepath, then
--   vim.lsp.enable('jax_lsp')
-- Settings go to the server both as initializationOptions and through workspace/configuration
-- (section `jax-lsp`); unset keys leave [tool.jax-lsp] in pyproject.toml in charge.
---@type vim.lsp.Config
return {
  cmd = { 'jax-lsp', 'serve' },
  filetypes = { 'python' },
  root_markers = { 'pyproject.toml', 'setup.cfg', '.git' },
  settings = {
    ['jax-lsp'] = {
      -- select = { 'JAX2' },
      -- ignore = { 'JAX101' },
      -- severity = { JAX101 = 'info' },
      -- fixAll = true,
      -- unsafeFixes = false,
      -- inlayHints = false,  -- true, with vim.lsp.inlay_hint.enable(), shows traced/static hints
      -- codeLens = true,
    },
  },
  before_init = function(params, config)
    params.initializationOptions = config.settings['jax-lsp']
  end,
}
