#!/usr/bin/env bash
# Set up (if needed) and run the embedded stack in the foreground: `codememory up`.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
exec .venv/bin/codememory up "$@"
