/** json.filter, json.remove and json.patch (RFC 6902). */
import { equal, RegoObject, RegoSet, type Value } from '../value.js';
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

class PatchError extends Error {}

function arrayIndex(seg: Value, len: number, allowEnd: boolean): number {
  let i: number;
  if (typeof seg === 'number') i = seg;
  else if (typeof seg === 'string' && /^(0|[1-9]\d*)$/.test(seg)) i = Number(seg);
  else throw new PatchError('invalid array index');
  if (i < 0 || i > len || (!allowEnd && i === len)) throw new PatchError('index out of range');
  return i;
}

function getAt(doc: Value, path: Value[]): Value {
  let cur = doc;
  for (const seg of path) {
    if (cur instanceof RegoObject) {
      const v = cur.get(seg);
      if (v === undefined) throw new PatchError('missing key');
      cur = v;
    } else if (Array.isArray(cur)) cur = cur[arrayIndex(seg, cur.length, false)] as Value;
    else if (cur instanceof RegoSet) {
      if (!cur.has(seg)) throw new PatchError('missing member');
      cur = seg;
    } else throw new PatchError('path through scalar');
  }
  return cur;
}

/** Rebuilds `doc` with `f` applied to the container at `path[:-1]`. */
function updateParent(doc: Value, path: Value[], f: (parent: Value, last: Value) => Value): Value {
  if (path.length === 1) return f(doc, path[0] as Value);
  const [seg, ...rest] = path as [Value, ...Value[]];
  if (doc instanceof RegoObject) {
    const child = doc.get(seg);
    if (child === undefined) throw new PatchError('missing key');
    const out = doc.copy();
    out.set(seg, updateParent(child, rest, f));
    return out;
  }
  if (Array.isArray(doc)) {
    const i = arrayIndex(seg, doc.length, false);
    const out = [...doc];
    out[i] = updateParent(doc[i] as Value, rest, f);
    return out;
  }
  if (doc instanceof RegoSet) {
    if (!doc.has(seg)) throw new PatchError('missing member');
    const updated = updateParent(seg, rest, f);
    const out = RegoSet.of(doc.values().filter((x) => !equal(x, seg)));
    out.add(updated);
    return out;
  }
  throw new PatchError('path through scalar');
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
      const i = last === '-' ? parent.length : arrayIndex(last, parent.length, true);
      return [...parent.slice(0, i), value, ...parent.slice(i)];
    }
    if (parent instanceof RegoSet) {
      const out = RegoSet.of(parent.values());
      out.add(value);
      return out;
    }
    throw new PatchError('insert into scalar');
  });
}

function deleteAt(doc: Value, path: Value[]): Value {
  if (path.length === 0) throw new PatchError('cannot delete root');
  return updateParent(doc, path, (parent, last) => {
    if (parent instanceof RegoObject) {
      if (parent.get(last) === undefined) throw new PatchError('missing key');
      const out = parent.copy();
      out.delete(last);
      return out;
    }
    if (Array.isArray(parent)) {
      const i = arrayIndex(last, parent.length, false);
      return [...parent.slice(0, i), ...parent.slice(i + 1)];
    }
    if (parent instanceof RegoSet) {
      if (!parent.has(last)) throw new PatchError('missing member');
      return RegoSet.of(parent.values().filter((x) => !equal(x, last)));
    }
    throw new PatchError('delete from scalar');
  });
}

function applyPatch(doc: Value, ops: Value[]): Value {
  let cur = doc;
  for (const op of ops) {
    if (!(op instanceof RegoObject)) throw new PatchError('not an object');
    const attr = (name: string): Value => {
      const v = op.get(name);
      if (v === undefined) throw new PatchError(`missing '${name}' attribute`);
      return v;
    };
    const kind = attr('op');
    if (typeof kind !== 'string') throw new PatchError("attribute 'op' must be a string");
    const path = parsePath(attr('path'));
    switch (kind) {
      case 'add':
        cur = insertAt(cur, path, attr('value'));
        break;
      case 'remove':
        cur = deleteAt(cur, path);
        break;
      case 'replace':
        cur = insertAt(deleteAt(cur, path), path, attr('value'));
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
        if (!equal(getAt(cur, path), attr('value'))) throw new PatchError('test failed');
        break;
      default:
        throw new PatchError(`unrecognized op '${kind}'`);
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
      const list = asArray(ops, 2);
      try {
        return applyPatch(doc as Value, list);
      } catch (e) {
        if (e instanceof PatchError) return undefined;
        throw e;
      }
    },
  },
];
