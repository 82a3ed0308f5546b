import { InvalidModelOutputError } from '../core/errors/invalid-model-output-error.js';
import { isPlainObject } from '../core/json.js';

/** Code fences, with or without a language tag: ```json … ``` or ``` … ```. */
const FENCE = /```[ \t]*[\w-]*[ \t]*\r?\n?([\s\S]*?)```/g;
/** Most `{` positions tried per candidate text; bounds the work on brace-heavy prose. */
const MAX_ATTEMPTS = 64;

type Scan = { kind: 'balanced'; end: number } | { kind: 'unclosed' };

/** Index just past the `}` closing the `{` at `start`, skipping braces inside JSON strings. */
function scanObject(text: string, start: number): Scan {
  let depth = 0;
  let inString = false;
  for (let i = start; i < text.length; i++) {
    const c = text[i];
    if (inString) {
      if (c === '\\') i++;
      else if (c === '"') inString = false;
    } else if (c === '"') inString = true;
    else if (c === '{') depth++;
    else if (c === '}' && --depth === 0) return { kind: 'balanced', end: i + 1 };
  }
  return { kind: 'unclosed' };
}

/** Drops commas that directly precede `}` or `]` (outside strings). */
function withoutTrailingCommas(text: string): string {
  let out = '';
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (inString) {
      out += c;
      if (c === '\\' && i + 1 < text.length) out += text[++i];
      else if (c === '"') inString = false;
      continue;
    }
    if (c === '"') inString = true;
    if (c === ',' && /^\s*[}\]]/.test(text.slice(i + 1, i + 200))) continue;
    out += c;
  }
  return out;
}

/** Strict JSON first, then with trailing commas removed; `undefined` when neither parses. */
function parseTolerant(text: string): { value: unknown } | undefined {
  for (const attempt of [text, withoutTrailingCommas(text)]) {
    try {
      return { value: JSON.parse(attempt) as unknown };
    } catch {
      // try the next form
    }
  }
  return undefined;
}

type Found = { object: Record<string, unknown> } | { problem: string } | undefined;

/** The first JSON object in `text`, a reason it cannot have one, or `undefined` to try elsewhere. */
function objectIn(text: string): Found {
  const whole = parseTolerant(text.trim());
  if (whole && isPlainObject(whole.value)) return { object: whole.value };
  if (whole) return { problem: `The model reply is JSON but not an object (${Array.isArray(whole.value) ? 'an array' : typeof whole.value})` };

  let start = text.indexOf('{');
  for (let attempts = 0; start !== -1 && attempts < MAX_ATTEMPTS; attempts++) {
    const scan = scanObject(text, start);
    if (scan.kind === 'unclosed') return { problem: 'The JSON object in the model reply is never closed (truncated reply?)' };
    const parsed = parseTolerant(text.slice(start, scan.end));
    if (parsed && isPlainObject(parsed.value)) return { object: parsed.value };
    start = text.indexOf('{', start + 1);
  }
  return undefined;
}

/**
 * Extracts the JSON object from a model reply.
 *
 * Accepts the object alone, inside a code fence (```json … ``` or ``` … ```;
 * fenced blocks are tried before the surrounding text), or with prose
 * before and after it; the first balanced `{…}` that parses wins, with
 * braces inside JSON strings ignored. Tolerates trailing commas before `}` or
 * `]` (small models emit them, and dropping them cannot change the meaning);
 * nothing else beyond JSON (no comments, single quotes or unquoted keys).
 *
 * The result is plain parsed JSON: validate it with a zod schema before use.
 *
 * Throws `InvalidModelOutputError` (code `invalid_model_output`, with a short
 * excerpt of the reply) when the reply holds no object: empty, prose only,
 * a JSON array or scalar, or an object cut off before its closing brace.
 *
 * @example
 * cleanLlmJson('Sure! ```json\n{"actions": ["Book a venue",]}\n``` Hope it helps.');
 * // → { actions: ['Book a venue'] }
 */
export function cleanLlmJson(raw: string): Record<string, unknown> {
  if (typeof raw !== 'string') throw new TypeError(`cleanLlmJson(raw) takes a string, got ${typeof raw}`);
  const text = raw.replace(/^\uFEFF/, '');
  const fenced = [...text.matchAll(FENCE)].map((m) => m[1] ?? '');
  for (const candidate of [...fenced, text]) {
    const found = objectIn(candidate);
    if (found && 'object' in found) return found.object;
    // An array or a cut-off object is the answer, just not a usable one: an object nested in it is not.
    if (found) throw new InvalidModelOutputError({ message: found.problem, output: text });
  }
  const message = text.trim() === '' ? 'The model reply is empty' : 'No JSON object found in the model reply';
  throw new InvalidModelOutputError({ message, output: text });
}
