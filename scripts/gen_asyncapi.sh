#!/usr/bin/env bash
# Generate each service's AsyncAPI document into docs/asyncapi/<service>.yaml with the pinned FastStream
# (`faststream docs gen codememory.<service>.main:create_app --factory`). With --check, generate into a
# temp dir and fail if the checked-in documents differ: run this script after changing a subscriber.
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=$(dirname "${PYTHON:-.venv/bin/python}")
out=docs/asyncapi
if [[ ${1:-} == "--check" ]]; then
  out=$(mktemp -d)
  trap 'rm -rf "$out"' EXIT
fi
mkdir -p "$out"
services=$("$BIN/python" -c 'from codememory.topology import SERVICES; print(" ".join(s.name for s in SERVICES))')
for service in $services; do
  # the documented defaults, whatever the environment says
  env -u CODEMEMORY_NATS_URL -u "CODEMEMORY_${service^^}_NATS_URL" HF_HUB_OFFLINE=1 \
    "$BIN/faststream" docs gen "codememory.$service.main:create_app" --factory --yaml \
    --out "$out/$service.yaml" >/dev/null
  # FastStream's channel order is not stable from one process to the next: sort every mapping
  "$BIN/python" -c 'import sys, yaml; p = sys.argv[1]; d = yaml.safe_load(open(p)); open(p, "w").write(yaml.safe_dump(d, sort_keys=True))' "$out/$service.yaml"
done
if [[ ${1:-} == "--check" ]]; then
  if ! diff -r -q "$out" docs/asyncapi; then
    echo "AsyncAPI documents are stale: run scripts/gen_asyncapi.sh and commit the result" >&2
    exit 1
  fi
  echo "AsyncAPI documents are up to date"
fi
