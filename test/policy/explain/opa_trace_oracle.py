"""Trace oracle: a real OPA v1.20.2 (the opa-golib-python-bindings 0.4.4
wheel, unpacked into the folder named by argv[1]) evaluating documents with
tracing on.

Reads JSON lines on stdin: {"modules": [[file, source], ...], "path": "p.allow",
"input": <json> | null} and prints one JSON line per request:
{"trace": [{op, query_id, parent_id, location, node, message}, ...]} with OPA's
full event list (Unify and Index included), or {"error": "..."}.
"""

import json
import sys

sys.path.insert(0, sys.argv[1])
from opa_bindings import OpaEngine  # noqa: E402

for line in sys.stdin:
    if not line.strip():
        continue
    req = json.loads(line)
    engine = OpaEngine()
    try:
        for name, source in req["modules"]:
            engine.add_policy(name, source)
        try:
            engine.eval_document(req["path"], req.get("input"), trace=True)
        except Exception:  # undefined documents still leave their trace
            pass
        print(json.dumps({"trace": engine.last_trace or []}), flush=True)
    except Exception as e:  # noqa: BLE001
        print(json.dumps({"error": str(e)}), flush=True)
    finally:
        engine.close()
