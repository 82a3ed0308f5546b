/**
 * Writes to the base data document through OPA's `PUT|PATCH|DELETE
 * /v1/data/{path}`. Each write is kept as a list of operations and replayed
 * over the data files on every reload, so a file edit and an API write both
 * survive; a write that cannot apply is refused before it is kept.
 */
import { parseModule } from '../parser.js';

/** One operation on the data tree, at a path of keys (array indexes as decimal strings, `-` appends). */
export interface DataOp {
  op: 'add' | 'replace' | 'remove';
  path: string[];
  value?: unknown;
}

/** A write that cannot apply: `code` and `status` as OPA answers them. */
export class DataWriteError extends Error {
  readonly status: 400 | 404;
  readonly code: 'invalid_parameter' | 'resource_not_found';
  constructor(status: 400 | 404, message: string) {
    super(message);
    this.name = 'DataWriteError';
    this.status = status;
    this.code = status === 404 ? 'resource_not_found' : 'invalid_parameter';
  }
}

type Container = Record<string, unknown> | unknown[];

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function pathText(path: readonly string[]): string {
  return `/${path.join('/')}`;
}

/**
 * Applies `op` to `root` in place (the root itself cannot be removed; `add` or
 * `replace` at the root must give an object). `create` makes missing parent
 * objects, as OPA's PUT does. Returns the new root.
 */
export function applyDataOp(root: Record<string, unknown>, op: DataOp, create = false): Record<string, unknown> {
  if (op.path.length === 0) {
    if (op.op === 'remove') throw new DataWriteError(400, 'the root of data cannot be removed');
    if (!isObject(op.value)) throw new DataWriteError(400, 'the root of data must be an object');
    return op.value;
  }
  let node: unknown = root;
  for (const [i, key] of op.path.slice(0, -1).entries()) {
    let next = child(node, key);
    if (next === undefined) {
      if (!create || !isObject(node)) throw new DataWriteError(404, `storage_not_found_error: ${pathText(op.path.slice(0, i + 1))}: document does not exist`);
      next = {};
      setOwn(node, key, next);
    }
    if (typeof next !== 'object' || next === null) {
      throw new DataWriteError(
        404,
        `storage_not_found_error: ${pathText(op.path.slice(0, i + 2))}: document does not exist (${pathText(op.path.slice(0, i + 1))} is a scalar)`,
      );
    }
    node = next;
  }
  const last = op.path[op.path.length - 1] as string;
  const parent = node as Container;
  if (Array.isArray(parent)) {
    const index = last === '-' && op.op === 'add' ? parent.length : arrayIndex(last, parent.length + (op.op === 'add' ? 1 : 0));
    if (index === undefined) throw new DataWriteError(404, `storage_not_found_error: ${pathText(op.path)}: array index out of range`);
    if (op.op === 'add') parent.splice(index, 0, op.value);
    else if (op.op === 'replace') parent[index] = op.value;
    else parent.splice(index, 1);
    return root;
  }
  if (op.op !== 'add' && !Object.hasOwn(parent, last)) throw new DataWriteError(404, `storage_not_found_error: ${pathText(op.path)}: document does not exist`);
  if (op.op === 'remove') delete parent[last];
  else setOwn(parent, last, op.value);
  return root;
}

/**
 * Sets a key as data, whatever its name: `__proto__` (a plain assignment would
 * swap the object's prototype and the value would vanish from the document).
 */
function setOwn(node: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(node, key, { value, writable: true, enumerable: true, configurable: true });
}

function child(node: unknown, key: string): unknown {
  if (Array.isArray(node)) {
    const i = arrayIndex(key, node.length);
    return i === undefined ? undefined : node[i];
  }
  return isObject(node) && Object.hasOwn(node, key) ? node[key] : undefined;
}

function arrayIndex(key: string, length: number): number | undefined {
  if (!/^(0|[1-9][0-9]*)$/.test(key)) return undefined;
  const i = Number(key);
  return i < length ? i : undefined;
}

/**
 * Parses a JSON Patch body (RFC 6902 `add`, `remove`, `replace`, as OPA
 * accepts) for PATCH at `base`. Throws `DataWriteError` (400) on anything else.
 */
export function parsePatch(base: readonly string[], body: unknown): DataOp[] {
  if (!Array.isArray(body))
    throw new DataWriteError(400, 'a PATCH body must be a JSON array of patch operations such as [{"op": "add", "path": "/x", "value": 1}]');
  return body.map((entry, i) => {
    if (!isObject(entry)) throw new DataWriteError(400, `patch operation ${i} is not an object`);
    const { op, path } = entry;
    if (op !== 'add' && op !== 'remove' && op !== 'replace') throw new DataWriteError(400, `patch operation ${i}: op must be add, remove or replace`);
    if (typeof path !== 'string' || (path !== '' && !path.startsWith('/')))
      throw new DataWriteError(400, `patch operation ${i}: path must be a JSON pointer such as /a/b`);
    if (op !== 'remove' && !('value' in entry)) throw new DataWriteError(400, `patch operation ${i}: ${op} needs a value`);
    const rest =
      path === '' || path === '/'
        ? []
        : path
            .slice(1)
            .split('/')
            .map((p) => p.replaceAll('~1', '/').replaceAll('~0', '~'));
    return { op, path: [...base, ...rest], ...(op === 'remove' ? {} : { value: entry.value }) };
  });
}

/**
 * OPA's `ast.CheckPathConflicts` after a data write: a rule whose path now
 * holds data (the path itself, or a scalar or array above it) conflicts, and
 * the write is refused with 400, as OPA's `PUT /v1/data` does, so that `GET`
 * and `POST` of that path never disagree. Rule paths are the package path and
 * the head's ground prefix.
 */
export function checkDataConflicts(modules: ReadonlyArray<{ id: string; source: string }>, data: Record<string, unknown>): void {
  const found: Array<{ path: string; at: string }> = [];
  const seen = new Set<string>();
  for (const m of modules) {
    const module = parseModule(m.source, m.id);
    const pkg = module.package.path.terms.slice(1).map((t) => (t.type === 'string' ? t.value : ''));
    for (const rule of module.rules) {
      const path = [...pkg];
      for (const [i, t] of rule.head.ref.entries()) {
        if (i === 0 && t.type === 'var') path.push(t.name);
        else if (t.type === 'string') path.push(t.value);
        else break;
      }
      const key = path.join('/');
      if (seen.has(key) || !holdsData(data, path)) continue;
      seen.add(key);
      found.push({ path: key, at: `${rule.loc.file}:${rule.loc.row}` });
    }
  }
  if (found.length === 0) return;
  found.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  const lines = found.map((f) => `${f.at}: rego_compile_error: conflicting rule for data path ${f.path} found`);
  throw new DataWriteError(400, `${found.length} error${found.length === 1 ? '' : 's'} occurred: ${lines.join('\n')}`);
}

/** OPA's `storage.NonEmpty`: data at `path`, or a value other than an object above it. */
function holdsData(data: Record<string, unknown>, path: readonly string[]): boolean {
  let node: unknown = data;
  for (const segment of path) {
    if (node === null || typeof node !== 'object' || Array.isArray(node)) return node !== data;
    if (!Object.hasOwn(node, segment)) return false;
    node = (node as Record<string, unknown>)[segment];
  }
  return true;
}
