import { canonicalModelName, DEFAULT_CHAT_MODEL, DEFAULT_EMBEDDING_MODEL } from '../model/known-models.js';

/** The models the toolkit will ask for: `MODEL_NAME` (else smollm2) and `EMBEDDING_MODEL` (else all-minilm). */
export function expectedModels(env: NodeJS.ProcessEnv): string[] {
  const names = [env.MODEL_NAME || DEFAULT_CHAT_MODEL, env.EMBEDDING_MODEL || DEFAULT_EMBEDDING_MODEL].map(canonicalModelName);
  return [...new Set(names)];
}

/** Of `expected`, those not in `available` (names compared without `:latest`). */
export function absentModels(expected: readonly string[], available: readonly string[]): string[] {
  const have = new Set(available.map(canonicalModelName));
  return expected.filter((name) => !have.has(name));
}

/** `framework-cli model pull a && framework-cli model pull b`. */
export function pullCommand(names: readonly string[]): string {
  return names.map((name) => `framework-cli model pull ${name}`).join(' && ');
}
