import { isPlainObject } from '../core/json.js';

/**
 * Why `rpc` is not a JSON-RPC 2.0 request object (spec §4: `jsonrpc` exactly
 * "2.0", `method` a string, `id` a string, number or null when present,
 * `params` an object or array when present), or `undefined` when it is one.
 * The SDK checks some of this only after it has read the parameters, so a
 * request with `"jsonrpc": "1.0"` got -32602 Invalid params; the spec's
 * answer is -32600 Invalid Request, which the endpoint gives from this.
 */
export function invalidJsonRpcRequest(rpc: unknown): string | undefined {
  if (!isPlainObject(rpc)) return 'a JSON-RPC request must be a JSON object';
  if (rpc.jsonrpc !== '2.0') return `"jsonrpc" must be exactly "2.0" (got ${JSON.stringify(rpc.jsonrpc) ?? 'nothing'})`;
  if (typeof rpc.method !== 'string' || rpc.method === '') return '"method" must be a non-empty string';
  if ('id' in rpc && !isJsonRpcId(rpc.id)) return '"id" must be a string, a number or null';
  if ('params' in rpc && rpc.params !== undefined && typeof rpc.params !== 'object') return '"params" must be an object or an array';
  if (rpc.params === null) return '"params" must be an object or an array';
  return undefined;
}

/** The request's `id` when it is a valid one (echoed in the answer), otherwise null (JSON-RPC §5). */
export function jsonRpcIdOf(rpc: unknown): string | number | null {
  return isPlainObject(rpc) && isJsonRpcId(rpc.id) ? rpc.id : null;
}

function isJsonRpcId(id: unknown): id is string | number | null {
  return id === null || typeof id === 'string' || (typeof id === 'number' && Number.isFinite(id));
}
