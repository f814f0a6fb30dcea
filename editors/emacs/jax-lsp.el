;;; jax-lsp.el --- jax-lsp with eglot (Emacs >= 29)  -*- lexical-binding: t; -*-
;; Untested. Load it from your init file, e.g. (load "/path/to/editors/emacs/jax-lsp.el").
;; eglot runs one server per major mode: this makes jax-lsp that server for Python buffers.

(require 'eglot)

(add-to-list 'eglot-server-programs
             '((python-mode python-ts-mode) . ("jax-lsp" "serve")))

;; Answered to workspace/configuration (section "jax-lsp"); unset keys leave
;; [tool.jax-lsp] in pyproject.toml in charge. A .dir-locals.el can set it per project.
(setq-default eglot-workspace-configuration
              '(:jax-lsp (:fixAll t :unsafeFixes :json-false)))

(add-hook 'python-mode-hook #'eglot-ensure)
(add-hook 'python-ts-mode-hook #'eglot-ensure)

;; Quick fixes: M-x eglot-code-actions (or eglot-code-action-quickfix) on a flagged line.

;;; jax-lsp.el ends here
