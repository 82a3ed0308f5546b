import { readFileSync, realpathSync, statSync } from 'node:fs';
import { resolve, sep } from 'node:path';
import { z } from 'zod';
import { ConfigError, type ConfigIssue } from '../../core/errors/config-error.js';
import { KeyRing } from './key-ring.js';
import { AGENT_NAME_PATTERN, createSigningKey, decodeSecret, KEY_ID_PATTERN, MIN_SECRET_BYTES, type SigningKey } from './signing-key.js';

export interface LoadKeyRingOptions {
  /** Where `A2A_KEYS_FILE` and `A2A_KEYS` are read; default `process.env`. */
  env?: Readonly<Record<string, string | undefined>>;
}

/** The directory name that holds agent cards; a keys file inside one is refused. */
const CARDS_DIRECTORY = 'agent_cards';

const KeyEntrySchema = z.object(
  {
    id: z
      .string({ error: (issue) => (issue.input === undefined ? 'is missing' : 'must be a string') })
      .regex(KEY_ID_PATTERN, { error: 'must be 1-64 of letters, digits, ".", "_" or "-"' }),
    agent: z
      .string({ error: (issue) => (issue.input === undefined ? 'is missing' : 'must be a string') })
      .regex(AGENT_NAME_PATTERN, { error: 'must be a lower-case agent name (a-z, 0-9, ".", "_", "-"; starting with a letter or digit)' }),
    secret: z.string({ error: (issue) => (issue.input === undefined ? 'is missing' : 'must be a string (base64 or base64url)') }),
  },
  { error: 'must be an object {"id","agent","secret"}' },
);

const KeysDocumentSchema = z.object(
  {
    keys: z.array(KeyEntrySchema, { error: (issue) => (issue.input === undefined ? 'is missing' : 'must be an array of keys') }),
  },
  { error: 'must be a JSON object {"keys":[…]}' },
);

interface SourceKeys {
  source: string;
  keys: SigningKey[];
}

/**
 * The key ring from the environment: `A2A_KEYS_FILE` (path of a JSON file) and
 * `A2A_KEYS` (the same JSON inline), both `{"keys":[{"id","agent","secret"}]}`
 * with secrets in base64 or base64url of at least 32 bytes. Both sources may
 * be used; an id may appear only once across them. Neither set gives an empty
 * ring. Throws `ConfigError` (code `invalid_config`) naming the source and
 * every problem, never a secret. A keys file readable by group or others is
 * loaded, with a line in `ring.warnings`; one inside an `agent_cards`
 * directory is refused.
 *
 * @example
 * const ring = loadKeyRing({ env: process.env });
 * for (const warning of ring.warnings) logger.warn(warning);
 * const key = ring.signingKeyFor('planner', process.env.A2A_KEY_ID);
 */
export function loadKeyRing(options: LoadKeyRingOptions = {}): KeyRing {
  const env = options.env ?? process.env;
  const issues: ConfigIssue[] = [];
  const warnings: string[] = [];
  const sources: SourceKeys[] = [];

  const file = nonEmpty(env.A2A_KEYS_FILE);
  if (file !== undefined) {
    const path = resolve(file);
    const source = `A2A_KEYS_FILE (${path})`;
    const text = readKeysFile({ path, source, issues, warnings });
    if (text !== undefined) sources.push({ source, keys: parseKeys({ text, source, issues }) });
  }
  const inline = nonEmpty(env.A2A_KEYS);
  if (inline !== undefined) sources.push({ source: 'A2A_KEYS', keys: parseKeys({ text: inline, source: 'A2A_KEYS', issues }) });

  const seen = new Map<string, string>();
  const keys: SigningKey[] = [];
  for (const { source, keys: found } of sources) {
    for (const key of found) {
      const first = seen.get(key.id);
      if (first === undefined) {
        seen.set(key.id, source);
        keys.push(key);
      } else {
        const where = first === source ? 'earlier in the same source' : `in ${first}`;
        issues.push({ variable: source, message: `the key id "${key.id}" is also defined ${where}; key ids must be unique` });
      }
    }
  }
  if (issues.length > 0) throw new ConfigError({ issues, context: 'Invalid A2A signing keys' });
  return new KeyRing(keys, { warnings });
}

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value.trim() === '' ? undefined : value;
}

