import { LOCAL_TRACES_VARIABLE } from '../telemetry/telemetry-config.js';
import { TRACES_DIR } from '../telemetry/trace-store.js';

/** The Compose service that keeps a containers stack's traces, and the port it listens on inside the network. */
export const TRACES_SERVICE = 'traces';
const TRACES_PORT = 4319;
/** Where the project's `.framework/traces/` is mounted in the receiver's container (its `--dir`). */
const STACK_ROOT = '/stack';

interface ComposeService {
  image?: string;
  build?: unknown;
  user?: string;
  command?: unknown;
  environment?: Record<string, string> | string[];
  depends_on?: Record<string, unknown> | string[];
  [key: string]: unknown;
}

/**
 * Adds the stack's trace receiver to a Compose file, as `up` keeps one for
 * processes: a `traces` service (`serve traces`, from the toolkit image, as
 * the same user) writing into the project's `.framework/traces/` (a bind
 * mount, so `framework-cli trace` reads it on the host, after `down` too;
 * bounded by the store's rotation), and FRAMEWORK_TRACES_URL in every
 * toolkit service (with OTEL_SERVICE_NAME, its Compose name, unless set),
 * each started once the receiver is healthy. It is reached
 * only inside the Compose network (no port published). A file with no
 * toolkit service (no `serve`-able image) is returned unchanged: false.
 */
export function addTraceReceiver(compose: { services?: Record<string, ComposeService> }): boolean {
  const services = compose.services ?? {};
  const toolkit = Object.entries(services).filter(([, service]) => isToolkitService(service));
  const model = toolkit[0]?.[1];
  if (model?.image === undefined || services[TRACES_SERVICE] !== undefined) return false;
  const url = `http://${TRACES_SERVICE}:${TRACES_PORT}/v1/traces`;
  for (const [name, service] of toolkit) {
    // Each service's spans named after its Compose service (`planner`, `guardian`, ...), as `up` names its processes; the file's own name wins.
    if (Array.isArray(service.environment)) {
      service.environment.push(`${LOCAL_TRACES_VARIABLE}=${url}`);
      if (!service.environment.some((entry) => entry.startsWith('OTEL_SERVICE_NAME='))) service.environment.push(`OTEL_SERVICE_NAME=${name}`);
    } else service.environment = { OTEL_SERVICE_NAME: name, ...service.environment, [LOCAL_TRACES_VARIABLE]: url };
    if (Array.isArray(service.depends_on)) service.depends_on = Object.fromEntries(service.depends_on.map((name) => [name, { condition: 'service_started' }]));
    service.depends_on = { ...service.depends_on, [TRACES_SERVICE]: { condition: 'service_healthy' } };
  }
  const probe = `exec 3<>/dev/tcp/127.0.0.1/${TRACES_PORT} && printf 'GET /health HTTP/1.0\\r\\nHost: localhost\\r\\n\\r\\n' >&3 && head -n 1 <&3 | grep -q ' 200 '`;
  services[TRACES_SERVICE] = {
    image: model.image,
    ...(model.user ? { user: model.user } : {}),
    command: ['serve', 'traces', '--addr', `0.0.0.0:${TRACES_PORT}`, '--allow-remote', '--dir', STACK_ROOT],
    volumes: [`./${TRACES_DIR}:${STACK_ROOT}/${TRACES_DIR}`],
    healthcheck: { test: ['CMD', 'bash', '-c', probe], interval: '2s', timeout: '5s', retries: 60, start_period: '2s' },
  };
  compose.services = services;
  return true;
}

/** A service run by `framework-cli` in the toolkit image: its command is one of the CLI's (`serve ...`, `policy serve`, `model serve`). */
function isToolkitService(service: ComposeService): boolean {
  const command = Array.isArray(service.command) ? service.command.map(String) : [];
  return command[0] === 'serve' || (command[1] === 'serve' && (command[0] === 'policy' || command[0] === 'model'));
}
