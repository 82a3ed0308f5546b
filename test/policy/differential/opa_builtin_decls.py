"""Reads OPA v1.20.2's builtin declarations from OPA's own type errors.

Usage: python3 test/policy/differential/opa_builtin_decls.py "$FRAMEWORK_OPA_PYLIB" \
  runtime/policy/builtins/known-names.ts > runtime/policy/compiler/builtin-decls-table.ts
(then `npx prettier --write` that file)
(the builtins are the `name/arity` words known-names.ts lists; the rewritten
`rego.metadata.*` and `internal.print` are left out: OPA types them after rewriting).

For each builtin, two modules are compiled by the real OPA (the opa-golib-python-bindings
wheel, see opa_oracle.py):
  1. a call with two arguments past the output, whose `arity mismatch` error prints the
     argument names and types: `want: (x: number, y: number)`;
  2. calls whose arguments are `input.a` (type any, fitting everything) but one, a literal
     of a type the declaration does not take, at each position in turn (the output last),
     until OPA prints `invalid argument(s)` with the whole declaration, the result
     included: `want: (x: number, y: number, z: number)`.
The arity mismatch text must be the declaration without its result (checked).

Prints a TypeScript module of one table: each builtin's name and OPA's `want` text.
Only OPA's printed types are kept: the output is a table of facts. A builtin whose
declaration cannot be read whole (no call of it can be refused) is reported on stderr.
"""

import ctypes
import json
import re
import sys

sys.path.insert(0, sys.argv[1])
from opa_bindings import _native  # noqa: E402

lib = _native.load()

# Literals tried where a declaration must refuse an argument.
LITERALS = ["null", "true", "1", '"s"', "[1]", '{"k": 1}', "{1}"]


def native(fn, *args):
    ptr = fn(*args)
    try:
        return json.loads(ctypes.string_at(ptr).decode()).get("error")
    finally:
        lib.OpaFreeString(ptr)


def compile_error(src):
    handle = lib.OpaNew()
    try:
        error = native(lib.OpaAddPolicy, handle, b"p.rego", src.encode())
        if error is None:
            # The module is compiled when a query first reads it.
            error = native(lib.OpaEvalQuery, handle, b"data.p", b"{}", 0, 0)
        return None if error is None else error["message"]
    finally:
        lib.OpaDestroy(handle)


def want_of(message, what):
    m = re.search(r"rego_type_error: [\w.]+: " + what + r"\n\thave: .*\n\twant: (.*)", message or "")
    return None if m is None else m.group(1)


def call(name, args):
    return "package p\n\nq if {\n\t" + name + "(" + ", ".join(args) + ")\n}\n"


def decl(name, arity):
    args = want_of(compile_error(call(name, ["input.a"] * (arity + 2))), "arity mismatch")
    if args is None:
        return None
    for pos in range(arity, -1, -1):
        for lit in LITERALS:
            terms = ["input.a"] * (arity + 1)
            terms[pos] = lit
            want = want_of(compile_error(call(name, terms)), r"invalid argument\(s\)")
            if want is not None:
                if not want.startswith(args[:-1]):
                    sys.exit(f"{name}: {want} does not extend {args}")
                return want
    return None


HEADER = """/**
 * OPA v1.20.2's builtin declarations, as OPA prints them in the `want:` line of a
 * `rego_type_error` (read from OPA's own errors by
 * test/policy/differential/opa_builtin_decls.py; regenerate, do not edit).
 */
export const OPA_BUILTIN_DECLS: ReadonlyArray<readonly [name: string, want: string]> = [
"""


def quote(text):
    """A TypeScript string literal in the project's style (single quotes)."""
    if "'" in text or "\\" in text:
        sys.exit(f"unexpected quote or backslash in {text!r}")
    return "'" + text + "'"


def main():
    skipped = {"internal.print", "rego.metadata.chain", "rego.metadata.rule"}
    rows = []
    with open(sys.argv[2], encoding="utf-8") as f:
        spec = re.search(r"const SPEC = `([^`]*)`", f.read()).group(1)
    for word in spec.split():
        name, arity = word.rsplit("/", 1)
        if name in skipped:
            continue
        want = decl(name, int(arity))
        if want is None:
            sys.stderr.write(f"no declaration read for {name}\n")
        else:
            rows.append(f"  [{quote(name)}, {quote(want)}],\n")
    sys.stdout.write(HEADER + "".join(sorted(rows)) + "];\n")


main()
