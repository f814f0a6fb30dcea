-- Headless Neovim end-to-end: the shipped config starts `jax-lsp serve`, diagnostics arrive, the
-- hover tells the related place, the preferred quick fix applies through
-- vim.lsp.buf.code_action, and the file is written fixed.
-- Run by tests/clients/test_neovim.py: nvim --headless --clean -l nvim_e2e.lua RUNTIME FILE
local runtime, file = _G.arg[1], _G.arg[2]
local function fail(message)
  io.stderr:write('FAIL: ' .. message .. '\n')
  os.exit(1)
end
local function say(message)
  io.stdout:write(message .. '\n')
end

vim.opt.runtimepath:prepend(runtime)
vim.cmd('filetype on')
-- An editor setting, to see it reach the server (workspace/configuration, initializationOptions).
vim.lsp.config('jax_lsp', { settings = { ['jax-lsp'] = { severity = { JAX201 = 'warning' } } } })
vim.lsp.enable('jax_lsp')
vim.cmd.edit(file)

local started = vim.uv.hrtime()
local function elapsed()
  return string.format('%.2fs', (vim.uv.hrtime() - started) / 1e9)
end

if not vim.wait(30000, function()
  return #vim.lsp.get_clients({ bufnr = 0, name = 'jax_lsp' }) > 0
end, 50) then
  fail('jax_lsp did not attach (filetype=' .. vim.bo.filetype .. ')')
end
local client = vim.lsp.get_clients({ bufnr = 0, name = 'jax_lsp' })[1]
say('attached: ' .. client.name .. ' root=' .. tostring(client.root_dir) .. ' ' .. elapsed())

if not vim.wait(30000, function()
  return #vim.diagnostic.get(0) > 0
end, 50) then
  fail('no diagnostics')
end
local function find(code)
  for _, found in ipairs(vim.diagnostic.get(0)) do
    if found.code == code then
      return found
    end
  end
  fail('no ' .. code .. ' among ' .. vim.inspect(vim.diagnostic.get(0)))
end

-- Neovim declares publishDiagnostics.relatedInformation but shows it nowhere: the hover (K)
-- is where the place that traces the function is told.
local traced = find('JAX101')
local hover = client:request_sync('textDocument/hover', {
  textDocument = { uri = vim.uri_from_bufnr(0) },
  position = { line = traced.lnum, character = traced.col },
}, 10000, 0)
local text = hover and hover.result and hover.result.contents.value or ''
say('hover: ' .. text:gsub('\n', ' | '))
if not text:find('traces `step` here', 1, true) then
  fail('the hover does not say where `step` is traced')
end

local diagnostic = find('JAX201')
say(string.format('diagnostic: %s %s line %d: %s (%s)', diagnostic.source, diagnostic.code,
  diagnostic.lnum + 1, diagnostic.message, elapsed()))
if diagnostic.severity ~= vim.diagnostic.severity.WARN then
  fail('expected JAX201 as a warning, got ' .. vim.inspect(diagnostic))
end

vim.api.nvim_win_set_cursor(0, { diagnostic.lnum + 1, diagnostic.col })
local before = vim.api.nvim_buf_get_lines(0, 0, -1, false)
vim.lsp.buf.code_action({
  context = { only = { 'quickfix' } }, -- Neovim adds the diagnostics under the cursor
  filter = function(action)
    return action.isPreferred == true and action.title:find('JAX201', 1, true) ~= nil
  end,
  apply = true,
})
if not vim.wait(15000, function()
  return not vim.deep_equal(before, vim.api.nvim_buf_get_lines(0, 0, -1, false))
end, 50) then
  fail('the quick fix did not change the buffer')
end
say('quick fix applied ' .. elapsed())
vim.cmd.write()
say('written')
vim.lsp.stop_client(client.id)
os.exit(0)
