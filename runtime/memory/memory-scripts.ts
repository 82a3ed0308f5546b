import { ReplyError, type ChainableCommander, type Redis } from 'ioredis';
import { z } from 'zod';

/**
 * The Lua scripts that change long-term memory (put, delete, touch: a record's JSON replaced in place). Each write is atomic:
 * the record, its owner (token mode), its dedup set, the id set, the change counter and the
 * change stream move together (a record is never seen without its owner), so a replica that follows the stream never
 * sees a change without its record (see synced-vector-cache.ts).
 *
 * Keys of other records are built inside the scripts from the prefixes (a
 * duplicate named in a dedup set, the set of a record's previous text), so
 * they run on a single Redis, not across Redis Cluster slots.
 */

/**
 * KEYS: record, dedupe set, meta, log, ids, owners. ARGV: id, doc, vec, hash, dedupe(1|0), epoch, model, dim, maxlen, record prefix, dedupe prefix, scope, owner ('' for none).
 * The dedupe set holds every id whose record has that hash (also those written with dedupe off), so deleting one copy leaves the others findable.
 * `scope` (namespace and user as JSON) is kept with the record: an id held in another scope is refused ('scope'), never replaced;
 * an id held by another owner (or by none, for an owner; by one, for none) likewise ('owner'). A duplicate is only ever one of the same owner.
 */
const PUT = `
local meta = redis.call('HMGET', KEYS[3], 'model', 'dim')
if meta[1] and (meta[1] ~= ARGV[7] or meta[2] ~= ARGV[8]) then
  return {'model', meta[1], meta[2] or ''}
end
local held = redis.call('HGET', KEYS[1], 'scope')
if held and held ~= ARGV[12] then return {'scope', ARGV[1]} end
if redis.call('EXISTS', KEYS[1]) == 1 and (redis.call('HGET', KEYS[6], ARGV[1]) or '') ~= ARGV[13] then return {'owner', ARGV[1]} end
if ARGV[5] == '1' then
  for _, other in ipairs(redis.call('SMEMBERS', KEYS[2])) do
    if other ~= ARGV[1] and (redis.call('HGET', KEYS[6], other) or '') == ARGV[13] then
      local found = redis.call('HMGET', ARGV[10] .. other, 'hash', 'doc')
      if found[1] == ARGV[4] then return {'dup', other, found[2]} end
    end
  end
end
local old = redis.call('HGET', KEYS[1], 'hash')
if old and old ~= ARGV[4] then redis.call('SREM', ARGV[11] .. old, ARGV[1]) end
redis.call('HSET', KEYS[1], 'doc', ARGV[2], 'vec', ARGV[3], 'hash', ARGV[4], 'scope', ARGV[12])
if ARGV[13] == '' then redis.call('HDEL', KEYS[6], ARGV[1]) else redis.call('HSET', KEYS[6], ARGV[1], ARGV[13]) end
redis.call('SADD', KEYS[2], ARGV[1])
redis.call('SADD', KEYS[5], ARGV[1])
redis.call('HSETNX', KEYS[3], 'epoch', ARGV[6])
redis.call('HSETNX', KEYS[3], 'model', ARGV[7])
redis.call('HSETNX', KEYS[3], 'dim', ARGV[8])
local v = redis.call('HINCRBY', KEYS[3], 'ver', 1)
local sid = redis.call('XADD', KEYS[4], 'MAXLEN', '~', ARGV[9], '*', 'v', v, 'op', 'put', 'id', ARGV[1])
redis.call('HSET', KEYS[3], 'last', sid)
return {'ok', ARGV[1], tostring(v), sid, redis.call('HGET', KEYS[3], 'epoch')}
`;

/** KEYS: record, meta, log, ids, owners. ARGV: id, epoch, maxlen, dedupe prefix. The record's owner goes with it. */
const DELETE = `
local hash = redis.call('HGET', KEYS[1], 'hash')
if redis.call('DEL', KEYS[1]) == 0 then return {'none'} end
redis.call('HDEL', KEYS[5], ARGV[1])
if hash then redis.call('SREM', ARGV[4] .. hash, ARGV[1]) end
redis.call('SREM', KEYS[4], ARGV[1])
redis.call('HSETNX', KEYS[2], 'epoch', ARGV[2])
local v = redis.call('HINCRBY', KEYS[2], 'ver', 1)
local sid = redis.call('XADD', KEYS[3], 'MAXLEN', '~', ARGV[3], '*', 'v', v, 'op', 'del', 'id', ARGV[1])
redis.call('HSET', KEYS[2], 'last', sid)
return {'ok', ARGV[1], tostring(v), sid, redis.call('HGET', KEYS[2], 'epoch')}
`;

/**
 * KEYS: record, meta, log. ARGV: id, expected doc, new doc, epoch, maxlen.
 * Replaces a record's JSON only when it is still `expected` (a concurrent edit wins; the caller skips it), logged as a put.
 */
const TOUCH = `
if redis.call('HGET', KEYS[1], 'doc') ~= ARGV[2] then return {'none'} end
redis.call('HSET', KEYS[1], 'doc', ARGV[3])
redis.call('HSETNX', KEYS[2], 'epoch', ARGV[4])
local v = redis.call('HINCRBY', KEYS[2], 'ver', 1)
local sid = redis.call('XADD', KEYS[3], 'MAXLEN', '~', ARGV[5], '*', 'v', v, 'op', 'put', 'id', ARGV[1])
redis.call('HSET', KEYS[2], 'last', sid)
return {'ok', ARGV[1], tostring(v), sid, redis.call('HGET', KEYS[2], 'epoch')}
`;

