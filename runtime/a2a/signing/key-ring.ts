import { inspect } from 'node:util';
import { ConfigError } from '../../core/errors/config-error.js';
import { createSigningKey, type SigningKey } from './signing-key.js';

export interface KeyRingOptions {
  /** Things a caller should warn about, e.g. a keys file readable by others; never secrets. */
  warnings?: readonly string[];
}

/**
 * The HMAC keys an agent knows, by key id. Each key belongs to one agent.
 * Holds redacted copies of the keys given (see `createSigningKey`), so neither
 * the ring nor its keys show a secret in JSON, strings or `util.inspect`.
 *
 * @example
 * const ring = new KeyRing([createSigningKey({ id: 'planner-1', agent: 'planner', secret })]);
 * ring.signingKeyFor('planner').id; // 'planner-1'
 */
export class KeyRing {
  /** Problems worth a warning at start-up (they did not stop the load). */
  readonly warnings: readonly string[];
  readonly #keys = new Map<string, SigningKey>();

  /** Throws `TypeError` when two keys share an id or a key is malformed. */
  constructor(keys: readonly SigningKey[], options: KeyRingOptions = {}) {
    for (const key of keys) {
      if (this.#keys.has(key.id)) throw new TypeError(`Two signing keys have the id "${key.id}"; key ids must be unique.`);
      this.#keys.set(key.id, createSigningKey({ id: key.id, agent: key.agent, secret: key.secret }));
    }
    this.warnings = Object.freeze([...(options.warnings ?? [])]);
  }

  get size(): number {
    return this.#keys.size;
  }

  get(id: string): SigningKey | undefined {
    return this.#keys.get(id);
  }

  /** The ids and agents of the keys, without secrets. */
  list(): Array<{ id: string; agent: string }> {
    return [...this.#keys.values()].map(({ id, agent }) => ({ id, agent }));
  }

  /**
   * The key `agent` signs its outgoing requests with: `keyId` when given (it
   * must belong to `agent`), else the only key of `agent`. Throws
   * `ConfigError` (code `invalid_config`) naming `A2A_KEY_ID` when the key is
   * missing, belongs to another agent, or the choice is ambiguous.
   *
   * @example
   * const key = ring.signingKeyFor('planner', process.env.A2A_KEY_ID);
   */
  signingKeyFor(agent: string, keyId?: string): SigningKey {
    if (keyId !== undefined && keyId !== '') {
      const key = this.#keys.get(keyId);
      if (key === undefined) {
        throw keyError(`names the key "${keyId}", which is not in the key ring; add it to A2A_KEYS or A2A_KEYS_FILE`);
      }
      if (key.agent !== agent) {
        throw keyError(`names the key "${keyId}", which belongs to the agent "${key.agent}", not "${agent}"; choose a key of "${agent}"`);
      }
      return key;
    }
    const own = [...this.#keys.values()].filter((key) => key.agent === agent);
    const [only] = own;
    if (only === undefined) {
      throw keyError(`is not set and the key ring has no key for the agent "${agent}"; add one to A2A_KEYS or A2A_KEYS_FILE`);
    }
    if (own.length > 1) {
      const ids = own.map((key) => key.id).join(', ');
      throw keyError(`must name the key the agent "${agent}" signs with: it has ${own.length} keys (${ids})`);
    }
    return only;
  }

  toJSON(): { size: number; keys: Array<{ id: string; agent: string }>; warnings: readonly string[] } {
    return { size: this.size, keys: this.list(), warnings: this.warnings };
  }

  toString(): string {
    return `KeyRing(${this.list()
      .map((key) => `${key.id}→${key.agent}`)
      .join(', ')})`;
  }

  [inspect.custom](): string {
    return this.toString();
  }
}

function keyError(message: string): ConfigError {
  return new ConfigError({ issues: [{ variable: 'A2A_KEY_ID', message }], context: 'No A2A signing key to use' });
}
