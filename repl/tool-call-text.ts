import type { ToolApprovalCard } from './chat-event.js';

/**
 * A value as canonical JSON: object keys sorted (by UTF-16 code units), so
 * the same arguments always read the same, optionally indented. Strings keep
 * every character (JSON escapes controls; the caller shows the rest visibly).
 *
 * @example
 * canonicalJson({ symbol: 'ACME', amount: 10000 }); // '{"amount":10000,"symbol":"ACME"}'
 */
export function canonicalJson(value: unknown, indent?: number): string {
  return JSON.stringify(sortKeys(value), null, indent) ?? 'null';
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (value === null || typeof value !== 'object') return value;
  const sorted: Record<string, unknown> = {};
  for (const key of Object.keys(value).sort()) sorted[key] = sortKeys((value as Record<string, unknown>)[key]);
  return sorted;
}

/**
 * One tool call on one line, as the person decided it: `place_trade({"amount":10000,"symbol":"ACME"})`.
 *
 * @example
 * toolCallLine({ approval_id: 'a1', tool: 'place_trade', arguments: { amount: 10000 }, reasons: [] }); // 'place_trade({"amount":10000})'
 */
export function toolCallLine(card: Pick<ToolApprovalCard, 'tool' | 'arguments'>): string {
  return `${card.tool}(${canonicalJson(card.arguments)})`;
}
