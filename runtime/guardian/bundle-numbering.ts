import { createHash } from 'node:crypto';

/** A set of modules as the Guardian numbers it: the digest of the modules and their revision. */
export interface NumberedBundle {
  revision: number;
  digest: string;
}

/**
 * Gives each new set of modules the Guardian serves a revision that only
 * grows, without state on disk: the Guardian's clock in milliseconds when it
 * first serves that set (or one more than the last revision, when the clock
 * has not moved on). A restarted Guardian therefore numbers above everything
 * it served before, as long as its clock does not go back; replicas number
 * the same modules each their own way, which agents accept (same digest). A
 * Guardian whose clock went back serves revisions that agents refuse as a
 * rollback until the clock passes the newest one they used: fail closed,
 * with the reason in their decisions.
 *
 * @example
 * const numbering = new BundleNumbering();
 * numbering.number(modules); // { revision: 1767225600000, digest: 'k3…' }
 */
export class BundleNumbering {
  readonly #now: () => number;
  #last: NumberedBundle | undefined;

  constructor(options: { now?: () => number } = {}) {
    this.#now = options.now ?? Date.now;
  }

  number(modules: ReadonlyArray<{ id: string; raw: string }>): NumberedBundle {
    const digest = createHash('sha256').update(JSON.stringify(modules)).digest('base64url').slice(0, 32);
    if (this.#last?.digest === digest) return this.#last;
    this.#last = { digest, revision: Math.max((this.#last?.revision ?? 0) + 1, Math.floor(this.#now())) };
    return this.#last;
  }
}
