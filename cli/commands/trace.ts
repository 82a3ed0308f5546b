import { resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { Args, Flags } from '@oclif/core';
import { JsonCommand } from '../json-command.js';
import { FrameworkError } from '../../runtime/core/framework-error.js';
import { terminalJson } from '../../runtime/core/terminal-text.js';
import { TRACES_DIR } from '../../runtime/telemetry/traces-dir.js';
import type { TraceView } from '../../runtime/telemetry/trace-view.js';
import { failWith } from '../fail-with.js';

/** How often --follow looks for new spans. */
const FOLLOW_POLL_MS = 500;

export default class Trace extends JsonCommand {
  static override description =
    `Draw a trace of the stack as a waterfall (service, span, timing, decision, error), from the spans \`up\` keeps under ${TRACES_DIR}/. ` +
    "With no argument (or --last) the most recent trace; give a trace id (from a traceparent header or a log line's trace_id), or --context <id> for the last trace of an A2A context or front-door session. " +
    '--follow redraws the trace as new spans arrive until Ctrl+C.';

  static override examples = [
    '<%= config.bin %> trace',
    '<%= config.bin %> trace 4bf92f3577b34da6a3ce929d0e0e4736',
    '<%= config.bin %> trace --context 6f1c…',
    '<%= config.bin %> trace --follow',
    '<%= config.bin %> trace --last --json',
  ];

  static override enableJsonFlag = true;

  /** With --follow, --json prints one trace document per line as it changes. */
  static override jsonLines = true;

  static override args = {
    traceId: Args.string({ description: 'trace id: 32 hex digits (default: the last trace)', ignoreStdin: true }),
  };

  static override flags = {
    last: Flags.boolean({ description: 'the most recent trace (the default)', default: false }),
    context: Flags.string({ description: 'the last trace of this A2A context id or front-door session id' }),
    follow: Flags.boolean({ char: 'f', description: 'redraw as new spans arrive, until Ctrl+C', default: false }),
    dir: Flags.directory({ description: 'project root (default: the current directory)', exists: true }),
  };

  async run(): Promise<TraceView> {
    const { args, flags } = await this.parse(Trace);
    const root = resolve(flags.dir ?? process.cwd());
    const traceId = args.traceId?.trim().toLowerCase();
    try {
      if (traceId !== undefined && !/^[0-9a-f]{32}$/.test(traceId)) {
        throw new FrameworkError({
          code: 'invalid_arguments',
          message: `"${args.traceId}" is not a trace id (32 hex digits, as in traceparent 00-<trace id>-<span id>-01).`,
        });
      }
      if (traceId !== undefined && (flags.last || flags.context !== undefined)) {
        throw new FrameworkError({ code: 'invalid_arguments', message: 'Give a trace id, --last or --context, not several.' });
      }
    } catch (error) {
      failWith(this, error);
    }
    const [{ TraceStore }, { pickTrace, renderWaterfall, traceView }] = await Promise.all([
      import('../../runtime/telemetry/trace-store.js'),
      import('../../runtime/telemetry/trace-view.js'),
    ]);
    const store = new TraceStore({ root });
    const select = () =>
      traceView(pickTrace(store.read(), { ...(traceId ? { traceId } : {}), ...(flags.context !== undefined ? { contextId: flags.context } : {}) }));
    let view = select();
    if (!flags.follow) {
      if (view === undefined) failWith(this, notFound({ root, traceId, contextId: flags.context }));
      if (!this.jsonEnabled()) this.log(renderWaterfall(view));
      return view;
    }
    const controller = new AbortController();
    const stop = () => controller.abort();
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
    let shown = '';
    let size = -1;
    while (!controller.signal.aborted) {
      const now = store.size();
      if (now !== size) {
        size = now;
        view = select();
        const key = view ? `${view.traceId}:${view.spans.length}` : '';
        if (view && key !== shown) {
          shown = key;
          if (this.jsonEnabled()) process.stdout.write(`${terminalJson(view)}\n`);
          else this.log(`${renderWaterfall(view)}\n`);
        }
      }
      await sleep(FOLLOW_POLL_MS, undefined, { signal: controller.signal }).catch(() => undefined);
    }
    process.off('SIGINT', stop);
    process.off('SIGTERM', stop);
    if (view === undefined) failWith(this, notFound({ root, traceId, contextId: flags.context }));
    return view;
  }
}

function notFound(options: { root: string; traceId: string | undefined; contextId: string | undefined }): FrameworkError {
  const what = options.traceId ? `trace ${options.traceId}` : options.contextId !== undefined ? `trace of context "${options.contextId}"` : 'trace';
  return new FrameworkError({
    code: 'trace_not_found',
    message: `No ${what} in ${resolve(options.root, TRACES_DIR)}. Traces are kept while the stack runs under framework-cli up; send a request and try again (older traces are dropped once the store is full).`,
  });
}
