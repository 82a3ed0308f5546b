/** JSON text of an array nested `depth` deep around `inner`: `[[[…]]]`. */
export function nested(depth: number, inner = '1'): string {
  return `${'['.repeat(depth)}${inner}${']'.repeat(depth)}`;
}

/** An A2A 1.0 JSON-RPC `SendMessage` request whose message metadata holds `nested(depth)`. */
export function nestedRpc(depth: number): string {
  return `{"jsonrpc":"2.0","id":1,"method":"SendMessage","params":{"message":{"messageId":"m1","role":"ROLE_USER","parts":[{"text":"hi"}],"metadata":{"deep":${nested(depth)}}}}}`;
}
