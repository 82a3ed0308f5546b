import { Flags } from '@oclif/core';
import { JsonCommand } from '../../json-command.js';
import { FrameworkError } from '../../../runtime/core/framework-error.js';
import { parseAddr, serveUntilStopped } from '../../serve-until-stopped.js';

export default class ServeTraces extends JsonCommand {
  static override description =
    "Run a stack's trace receiver until interrupted: OTLP/HTTP JSON at POST /v1/traces, appending spans to <dir>/.framework/traces/ (bounded, what `framework-cli trace` reads). " +
    '`up` runs one itself; `up --containers` runs this command as the `traces` service, writing into the project folder, and points every service at it with FRAMEWORK_TRACES_URL.';

  static override examples = [
    '<%= config.bin %> serve traces --addr 127.0.0.1:4319',
    '<%= config.bin %> serve traces --addr 0.0.0.0:4319 --allow-remote --dir /app',
  ];

  static override enableJsonFlag = true;

  /** `{"event":"listening"}` first, the result when stopped: one JSON document per line. */
  static override jsonLines = true;

  static override flags = {
    addr: Flags.string({ char: 'a', description: 'address to listen on, host:port', default: '127.0.0.1:4319' }),
    dir: Flags.string({ description: 'the stack root whose .framework/traces/ gets the spans', default: '.' }),
    'allow-remote': Flags.boolean({
      description: 'listen on an address beyond loopback (a Compose network): refused without this flag, since whoever reaches the receiver can write spans',
      default: false,
    }),
  };

  async run(): Promise<{ url: string; stopped: true }> {
    const { flags } = await this.parse(ServeTraces);
    const addr = parseAddr(flags.addr);
    if (!addr) this.error(`--addr ${JSON.stringify(flags.addr)} is not host:port (for example 127.0.0.1:4319).`, { exit: 2 });
    const [{ startTraceReceiver }, { TraceStore }, { createLogger }] = await Promise.all([
      import('../../../runtime/telemetry/trace-receiver.js'),
      import('../../../runtime/telemetry/trace-store.js'),
      import('../../../runtime/core/logger.js'),
    ]);
    let receiver;
    try {
      receiver = await startTraceReceiver({
        store: new TraceStore({ root: flags.dir }),
        host: addr.host,
        port: addr.port,
        allowRemote: flags['allow-remote'],
        logger: createLogger({ name: 'traces' }),
      });
    } catch (error) {
      if (FrameworkError.isInstance(error)) this.error(error.message, { exit: 1, code: error.code });
      throw error;
    }
    return serveUntilStopped(this, receiver, `Trace receiver listening on ${receiver.tracesUrl}, keeping spans in ${flags.dir}`);
  }
}
