"""Differential-test oracle: a real OPA v1.20.2 (the opa-golib-python-bindings
0.4.4 wheel, unpacked into the folder named by FRAMEWORK_OPA_PYLIB or argv[1]).

Reads JSON lines on stdin, one policy group per line:
  {"modules": [[file, source], ...], "data": "<json text>",
   "evals": [{"query": "x = data.p.r", "input": "<json text>" | null}, ...]}
and prints, for each eval in order, one line: OPA's raw answer envelope,
{"result": [...]} or {"error": {"code", "message"}}.

Data and input travel as JSON *text* and the answer is printed as OPA wrote
it, so number text such as 1e400 or 333.33333333333333334 reaches OPA and
comes back without passing through Python floats. The raw native calls are
used for that reason (the wrapper's eval_query re-encodes through json).
"""

import ctypes
import json
import os
import sys

pylib = sys.argv[1] if len(sys.argv) > 1 else os.environ.get("FRAMEWORK_OPA_PYLIB", "")
if not pylib or not os.path.isdir(os.path.join(pylib, "opa_bindings")):
    sys.stderr.write(f"opa_oracle: no opa_bindings under {pylib!r}\n")
    sys.exit(3)
sys.path.insert(0, pylib)
from opa_bindings import _native  # noqa: E402

lib = _native.load()


def call(fn, *args):
    ptr = fn(*args)
    if not ptr:
        return '{"error":{"code":"internal","message":"native call returned NULL"}}'
    try:
        return ctypes.string_at(ptr).decode("utf-8")
    finally:
        lib.OpaFreeString(ptr)


def failed(envelope):
    return '"error":{' in envelope and json.loads(envelope).get("error") is not None


def run_group(group, out):
    handle = lib.OpaNew()
    try:
        setup_error = None
        for name, source in group.get("modules", []):
            env = call(lib.OpaAddPolicy, handle, name.encode(), source.encode())
            if failed(env):
                setup_error = env
                break
        data = group.get("data")
        if setup_error is None and data is not None:
            env = call(lib.OpaAddData, handle, b"", data.encode())
            if failed(env):
                setup_error = env
        for ev in group.get("evals", []):
            if setup_error is not None:
                out.write(setup_error + "\n")
                continue
            inp = ev.get("input")
            env = call(lib.OpaEvalQuery, handle, ev["query"].encode(), b"" if inp is None else inp.encode(), 0, 0)
            out.write(env.replace("\n", "\\n") + "\n")
    finally:
        lib.OpaDestroy(handle)


def main():
    out = sys.stdout
    for line in sys.stdin:
        if line.strip():
            run_group(json.loads(line), out)
    out.flush()


main()
