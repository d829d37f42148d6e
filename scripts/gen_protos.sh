#!/usr/bin/env bash
# Generate the gRPC stubs from proto/ into libs/codememory/v1 with the pinned grpcio-tools and
# mypy-protobuf (see pyproject.toml). With --check, generate into a temp dir and fail if the checked-in
# stubs differ: run this script after changing a .proto.
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-.venv/bin/python}
out=libs
if [[ ${1:-} == "--check" ]]; then
  out=$(mktemp -d)
  trap 'rm -rf "$out"' EXIT
fi
mkdir -p "$out/codememory/v1"
PATH="$(dirname "$PY"):$PATH" "$PY" -m grpc_tools.protoc -Iproto \
  --python_out="$out" --grpc_python_out="$out" --mypy_out="$out" --mypy_grpc_out="$out" \
  proto/codememory/v1/*.proto
touch "$out/codememory/v1/__init__.py"
if [[ ${1:-} == "--check" ]]; then
  if ! diff -r -q -x __pycache__ "$out/codememory/v1" libs/codememory/v1; then
    echo "generated gRPC stubs are stale: run scripts/gen_protos.sh and commit the result" >&2
    exit 1
  fi
  echo "gRPC stubs are up to date"
fi
