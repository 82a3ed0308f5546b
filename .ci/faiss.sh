#!/usr/bin/env bash
# The benchmarks of vector search (bench/semantic, bench/memory) print FAISS's
# figures beside ours when this venv exists. Idempotent.
set -euo pipefail
cd "$(dirname "$0")/.."
if [[ ! -x .venv-faiss/bin/python ]] || ! .venv-faiss/bin/python -c 'import faiss' 2>/dev/null; then
  python3 -m venv .venv-faiss
  .venv-faiss/bin/pip install -q faiss-cpu==1.15.1 numpy
fi
