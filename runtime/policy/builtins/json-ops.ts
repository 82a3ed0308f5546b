/** json.filter, json.remove and json.patch (RFC 6902). */
import { equal, RegoObject, RegoSet, type Value } from '../value.js';
import { formatValue, goQuote } from '../value-format.js';
import { asArray, asObject, BuiltinError, type BuiltinDefinition, operandTypeError } from './registry.js';
import { filterValue } from './objects.js';

function parsePath(p: Value): Value[] {
  if (typeof p === 'string') {
    if (p === '') return [];
    return p
      .replace(/^\/+/, '')
      .split('/')
      .map((s) => s.replaceAll('~1', '/').replaceAll('~0', '~'));
  }
  if (Array.isArray(p)) return p;
  throw BuiltinError.type(
    `operand 2 must be one of {set, array} containing string paths or array of path segments but got ${p === null ? 'null' : p instanceof RegoObject ? 'object' : typeof p === 'bigint' ? 'number' : typeof p}`,
  );
}

function paths(v: Value | undefined): Value[][] {
  if (Array.isArray(v)) return v.map(parsePath);
  if (v instanceof RegoSet) return v.values().map(parsePath);
  throw operandTypeError(2, v ?? null, 'set', 'array');
}

/** Paths as a tree of objects with null leaves. */
function pathsToObject(ps: Value[][]): RegoObject {
  const root = new RegoObject();
  for (const path of ps) {
    if (path.length === 0) continue;
    let node = root;
    let done = false;
    for (let i = 0; i < path.length - 1 && !done; i++) {
      const k = path[i] as Value;
      const child = node.get(k);
      if (child === undefined) {
        const o = new RegoObject();
        node.set(k, o);
        node = o;
      } else if (child === null) done = true;
      else node = child as RegoObject;
    }
    if (!done) node.set(path[path.length - 1] as Value, null);
  }
  return root;
}

function remove(a: Value, b: Value | undefined): Value | undefined {
  if (b === undefined) return a;
  if (b === null) return undefined;
  if (!(b instanceof RegoObject)) return a;
  if (a instanceof RegoObject) {
    const out = new RegoObject();
    for (const k of a.keys()) {
      const d = remove(a.get(k) as Value, b.get(k));
      if (d !== undefined) out.set(k, d);
    }
    return out;
  }
  if (a instanceof RegoSet) {
    const out = new RegoSet();
    for (const x of a.values()) {
      const d = remove(x, b.get(x));
      if (d !== undefined) out.add(d);
    }
    return out;
  }
  if (Array.isArray(a)) {
    const out: Value[] = [];
    a.forEach((x, i) => {
      const d = remove(x, b.get(String(i)));
      if (d !== undefined) out.push(d);
    });
    return out;
  }
  return a;
}

// --- JSON patch -------------------------------------------------------------

/** A failed patch: an error, worded as OPA words it (OPA raises, it is not undefined). */
class PatchError extends BuiltinError {}

const GO_TYPE: Record<string, string> = { null: 'Null', boolean: 'Boolean', number: 'Number', string: 'String' };

function notComposite(v: Value): PatchError {
  const t = typeof v === 'bigint' || typeof v === 'number' ? 'number' : v === null ? 'null' : typeof v;
  return new PatchError(`expected composite type, found value: ${formatValue(v)} (type: ast.${GO_TYPE[t] ?? 'Term'})`);
}

function arrayIndex(seg: Value, len: number, allowEnd: boolean, what: 'insertion' | 'delete' | 'access'): number {
  let i: number;
  if (typeof seg === 'number') i = seg;
  else if (typeof seg === 'string' && /^(0|[1-9]\d*)$/.test(seg)) i = Number(seg);
  else throw new PatchError('invalid string for indexing');
  if (i < 0 || i > len || (!allowEnd && i === len)) throw new PatchError(`index for array ${what} out of bounds`);
  return i;
}

function missingPath(seg: Value, parent: Value): PatchError {
  return new PatchError(`path ${typeof seg === 'string' ? goQuote(seg) : formatValue(seg)} does not exist in object term ${formatValue(parent)}`);
}

function getAt(doc: Value, path: Value[]): Value {
  let cur = doc;
  for (const seg of path) {
    if (cur instanceof RegoObject) {
      const v = cur.get(seg);
      if (v === undefined) throw missingPath(seg, cur);
      cur = v;
    } else if (Array.isArray(cur)) cur = cur[arrayIndex(seg, cur.length, false, 'access')] as Value;
    else if (cur instanceof RegoSet) {
      if (!cur.has(seg)) throw missingPath(seg, cur);
      cur = seg;
    } else throw notComposite(cur);
  }
  return cur;
}

