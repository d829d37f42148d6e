#!/usr/bin/env bash
# Set up from nothing and run every check: stale gRPC stubs and AsyncAPI documents, ruff, mypy (strict on libs/), the tests.
# The tests start their own nats-server, Qdrant Edge shards and gRPC servers; nothing needs to run first.
set -euo pipefail
cd "$(dirname "$0")/.."
CODEMEMORY_EXTRA_MODELS=${CODEMEMORY_EXTRA_MODELS-mpnet} bash scripts/setup.sh  # mpnet: tests/e2e/test_model_migration.py
export HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1 TOKENIZERS_PARALLELISM=false
echo "== gRPC stubs"; bash scripts/gen_protos.sh --check
echo "== AsyncAPI"; bash scripts/gen_asyncapi.sh --check
echo "== ruff"; .venv/bin/ruff check .; .venv/bin/ruff format --check .
echo "== mypy"; .venv/bin/mypy libs/codememory apps/codememory services
# Two workers, each taking whole files (an e2e module's stack is module-scoped); CM_TEST_WORKERS=0 runs serially.
# The slowest 25 are listed: the suite should stay under 15 minutes.
echo "== pytest"; .venv/bin/pytest -q -p no:cacheprovider -n "${CM_TEST_WORKERS:-2}" --dist loadfile --durations=25 "$@"
