"""Data-filtering oracle: real OPA v1.20.2 (the opa-golib-python-bindings wheel
unpacked into the folder named by argv[1]) compiles each case into filters,
and both engines' SQLite WHERE clauses run over the same SQLite table.

Reads one JSON document on stdin:
  {"cases": [{"modules": [[file, source], ...], "query": "data.filters.include",
              "input": {...}, "unknowns": [...], "targets": [["sql", "sqlite"], ...],
              "mappings": {...} | null, "mask_rule": "..." | null,
              "table": {"name": "fruits", "columns": [...], "rows": [[...], ...]},
              "ours_sqlite": "WHERE ..." | "" | null}]}
and prints one JSON document: for each case, OPA's answer per "target/dialect"
({"query", "masks"} or {"error": message}) and the row numbers each engine's
SQLite clause selects ("rows_opa", "rows_ours"; null when there is none).
"""

import json
import sqlite3
import sys

sys.path.insert(0, sys.argv[1])
from opa_bindings import OpaEngine, OpaError  # noqa: E402


def rows_for(table, where):
    if where is None:
        return None
    db = sqlite3.connect(":memory:")
    try:
        cols = ", ".join(f'"{c}"' for c in table["columns"])
        db.execute(f'CREATE TABLE "{table["name"]}" ({cols})')
        marks = ", ".join("?" for _ in table["columns"])
        db.executemany(f'INSERT INTO "{table["name"]}" VALUES ({marks})', table["rows"])
        cur = db.execute(f'SELECT rowid FROM "{table["name"]}" {where} ORDER BY rowid')
        return [r[0] for r in cur.fetchall()]
    except sqlite3.Error as e:
        return {"sqlite_error": str(e)}
    finally:
        db.close()


def run_case(case):
    engine = OpaEngine()
    out = {"results": {}}
    try:
        for name, source in case["modules"]:
            engine.add_policy(name, source)
        for target, dialect in case["targets"]:
            key = f"{target}/{dialect}"
            try:
                out["results"][key] = engine.compile_filters(
                    case["query"],
                    case.get("input"),
                    unknowns=case["unknowns"],
                    target=target,
                    dialect=dialect,
                    mappings=case.get("mappings"),
                    mask_rule=case.get("mask_rule"),
                )
            except OpaError as e:
                out["results"][key] = {"error": e.message}
    finally:
        engine.close()
    table = case.get("table")
    if table is not None:
        opa = out["results"].get("sql/sqlite", {})
        out["rows_opa"] = rows_for(table, opa.get("query")) if "error" not in opa else None
        out["rows_ours"] = rows_for(table, case.get("ours_sqlite"))
    return out


doc = json.load(sys.stdin)
json.dump([run_case(c) for c in doc["cases"]], sys.stdout)
