import { randomUUID } from 'node:crypto';
import { fromJS, stringifyJSON, toJS } from '../value-json.js';
import type { Value } from '../value.js';

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
 * (with masked fields erased), `result` (absent when undefined), `timestamp`.
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
    const entry: Record<string, unknown> = { decision_id: id, path: decision.path };
    const erased: string[] = [];
    if (decision.input !== undefined) entry.input = this.#masked(decision.input, erased);
    if (erased.length > 0) entry.erased = erased;
    if (decision.result !== undefined) entry.result = toJS(decision.result);
    entry.timestamp = new Date().toISOString();
    this.#write(stringifyJSON(fromJS(entry)));
    return id;
  }

  #masked(input: Value, erased: string[]): unknown {
    const copy = toJS(input);
    for (const path of this.#mask) {
      if (erase(copy, path)) erased.push(`/input/${path.join('/')}`);
    }
    return copy;
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

function erase(value: unknown, path: readonly string[]): boolean {
  let node = value;
  for (const [i, key] of path.entries()) {
    if (typeof node !== 'object' || node === null) return false;
    const container = node as Record<string, unknown>;
    if (i === path.length - 1) {
      if (!(key in container)) return false;
      if (Array.isArray(container)) return false;
      delete container[key];
      return true;
    }
    node = container[key];
  }
  return false;
}