/** The text of the keys file, or `undefined` after recording why it cannot be used. */
function readKeysFile(options: { path: string; source: string; issues: ConfigIssue[]; warnings: string[] }): string | undefined {
  const { path, source, issues, warnings } = options;
  if (insideCardsDirectory(path)) {
    issues.push({
      variable: source,
      message: `lies inside an "${CARDS_DIRECTORY}" directory; agent cards are published, so keep secrets elsewhere (e.g. ~/.config/framework/a2a-keys.json, mode 600)`,
    });
    return undefined;
  }
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? 'error';
    issues.push({ variable: source, message: `cannot be read (${code}); check the path and that this process may read the file` });
    return undefined;
  }
  if (process.platform !== 'win32') {
    const mode = statSync(path).mode & 0o777;
    if ((mode & 0o077) !== 0) {
      warnings.push(`${source} is accessible to group or others (mode ${mode.toString(8).padStart(3, '0')}); it holds secrets, so run: chmod 600 '${path}'`);
    }
  }
  return text;
}

/** True when a directory on the path (as given or after resolving links) is named `agent_cards`. */
function insideCardsDirectory(path: string): boolean {
  const candidates = [path];
  try {
    candidates.push(realpathSync(path));
  } catch {
    // A missing file is reported when it is read.
  }
  return candidates.some((candidate) => candidate.split(sep).slice(0, -1).includes(CARDS_DIRECTORY));
}

/** The keys of one source; problems are added to `issues` (never with a secret or the raw text). */
function parseKeys(options: { text: string; source: string; issues: ConfigIssue[] }): SigningKey[] {
  const { text, source, issues } = options;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    // JSON.parse messages quote the text around the error, which may be a secret.
    issues.push({ variable: source, message: 'is not valid JSON; expected {"keys":[{"id":"…","agent":"…","secret":"<base64>"}]}' });
    return [];
  }
  const parsed = KeysDocumentSchema.safeParse(value);
  if (!parsed.success) {
    for (const issue of parsed.error.issues) issues.push({ variable: source, message: `${where(issue.path, value)}: ${issue.message}` });
    return [];
  }
  const keys: SigningKey[] = [];
  parsed.data.keys.forEach((entry, index) => {
    const secret = decodeSecret(entry.secret);
    const label = `keys[${index}] ("${entry.id}").secret`;
    if (secret === undefined) {
      issues.push({ variable: source, message: `${label}: is not base64 or base64url` });
    } else if (secret.length < MIN_SECRET_BYTES) {
      issues.push({
        variable: source,
        message: `${label}: decodes to ${secret.length} bytes; at least ${MIN_SECRET_BYTES} are required (make one with generateSecret())`,
      });
    } else {
      keys.push(createSigningKey({ id: entry.id, agent: entry.agent, secret }));
    }
  });
  return keys;
}

/** `keys[2] ("planner-1").agent` for a zod issue path; the id only when it is a plausible one. */
function where(path: readonly PropertyKey[], document: unknown): string {
  if (path.length === 0) return 'the document';
  const [first, index, ...rest] = path;
  if (first !== 'keys' || typeof index !== 'number') return path.map(String).join('.');
  const entries = (document as { keys: unknown[] }).keys;
  const id = (entries[index] as { id?: unknown } | null)?.id;
  const named = typeof id === 'string' && KEY_ID_PATTERN.test(id) ? ` ("${id}")` : '';
  return [`keys[${index}]${named}`, ...rest.map(String)].join('.');
}
