#!/usr/bin/env bash
# Runs the official A2A TCK (github.com/a2aproject/a2a-tck, Python) against our
# A2A endpoint (bench/a2a-tck/sut.ts: createA2AServer with the TCK's scenario
# executor). Needs a TCK checkout (A2A_TCK_DIR) and a venv with its
# requirements (A2A_TCK_PYTHON, default .venv-tck/bin/python). Reports land in
# $A2A_TCK_DIR/reports.
#   branch 1.0-dev:  A2A_TCK_DIR=/path/to/a2a-tck npm run a2a:tck -- [run_tck.py args, e.g. --transport jsonrpc]
#   branch main:     A2A_TCK_DIR=/path/to/a2a-tck-main npm run a2a:tck -- --category mandatory
#   branch 0.3.x:    A2A_TCK_DIR=/path/to/a2a-tck-0.3.x npm run a2a:tck -- --category mandatory
#   a real agent:    A2A_TCK_AGENT=executor (or A2A_TCK_MODULE=dist/agents/<name>/app.js) with any of the above
# The branch is told by the checkout: run_tck.py taking --sut-url is main or
# 0.3.x, and 0.3.x's JSON-RPC client calls the v0.3 method names
# ("message/send"). For main the SUT runs with A2A_TCK_SUT=main (the executor
# its reference SUT has), for 0.3.x with A2A_TCK_SUT=0.3 (the same executor,
# the card in its 0.3 shape by default).
set -euo pipefail
cd "$(dirname "$0")/.."
: "${A2A_TCK_DIR:?set A2A_TCK_DIR to an a2a-tck checkout}"
python="${A2A_TCK_PYTHON:-$PWD/.venv-tck/bin/python}"
port="${A2A_TCK_PORT:-9999}"
[[ -f dist/bench/a2a-tck/sut.js ]] || npx tsc -p tsconfig.json
if grep -q -- '"--sut-url"' "$A2A_TCK_DIR/run_tck.py"; then
  if grep -q '"message/send"' "$A2A_TCK_DIR/tck/transport/jsonrpc_client.py" 2>/dev/null; then
    export A2A_TCK_SUT=0.3
  else
    export A2A_TCK_SUT=main
  fi
  host=localhost
  target=(--sut-url "http://localhost:$port")
else
  host=127.0.0.1
  target=(--sut-host "http://127.0.0.1:$port")
fi
if [[ -n "${A2A_TCK_AGENT:-}" || -n "${A2A_TCK_MODULE:-}" ]]; then
  # A real agent instead of the scenario SUT: a built-in example (A2A_TCK_AGENT=hello|executor|planner|trader) or a
  # project's built agent module (A2A_TCK_MODULE=dist/agents/<name>/app.js), A2A only, gRPC on the next port,
  # validation off (the TCK does not sign) and push allowed to the TCK's receivers.
  if [[ -n "${A2A_TCK_MODULE:-}" ]]; then agent=(--module "$A2A_TCK_MODULE"); else agent=(--example "$A2A_TCK_AGENT"); fi
  A2A_VALIDATION_MODE=disabled A2A_PUSH_ALLOWED_HOSTS='*' A2A_GRPC_PORT=$((port + 1)) LOG_LEVEL=error \
    node cli/bin/run.js serve agent "${agent[@]}" --a2a-only --port "$port" &
else
  node dist/bench/a2a-tck/sut.js "$port" &
fi
sut=$!
trap 'kill "$sut" 2>/dev/null; wait "$sut" 2>/dev/null || true' EXIT
for _ in $(seq 1 50); do curl -fs "http://$host:$port/.well-known/agent-card.json" >/dev/null && break; sleep 0.1; done
cd "$A2A_TCK_DIR"
"$python" run_tck.py "${target[@]}" "$@"
