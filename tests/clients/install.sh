#!/usr/bin/env bash
# Installs the agent clients the end-to-end suite (tests/clients/) runs through the
# proxy, at pinned versions, into one cache folder (default .cache/clients, or
# $CONTEXTFOLD_CLIENTS_DIR): Claude Code, Codex CLI and opencode from npm, aider from
# PyPI in a virtual environment of its own. Idempotent: what is installed at the
# pinned version is kept. A client that cannot be installed fails this script.
set -euo pipefail
cd "$(dirname "$0")/../.."
DIR="${CONTEXTFOLD_CLIENTS_DIR:-.cache/clients}"
mkdir -p "$DIR"
DIR="$(cd "$DIR" && pwd)"

CLAUDE=2.1.332
CODEX=0.171.0
OPENCODE=1.18.33
AIDER=0.86.2

have() { [ -f "$DIR/npm/node_modules/$1/package.json" ] && grep -q "\"version\": \"$2\"" "$DIR/npm/node_modules/$1/package.json"; }
if ! have @anthropic-ai/claude-code "$CLAUDE" || ! have @openai/codex "$CODEX" || ! have opencode-ai "$OPENCODE"; then
  mkdir -p "$DIR/npm"
  # The packages' binaries come as platform packages (optional dependencies); no
  # install script needs to run.
  npm install --no-audit --no-fund --no-save --prefix "$DIR/npm" \
    "@anthropic-ai/claude-code@$CLAUDE" "@openai/codex@$CODEX" "opencode-ai@$OPENCODE" >/dev/null
fi
for bin in claude codex opencode; do
  "$DIR/npm/node_modules/.bin/$bin" --version >/dev/null
done

PY="${PYTHON:-python3}"
if ! "$DIR/aider/bin/python" -c "import importlib.metadata as m; assert m.version('aider-chat') == '$AIDER'" 2>/dev/null; then
  rm -rf "$DIR/aider"
  "$PY" -m venv "$DIR/aider"
  "$DIR/aider/bin/python" -m pip install --quiet --upgrade pip
  "$DIR/aider/bin/python" -m pip install --quiet "aider-chat==$AIDER"
fi
"$DIR/aider/bin/aider" --version >/dev/null
echo "agent clients installed in $DIR"
