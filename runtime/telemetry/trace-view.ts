import { terminalText } from '../core/terminal-text.js';
import { CONTEXT_ATTRIBUTE, DECISION_ATTRIBUTE } from '../core/telemetry/span-attributes.js';
import type { StoredSpan } from './stored-span.js';

/** A trace as `trace --json` gives it: its spans in tree order, each with its depth. */
export interface TraceView {
  traceId: string;
  startMs: number;
  durationMs: number;
  services: string[];
  spans: (StoredSpan & { depth: number })[];
}

/** The spans of the trace to show: `traceId`, else the last trace of `contextId`, else the last trace of all. */
export function pickTrace(spans: readonly StoredSpan[], options: { traceId?: string; contextId?: string }): StoredSpan[] {
  let traceId = options.traceId?.toLowerCase();
  if (traceId === undefined) {
    const candidates = options.contextId === undefined ? spans : spans.filter((span) => span.attributes[CONTEXT_ATTRIBUTE] === options.contextId);
    traceId = lastTraceId(candidates);
  }
  return traceId === undefined ? [] : spans.filter((span) => span.traceId === traceId);
}

/**
 * The trace whose root started last: a root is a span whose parent is not
 * stored (none, or a caller's span that a traceparent named); lacking roots
 * (a trace whose root is still open), the span that started last.
 */
function lastTraceId(spans: readonly StoredSpan[]): string | undefined {
  const ids = new Set(spans.map((span) => span.spanId));
  let best: StoredSpan | undefined;
  let bestIsRoot = false;
  for (const span of spans) {
    const isRoot = span.parentSpanId === undefined || !ids.has(span.parentSpanId);
    if (best === undefined || (isRoot && !bestIsRoot) || (isRoot === bestIsRoot && span.startMs > best.startMs)) {
      best = span;
      bestIsRoot = isRoot;
    }
  }
  return best?.traceId;
}

/** The spans of one trace as a tree: parents before children, siblings by start; a span whose parent is missing is a root. */
export function traceView(spans: readonly StoredSpan[]): TraceView | undefined {
  if (spans.length === 0) return undefined;
  const byId = new Map(spans.map((span) => [span.spanId, span]));
  const children = new Map<string | undefined, StoredSpan[]>();
  for (const span of spans) {
    const parent = span.parentSpanId !== undefined && byId.has(span.parentSpanId) ? span.parentSpanId : undefined;
    const list = children.get(parent) ?? [];
    list.push(span);
    children.set(parent, list);
  }
  const ordered: TraceView['spans'] = [];
  const visit = (parent: string | undefined, depth: number) => {
    for (const span of (children.get(parent) ?? []).sort((a, b) => a.startMs - b.startMs)) {
      ordered.push({ ...span, depth });
      visit(span.spanId, depth + 1);
    }
  };
  visit(undefined, 0);
  const startMs = Math.min(...spans.map((span) => span.startMs));
  const endMs = Math.max(...spans.map((span) => span.startMs + span.durationMs));
  return { traceId: spans[0]!.traceId, startMs, durationMs: endMs - startMs, services: [...new Set(spans.map((span) => span.service))], spans: ordered };
}

const BAR = 24;
const NAME = 44;

/**
 * The trace as a waterfall for a terminal: one row per span with its
 * service, name (indented by depth), a bar placed in the trace's time, its
 * duration, the decision it carries and its error. Every text that came from
 * a service is made terminal-safe.
 */
export function renderWaterfall(view: TraceView): string {
  const total = Math.max(view.durationMs, 0.001);
  const serviceWidth = Math.min(16, Math.max(7, ...view.services.map((service) => service.length)));
  const lines = [`trace ${view.traceId}  ${formatMs(view.durationMs)}  ${view.spans.length} spans  services: ${safe(view.services.join(', '))}`];
  for (const span of view.spans) {
    const from = Math.min(BAR - 1, Math.floor(((span.startMs - view.startMs) / total) * BAR));
    const width = Math.max(1, Math.min(BAR - from, Math.round((span.durationMs / total) * BAR)));
    const bar = `${' '.repeat(from)}${'█'.repeat(width)}`.padEnd(BAR);
    const name = clip(`${'  '.repeat(Math.min(span.depth, 10))}${safe(span.name)}${target(span)}`, NAME).padEnd(NAME);
    const decision = span.attributes[DECISION_ATTRIBUTE];
    const notes = [
      ...(decision === undefined ? [] : [`decision=${safe(String(decision))}`]),
      ...span.events.filter((event) => event.name.startsWith('approval.')).map((event) => safe(event.name)),
      ...(span.status === 'error' ? [`ERROR${span.statusMessage ? ` ${safe(clip(span.statusMessage, 80))}` : ''}`] : []),
    ];
    lines.push(
      `${clip(safe(span.service), serviceWidth).padEnd(serviceWidth)}  ${name}  ${bar}  ${formatMs(span.durationMs).padStart(8)}${notes.length ? `  ${notes.join('  ')}` : ''}`,
    );
  }
  return lines.join('\n');
}

/** Where a client span went (` → /v1/a2a/validate`), from its `url.full`; empty for other spans. */
function target(span: StoredSpan): string {
  const url = span.attributes['url.full'];
  if (span.kind !== 'CLIENT' || typeof url !== 'string') return '';
  try {
    return ` → ${safe(new URL(url).pathname)}`;
  } catch {
    return '';
  }
}

function safe(text: string): string {
  return terminalText(text, { singleLine: true });
}

function clip(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}

function formatMs(ms: number): string {
  if (ms < 1) return `${(ms * 1000).toFixed(0)} µs`;
  if (ms < 1000) return `${ms.toFixed(1)} ms`;
  return `${(ms / 1000).toFixed(2)} s`;
}
