import { canonicalModelName } from './known-models.js';
import { ModelRequestError } from './model-request-error.js';

/**
 * Ollama's model names: `[host/][namespace/]model[:tag]`, each part starting
 * with a letter, digit or `_` and holding letters, digits, `_`, `-` and `.`
 * (a host may carry a `:port`). Parts are at most 80 characters (a host 350).
 */
const MODEL_NAME =
  /^(?:(?:[A-Za-z0-9][A-Za-z0-9._:-]{0,349}\/)?[A-Za-z0-9_][A-Za-z0-9._-]{0,79}\/)?[A-Za-z0-9_][A-Za-z0-9._-]{0,79}(?::[A-Za-z0-9_][A-Za-z0-9._-]{0,79})?$/;

/** True when `name` is a model name Ollama would accept. */
export function isValidModelName(name: string): boolean {
  return MODEL_NAME.test(name.trim());
}

/**
 * The canonical form of a name a client wants to write (create, copy
 * destination): `smollm2:latest` → `smollm2`. An invalid name is a 400 with
 * `message` (Ollama's text is "invalid model name").
 */
export function writableModelName(name: string, message = 'invalid model name'): string {
  if (!isValidModelName(name)) throw new ModelRequestError({ status: 400, message });
  return canonicalModelName(name);
}
