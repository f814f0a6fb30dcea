// Starts `jax-lsp serve` from the worktree's PATH (e.g. the project's activated virtualenv) and
// forwards the `lsp.jax-lsp.settings` of Zed's settings.json as the `jax-lsp` section.
use zed_extension_api::{self as zed, serde_json, settings::LspSettings};

struct JaxLspExtension;

impl zed::Extension for JaxLspExtension {
    fn new() -> Self {
        JaxLspExtension
    }

    fn language_server_command(
        &mut self,
        _language_server_id: &zed::LanguageServerId,
        worktree: &zed::Worktree,
    ) -> zed::Result<zed::Command> {
        let command = worktree.which("jax-lsp").ok_or(
            "jax-lsp is not on PATH: in the project's environment, install it from a clone \
                 of jax-lsp (pip install -e /path/to/jax-lsp)",
        )?;
        Ok(zed::Command {
            command,
            args: vec!["serve".into()],
            env: worktree.shell_env(),
        })
    }

    fn language_server_workspace_configuration(
        &mut self,
        _language_server_id: &zed::LanguageServerId,
        worktree: &zed::Worktree,
    ) -> zed::Result<Option<serde_json::Value>> {
        let settings = LspSettings::for_worktree("jax-lsp", worktree)
            .ok()
            .and_then(|lsp| lsp.settings)
            .unwrap_or_default();
        Ok(Some(serde_json::json!({ "jax-lsp": settings })))
    }
}

zed::register_extension!(JaxLspExtension);