/** Rebuilds `doc` with `f` applied to the container at `path[:-1]`. */
function updateParent(doc: Value, path: Value[], f: (parent: Value, last: Value) => Value): Value {
  if (path.length === 1) return f(doc, path[0] as Value);
  const [seg, ...rest] = path as [Value, ...Value[]];
  if (doc instanceof RegoObject) {
    const child = doc.get(seg);
    if (child === undefined) throw missingPath(seg, doc);
    const out = doc.copy();
    out.set(seg, updateParent(child, rest, f));
    return out;
  }
  if (Array.isArray(doc)) {
    const i = arrayIndex(seg, doc.length, false, 'access');
    const out = [...doc];
    out[i] = updateParent(doc[i] as Value, rest, f);
    return out;
  }
  if (doc instanceof RegoSet) {
    if (!doc.has(seg)) throw missingPath(seg, doc);
    const updated = updateParent(seg, rest, f);
    const out = RegoSet.of(doc.values().filter((x) => !equal(x, seg)));
    out.add(updated);
    return out;
  }
  throw notComposite(doc);
}

function insertAt(doc: Value, path: Value[], value: Value): Value {
  if (path.length === 0) return value;
  return updateParent(doc, path, (parent, last) => {
    if (parent instanceof RegoObject) {
      const out = parent.copy();
      out.set(last, value);
      return out;
    }
    if (Array.isArray(parent)) {
      const i = last === '-' ? parent.length : arrayIndex(last, parent.length, true, 'insertion');
      return [...parent.slice(0, i), value, ...parent.slice(i)];
    }
    if (parent instanceof RegoSet) {
      // OPA: the path's last segment is the member itself.
      if (!equal(last, value)) {
        throw new PatchError(
          `set key ${typeof last === 'string' ? goQuote(last) : formatValue(last)} does not equal value to be inserted ${formatValue(value)}`,
        );
      }
      const out = RegoSet.of(parent.values());
      out.add(value);
      return out;
    }
    throw notComposite(parent);
  });
}

function deleteAt(doc: Value, path: Value[]): Value {
  if (path.length === 0) throw new PatchError('cannot delete the whole document');
  return updateParent(doc, path, (parent, last) => {
    if (parent instanceof RegoObject) {
      if (parent.get(last) === undefined) throw deleteMissing(last);
      const out = parent.copy();
      out.delete(last);
      return out;
    }
    if (Array.isArray(parent)) {
      const i = arrayIndex(last, parent.length, false, 'delete');
      return [...parent.slice(0, i), ...parent.slice(i + 1)];
    }
    if (parent instanceof RegoSet) {
      if (!parent.has(last)) throw deleteMissing(last);
      return RegoSet.of(parent.values().filter((x) => !equal(x, last)));
    }
    throw notComposite(parent);
  });
}

function deleteMissing(key: Value): PatchError {
  return new PatchError(`cannot delete child key ${typeof key === 'string' ? goQuote(key) : formatValue(key)} that does not exist`);
}

function applyPatch(doc: Value, ops: Value[]): Value {
  let cur = doc;
  for (const op of ops) {
    if (!(op instanceof RegoObject))
      throw BuiltinError.type(
        `operand 2 must be array of objects but got array containing ${op === null ? 'null' : Array.isArray(op) ? 'array' : op instanceof RegoSet ? 'set' : typeof op === 'bigint' ? 'number' : typeof op}`,
      );
    const attr = (name: string): Value => {
      const v = op.get(name);
      if (v === undefined) throw new PatchError(`missing required attribute '${name}'`);
      return v;
    };
    const kind = attr('op');
    if (typeof kind !== 'string') throw new PatchError(`unrecognized op: ${formatValue(kind)}`);
    const path = parsePath(attr('path'));
    switch (kind) {
      case 'add':
        cur = insertAt(cur, path, attr('value'));
        break;
      case 'remove':
        cur = deleteAt(cur, path);
        break;
      case 'replace':
        // Replacing the whole document ("" path) is the new value, as in OPA.
        cur = path.length === 0 ? attr('value') : insertAt(deleteAt(cur, path), path, attr('value'));
        break;
      case 'move': {
        const from = parsePath(attr('from'));
        const chunk = getAt(cur, from);
        cur = insertAt(deleteAt(cur, from), path, chunk);
        break;
      }
      case 'copy': {
        const from = parsePath(attr('from'));
        cur = insertAt(cur, path, getAt(cur, from));
        break;
      }
      case 'test':
        {
          const found = getAt(cur, path);
          const want = attr('value');
          if (!equal(found, want))
            throw new PatchError(`value from EditTree != patch value.\n\nExpected: ${formatValue(want)}\n\nFound: ${formatValue(found)}`);
        }
        break;
      default:
        throw new PatchError(`unrecognized op: '${kind}'`);
    }
  }
  return cur;
}

export const jsonOpsBuiltins: BuiltinDefinition[] = [
  {
    name: 'json.filter',
    args: ['object', 'any'],
    result: 'any',
    impl: ([o, p]) => filterValue(asObject(o, 1), pathsToObject(paths(p))),
  },
  {
    name: 'json.remove',
    args: ['object', 'any'],
    result: 'any',
    impl: ([o, p]) => remove(asObject(o, 1), pathsToObject(paths(p))),
  },
  {
    name: 'json.patch',
    args: ['any', 'array'],
    result: 'any',
    impl: ([doc, ops]) => {
      return applyPatch(doc as Value, asArray(ops, 2));
    },
  },
];
