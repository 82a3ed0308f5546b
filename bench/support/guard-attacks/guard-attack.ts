/**
 * One class of attack on the guard (issue 33) for `npm run security`: each
 * class starts what it needs as real processes, tries its attacks from
 * outside and says how many it tried and how many were refused.
 */
export interface GuardAttackContext {
  /** A scratch folder of this class's own, removed after the run. */
  readonly scratch: string;
  /** A Redis the class may use (a key prefix of its own, please). */
  readonly redisUrl: string;
}

export interface GuardAttackResult {
  /** Attacks tried. */
  readonly tried: number;
  /** Attacks refused as they must be. */
  readonly held: number;
  /** One line per attack that got through, saying what happened. */
  readonly breaches: readonly string[];
}

export interface GuardAttackClass {
  /** The name of the class in docs/security.md, e.g. "numbers" or "terminal". */
  readonly name: string;
  run(context: GuardAttackContext): Promise<GuardAttackResult>;
}

/** Tallies attacks as they are tried: `check(refused, what)`. */
export function attackTally(): { check(refused: boolean, what: string): void; result(): GuardAttackResult } {
  let tried = 0;
  let held = 0;
  const breaches: string[] = [];
  return {
    check(refused, what) {
      tried++;
      if (refused) held++;
      else breaches.push(what);
    },
    result: () => ({ tried, held, breaches }),
  };
}