/** A change this process made, as the scripts report it: its place in the change stream. */
export interface AppliedChange {
  id: string;
  ver: number;
  streamId: string;
  epoch: string;
}

/** What the put script answered. */
export type PutReply =
  | ({ kind: 'ok' } & AppliedChange)
  | { kind: 'dup'; id: string; doc: string }
  | { kind: 'model'; model: string; dim: string }
  | { kind: 'scope'; id: string }
  | { kind: 'owner'; id: string };

const ChangeReplySchema = z.tuple([z.literal('ok'), z.string(), z.coerce.number().int(), z.string(), z.string()]);
const PutReplySchema = z.union([
  ChangeReplySchema.transform(([, id, ver, streamId, epoch]): PutReply => ({ kind: 'ok', id, ver, streamId, epoch })),
  z.tuple([z.literal('dup'), z.string(), z.string()]).transform(([, id, doc]): PutReply => ({ kind: 'dup', id, doc })),
  z.tuple([z.literal('model'), z.string(), z.string()]).transform(([, model, dim]): PutReply => ({ kind: 'model', model, dim })),
  z.tuple([z.literal('scope'), z.string()]).transform(([, id]): PutReply => ({ kind: 'scope', id })),
  z.tuple([z.literal('owner'), z.string()]).transform(([, id]): PutReply => ({ kind: 'owner', id })),
]);
const DeleteReplySchema = z.union([
  ChangeReplySchema.transform(([, id, ver, streamId, epoch]): AppliedChange => ({ id, ver, streamId, epoch })),
  z.tuple([z.literal('none')]).transform(() => undefined),
]);

type ScriptCall = (...args: Array<string | Buffer | number>) => unknown;
const PUT_COMMAND = 'fwMemoryPut';
const DELETE_COMMAND = 'fwMemoryDelete';
const TOUCH_COMMAND = 'fwMemoryTouch';

/**
 * Registers the scripts on `client` (ioredis sends EVALSHA and loads them when Redis lacks them).
 *
 * @example
 * const client = createKvClient({ url });
 * defineMemoryScripts(client);
 * const pipeline = client.pipeline();
 * queuePut(pipeline, keys, args);
 * const [[, reply]] = await runPipeline(pipeline);
 * parsePutReply(reply); // { kind: 'ok', id, ver, streamId, epoch }
 */
export function defineMemoryScripts(client: Redis): void {
  client.defineCommand(PUT_COMMAND, { numberOfKeys: 6, lua: PUT });
  client.defineCommand(DELETE_COMMAND, { numberOfKeys: 5, lua: DELETE });
  client.defineCommand(TOUCH_COMMAND, { numberOfKeys: 3, lua: TOUCH });
}

function command(target: Redis | ChainableCommander, name: string): ScriptCall {
  return (target as unknown as Record<string, ScriptCall>)[name]!.bind(target);
}

/** Queues a put on a pipeline of a client that has the scripts (see `defineMemoryScripts` for an example). */
export function queuePut(
  pipeline: ChainableCommander,
  keys: readonly [string, string, string, string, string, string],
  args: readonly [string, string, Buffer, string, '0' | '1', string, string, string, number, string, string, string, string],
): void {
  command(pipeline, PUT_COMMAND)(...keys, ...args);
}

/** Queues a delete on a pipeline of a client that has the scripts; its reply reads with `parseDeleteReply`. */
export function queueDelete(
  pipeline: ChainableCommander,
  keys: readonly [string, string, string, string, string],
  args: readonly [string, string, number, string],
): void {
  command(pipeline, DELETE_COMMAND)(...keys, ...args);
}

/** Queues a compare-and-set of a record's JSON (see TOUCH); its reply reads with `parseDeleteReply` (undefined: not replaced). */
export function queueTouch(
  pipeline: ChainableCommander,
  keys: readonly [string, string, string],
  args: readonly [string, string, string, string, number],
): void {
  command(pipeline, TOUCH_COMMAND)(...keys, ...args);
}

/** The put script's reply, checked (see `defineMemoryScripts` for an example). */
export function parsePutReply(reply: unknown): PutReply {
  return PutReplySchema.parse(reply);
}

/** The delete script's reply, checked: the change made, or undefined when there was no such record. */
export function parseDeleteReply(reply: unknown): AppliedChange | undefined {
  return DeleteReplySchema.parse(reply);
}

/**
 * Runs a pipeline. A command that failed for want of a connection rejects
 * the whole run (so `kvCall` reports the store unavailable); Redis's own
 * error replies stay in the replies for the caller.
 *
 * @example
 * const replies = await kvCall(location, client, (c) => runPipeline(c.pipeline().get('a').get('b')));
 */
export async function runPipeline(pipeline: ChainableCommander): Promise<Array<[error: Error | null, reply: unknown]>> {
  const replies = (await pipeline.exec()) ?? [];
  for (const [error] of replies) if (error && !(error instanceof ReplyError)) throw error;
  return replies;
}
