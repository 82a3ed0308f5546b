import { createHash } from 'node:crypto';
import type { SessionRef } from './working-memory.js';

/** The Redis keys of one memory store, all under `<prefix>mem:`. */
export interface MemoryKeys {
  /** Hash of one long-term record: `doc` (JSON), `vec` (float32 bytes), `hash` (dedup hash). */
  record(id: string): string;
  readonly recordPrefix: string;
  /** Set: the ids of the records with a dedup hash (each also checked against its record). */
  dedupe(hash: string): string;
  readonly dedupePrefix: string;
  /** Set of every record id, for loading the cache. */
  readonly ids: string;
  /** Hash: `epoch` (random, set by the first write), `ver` (changes so far), `last` (stream id of the last change), `model`, `dim`. */
  readonly meta: string;
  /** Stream of changes `{v, op: put|del, id}`, trimmed; replicas follow it to keep their caches. */
  readonly log: string;
  /** Hash: replica id → expiry (ms, Redis's clock) of its read lease (see change-notices.ts). */
  readonly readers: string;
  /** Pub/sub channel of the change notices writers publish (see change-notices.ts). */
  readonly changes: string;
  /** Pub/sub channel of one replica: its lease renewals and the answers to its notices. */
  replicaChannel(id: string): string;
  /** String (JSON) of one session's working memory; a token's sessions (token mode) live apart from every other token's. */
  working(ref: SessionRef): string;
  /** Sorted set of every session `[namespace, user, session]` of one owner (none: no token) by first write (see session-index.ts). */
  sessionIndex(owner: string | undefined): string;
  /** Set of the `[namespace, user]` scopes holding one session id of one owner. */
  sessionScopes(sessionId: string, owner: string | undefined): string;
  /** Hash: record id → owner (the hash of the bearer token that created it, token mode only). */
  readonly owners: string;
  /** String: JSON of one service document (`view`: a summary view, `partition`: one of its results, `task`: a task). */
  document(kind: DocumentKind, id: string): string;
  /** Set: the ids of the documents of one kind (tasks, which expire, are not listed). */
  documentIndex(kind: DocumentKind): string;
}

/** The kinds of service documents kept beside the records. */
export type DocumentKind = 'view' | 'partition' | 'task';

/** One key component: "" for none, else URI-encoded (so never empty and never holding ":" or "@"). */
const part = (value: string | undefined) => (value === undefined ? '' : encodeURIComponent(value));
/** The owner's mark in a key: "" without a token, else `@<owner>` (an encoded part never holds "@", so no owner's key is another's). */
const mark = (owner: string | undefined) => (owner === undefined ? '' : `@${encodeURIComponent(owner)}`);

/**
 * The keys of the store under `prefix` (e.g. `fw:` → `fw:mem:rec:<id>`).
 *
 * @example
 * memoryKeys('fw:').working({ sessionId: 's1', namespace: 'crm' }); // 'fw:mem:wm:crm::s1'
 * memoryKeys('fw:').working({ sessionId: 's1', owner: 'ab12' }); // 'fw:mem:wm@ab12:::s1'
 */
export function memoryKeys(prefix: string): MemoryKeys {
  const base = `${prefix}mem:`;
  const recordPrefix = `${base}rec:`;
  const dedupePrefix = `${base}dup:`;
  return {
    record: (id) => `${recordPrefix}${id}`,
    recordPrefix,
    dedupe: (hash) => `${dedupePrefix}${hash}`,
    dedupePrefix,
    ids: `${base}ids`,
    meta: `${base}meta`,
    log: `${base}log`,
    readers: `${base}readers`,
    changes: `${base}changes`,
    replicaChannel: (id) => `${base}changes:${part(id)}`,
    working: (ref) => `${base}wm${mark(ref.owner)}:${part(ref.namespace)}:${part(ref.userId)}:${part(ref.sessionId)}`,
    sessionIndex: (owner) => `${base}wm-index${mark(owner)}`,
    sessionScopes: (sessionId, owner) => `${base}wm-sid${mark(owner)}:${part(sessionId)}`,
    owners: `${base}owners`,
    document: (kind, id) => `${base}doc:${kind}:${part(id)}`,
    documentIndex: (kind) => `${base}docs:${kind}`,
  };
}

/**
 * What makes two long-term memories duplicates: the same trimmed text in the
 * same namespace for the same user (AMS also keys on session and memory type;
 * we do not, so a fact remembered in two sessions is kept once), and, in
 * token mode, of the same owner: a token's record is never another token's
 * duplicate (answering its id would tell that the text is stored).
 *
 * @example
 * dedupeHash({ text: ' Likes tea', namespace: 'crm', user_id: null }) === dedupeHash({ text: 'Likes tea', namespace: 'crm', user_id: null }); // true
 * dedupeHash({ text: 'Likes tea', namespace: 'crm', user_id: null }, 'ab12') === dedupeHash({ text: 'Likes tea', namespace: 'crm', user_id: null }); // false
 */
export function dedupeHash(record: { text: string; namespace: string | null; user_id: string | null }, owner?: string): string {
  const fields: unknown[] = [record.namespace, record.user_id, record.text.trim()];
  if (owner !== undefined) fields.push({ owner });
  return createHash('sha256').update(JSON.stringify(fields)).digest('hex');
}
