import { resolve } from 'node:path';
import { TraceStore, TRACES_DIR } from '../runtime/telemetry/trace-store.js';
import { pickTrace, renderWaterfall, traceView } from '../runtime/telemetry/trace-view.js';

/**
 * What Ctrl+T shows: the waterfall of the last turn's trace (the agent's
 * `traceparent` answer) from the traces `up` keeps under `root`, or why there
 * is none. The waterfall's text is terminal-safe already.
 */
export function lastTurnTrace(options: { traceId: string | undefined; root: string }): string {
  if (options.traceId === undefined) {
    return 'The agent sent no trace id: tracing is off there. Start the stack with framework-cli up (traces are kept locally), or set OTEL_EXPORTER_OTLP_ENDPOINT.';
  }
  const view = traceView(pickTrace(new TraceStore({ root: options.root }).read(), { traceId: options.traceId }));
  if (view === undefined) {
    return `Trace ${options.traceId} is not in ${resolve(options.root, TRACES_DIR)} (yet): spans arrive within a second under framework-cli up; run chat from the project's folder, or send it to your backend.`;
  }
  return renderWaterfall(view);
}
