import { activeTraceIds } from '../../core/telemetry/tracing.js';
import { randomUUID } from 'node:crypto';
import { stringifyJSON } from '../value-json.js';
import { RegoObject, type Value } from '../value.js';

export interface DecisionLogOptions {
  /** Receives one JSON line (without the newline) per decision. */
  write: (line: string) => void;
  /**
   * Input fields to leave out of the log, as JSON pointers under `/input`
   * (for example `/input/password`, `/input/user/token`); the line lists them under `erased`.
   */
  mask?: readonly string[];
}

export interface Decision {
  path: string;
  input: Value | undefined;
  result: Value | undefined;
}

/**
 * Writes one JSON line per policy decision: `decision_id`, `path`, `input`
 * (with masked fields erased), `result` (absent when undefined), `timestamp`,
 * and `trace_id` when the request was traced.
 */
export class DecisionLog {
  readonly #write: (line: string) => void;
  readonly #mask: readonly string[][];

  constructor(options: DecisionLogOptions) {
    this.#write = options.write;
    this.#mask = (options.mask ?? []).map(parseMaskPath);
  }

  /** Records a decision and returns its id. */
  record(decision: Decision): string {
    const id = randomUUID();
    const erased: string[] = [];
    let input = decision.input;
    for (const path of input === undefined ? [] : this.#mask) {
      const left = erase(input as Value, path);
      if (left !== input) {
        input = left;
        erased.push(`/input/${path.join('/')}`);
      }
    }
    // Written as text from the Rego values (keys in order), so numbers a double cannot hold (1e400) stay exact.
    const fields = [`"decision_id":${JSON.stringify(id)}`];
    if (erased.length > 0) fields.push(`"erased":${JSON.stringify(erased)}`);
    if (input !== undefined) fields.push(`"input":${stringifyJSON(input)}`);
    fields.push(`"path":${JSON.stringify(decision.path)}`);
    if (decision.result !== undefined) fields.push(`"result":${stringifyJSON(decision.result)}`);
    fields.push(`"timestamp":${JSON.stringify(new Date().toISOString())}`);
    // The trace of the request that asked, to go from a decision to the whole call.
    const ids = activeTraceIds();
    if (ids) fields.push(`"trace_id":${JSON.stringify(ids.trace_id)}`);
    this.#write(`{${fields.join(',')}}`);
    return id;
  }
}

/** `/input/a/b` → `['a', 'b']`; JSON-pointer escapes `~1` and `~0` are honoured. */
function parseMaskPath(pointer: string): string[] {
  const parts = pointer.split('/').filter((p, i) => !(i === 0 && p === ''));
  if (parts[0] !== 'input' || parts.length < 2) {
    throw new TypeError(`mask path ${JSON.stringify(pointer)} must start with /input/ and name a field`);
  }
  return parts.slice(1).map((p) => p.replaceAll('~1', '/').replaceAll('~0', '~'));
}

/** `value` without the field at `path` (copied along the path), or `value` itself when there is no such field (array items are not erased). */
function erase(value: Value, path: readonly string[]): Value {
  if (!(value instanceof RegoObject) || path.length === 0) return value;
  const [key, ...rest] = path as [string, ...string[]];
  const child = value.get(key);
  if (child === undefined) return value;
  const left = rest.length === 0 ? undefined : erase(child, rest);
  if (left === child) return value;
  const copy = RegoObject.fromEntries(value.entries());
  if (left === undefined) copy.delete(key);
  else copy.set(key, left);
  return copy;
}
