"""Corpus oracle for bench/rego-corpora.ts: a real OPA v1.20.2 (the
opa-golib-python-bindings 0.4.4 wheel, unpacked into the folder given as
argv[1]), driven by JSON lines on stdin, one answer line each on stdout:

  {"op": "load", "modules": [[file, source], ...], "data": "<json text>",
   "standins": ["regal.last", ...]}          -> {"ok": true} | {"error": ...}
  {"op": "eval", "query": "...", "input": <json> | null}
                                              -> OPA's answer envelope

A load replaces the engine. The stand-ins are the corpora's own Go builtins
(Regal's, Trivy's), which neither engine has: the harness registers the same
definitions in both (see STANDINS in rego-corpora.ts), so the comparison stays
like for like.
"""

import ctypes
import decimal
import json
import math
import os
import sys

pylib = sys.argv[1] if len(sys.argv) > 1 else ""
if not pylib or not os.path.isdir(os.path.join(pylib, "opa_bindings")):
    sys.stderr.write(f"opa_corpus_oracle: no opa_bindings under {pylib!r}\n")
    sys.exit(3)
sys.path.insert(0, pylib)
from opa_bindings import OpaEngine, _native  # noqa: E402
from opa_bindings.engine import _dumps  # noqa: E402

lib = _native.load()


class Unavailable(Exception):
    pass


class Undefined(Exception):
    """A stand-in whose Go builtin returns no term (nil, nil): the call is undefined."""


def _dispatch(self, handle, name, args_json):
    # The wheel's dispatcher (OpaEngine._dispatch) answers {"result": ...} or {"error": ...}; this one also answers {}
    # for Undefined, which OPA reads as an undefined call, as a Go builtin returning (nil, nil) is.
    try:
        fn, arity = self._functions[name.decode()]
        args = json.loads(args_json)
        response = {"result": fn(*(args[0] if arity == -1 else args))}
    except Undefined:
        response = {}
    except Exception as e:  # never let an exception cross into Go
        response = {"error": repr(e)}
    try:
        raw = _dumps(response)
    except Exception as e:
        raw = json.dumps({"error": f"unserializable result: {e!r}"}).encode()
    buf = self._libc.malloc(len(raw) + 1)  # freed by Go (libc free), as the wheel's buffers are
    if not buf:
        return None
    ctypes.memmove(buf, raw, len(raw))
    ctypes.memset(buf + len(raw), 0, 1)
    return buf


OpaEngine._dispatch = _dispatch


def last(xs):
    # Regal's RegalLast: an array operand, its last element, undefined when empty.
    if not isinstance(xs, list):
        raise Unavailable("regal.last: operand 1 must be array")
    if not xs:
        raise Undefined()
    return xs[-1]


def result_new(msg, cause):
    return {"msg": msg}


def is_managed(x):
    meta = x.get("__defsec_metadata") if isinstance(x, dict) else None
    inline = x.get("managed") if isinstance(x, dict) else None
    managed = inline if isinstance(inline, bool) else meta.get("managed") if isinstance(meta, dict) else None
    return managed if isinstance(managed, bool) else True


computed = {}


def parse_float(text):
    # A number beyond float64 (Regal's test of `1e1000`) reaches OPA as the integer it is (the pylib writes results
    # as JSON through Python floats, which would make it Infinity); OPA compares it equal to `1e1000`.
    f = float(text)
    if math.isfinite(f):
        return f
    d = decimal.Decimal(text)
    return int(d) if d == d.to_integral_value() else f


def computed_by_harness(name):
    # Regal's regal.parse_module (roast AST) and regal.is_formatted: computed once per operands by the harness
    # (rego-corpora.ts, bench/support/roast.ts) and asked for here mid-evaluation, so both engines read the same value.
    def fn(*args):
        key = json.dumps([name, args], sort_keys=True)
        if key not in computed:
            sys.stdout.write("@call " + json.dumps({"name": name, "args": list(args)}) + "\n")
            sys.stdout.flush()
            computed[key] = json.loads(sys.stdin.readline(), parse_float=parse_float)
        answer = computed[key]
        if "error" in answer:
            raise Unavailable(answer["error"])
        return answer["value"]

    return fn


def unavailable(name):
    def fn(*args):
        raise Unavailable(f"{name} is a Go builtin of its corpus, not available to either engine")

    return fn


# name -> (python function, arity); the same table as STANDINS in rego-corpora.ts.
STANDINS = {
    "regal.last": (last, 1),
    "isManaged": (is_managed, 1),
    "result.new": (result_new, 2),
    "regal.parse_module": (computed_by_harness("regal.parse_module"), 2),
    "regal.is_formatted": (computed_by_harness("regal.is_formatted"), 2),
    "squealer.scan_string": (unavailable("squealer.scan_string"), 1),
    "sh.parse_commands": (unavailable("sh.parse_commands"), 1),
    "cidr.is_public": (unavailable("cidr.is_public"), 1),
    "cidr.count_addresses": (unavailable("cidr.count_addresses"), 1),
    "parse_config": (unavailable("parse_config"), 2),
    "parse_config_file": (unavailable("parse_config_file"), 1),
    "parse_combined_config_files": (unavailable("parse_combined_config_files"), 1),
}

engine = None
last_load = None
evals_since_load = 0
# The engine keeps every distinct query prepared (see OpaEngine's notes); a
# corpus asks thousands, so the engine is rebuilt after this many to bound memory.
EVALS_PER_ENGINE = 150


def raw_eval(query, inp):
    ptr = lib.OpaEvalQuery(engine._handle, query.encode(), b"" if inp is None else json.dumps(inp).encode(), 0, 0)
    try:
        return ctypes.string_at(ptr).decode("utf-8")
    finally:
        lib.OpaFreeString(ptr)


def handle(req):
    global engine, last_load, evals_since_load
    if req["op"] == "eval" and evals_since_load >= EVALS_PER_ENGINE and last_load is not None:
        handle(last_load)
    if req["op"] == "load":
        last_load = req
        evals_since_load = 0
        if engine is not None:
            engine.close()
        engine = OpaEngine()
        engine.print_handler = lambda message, location: None
        try:
            for name in req.get("standins", []):
                fn, arity = STANDINS[name]
                engine.register_function(name, fn, arity=arity)
            for name, source in req["modules"]:
                engine.add_policy(name, source)
            if req.get("data"):
                engine.add_data(json.loads(req["data"]))
            # A first query compiles the modules (OPA activates lazily).
            env = json.loads(raw_eval("true", None))
            if env.get("error"):
                return json.dumps({"error": env["error"]})
        except Exception as e:  # reported to the harness, never fatal
            return json.dumps({"error": {"code": getattr(e, "code", "load_error"), "message": str(e)}})
        return json.dumps({"ok": True})
    evals_since_load += 1
    with engine._eval_lock:
        return raw_eval(req["query"], req.get("input")).replace("\n", "\\n")


for line in sys.stdin:
    if line.strip():
        sys.stdout.write(handle(json.loads(line)) + "\n")
        sys.stdout.flush()
