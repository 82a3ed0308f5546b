import { chmodSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { DEFAULT_PORTS } from '../core/defaults.js';
import { generateSecret } from '../a2a/signing/signing-key.js';
import { RUN_DIR, type ServiceSpec } from './project-file.js';

/** The tutorial's ports (the spec's defaults); `portOffset` shifts all of them. */
export const TUTORIAL_PORTS = {
  policy: DEFAULT_PORTS.policy,
  guardian: DEFAULT_PORTS.guardian,
  executor: DEFAULT_PORTS.executor,
  planner: DEFAULT_PORTS.planner,
  web: DEFAULT_PORTS.tutorialWeb,
} as const;

/**
 * The tutorial stack: the policy engine over `<toolkit>/policies`, the
 * Guardian, the executor (A2A only), the planner and the web interface (the
 * planner's minimal front door), signed and strictly validated A2A between
 * them. Writes, under `<root>/.framework/run/`, a fresh keys file (mode 0600)
 * and copies of the tutorial cards with the URLs of the ports used.
 *
 * @example
 * const services = prepareTutorialStack({ root: process.cwd(), toolkitRoot: config.root });
 */
export function prepareTutorialStack(options: { root: string; toolkitRoot: string; portOffset?: number }): ServiceSpec[] {
  const offset = options.portOffset ?? 0;
  const port = (name: keyof typeof TUTORIAL_PORTS) => TUTORIAL_PORTS[name] + offset;
  const runDir = join(options.root, RUN_DIR);
  const cardsDir = join(runDir, 'cards');
  mkdirSync(cardsDir, { recursive: true });
  const keysFile = join(runDir, 'a2a-keys.json');
  const keys = ['planner', 'executor'].map((agent) => ({ id: `${agent}-tutorial`, agent, secret: generateSecret() }));
  writeFileSync(keysFile, `${JSON.stringify({ keys }, null, 2)}\n`, { mode: 0o600 });
  chmodSync(keysFile, 0o600);
  const card = (file: string, name: string, cardPort: number) => {
    const shipped = JSON.parse(readFileSync(join(options.toolkitRoot, 'agent_cards', `${file}.json`), 'utf8')) as Record<string, unknown>;
    const path = join(cardsDir, `${name}.json`);
    writeFileSync(path, `${JSON.stringify({ ...shipped, url: `http://127.0.0.1:${cardPort}/` }, null, 2)}\n`);
    return path;
  };
  const executorCard = card('executor', 'executor', port('executor'));
  const plannerCard = card('planner', 'planner', port('planner'));
  const webCard = card('planner', 'web', port('web'));
  const a2a = { A2A_KEYS_FILE: keysFile, GUARDIAN_URL: `http://127.0.0.1:${port('guardian')}`, A2A_VALIDATION_MODE: 'strict' };
  const service = (spec: Omit<ServiceSpec, 'healthPath' | 'optional'> & { healthPath?: string }): ServiceSpec => ({
    healthPath: '/health',
    optional: false,
    ...spec,
  });
  return [
    service({
      name: 'policy',
      kind: 'policy',
      port: port('policy'),
      args: ['policy', 'serve', join(options.toolkitRoot, 'policies'), '--addr', `127.0.0.1:${port('policy')}`, '--no-watch'],
      env: {},
      dependsOn: [],
    }),
    service({
      name: 'guardian',
      kind: 'guardian',
      port: port('guardian'),
      args: ['serve', 'guardian', '--addr', `127.0.0.1:${port('guardian')}`, '--opa-url', `http://127.0.0.1:${port('policy')}`],
      env: {},
      dependsOn: ['policy'],
    }),
    service({
      name: 'executor',
      kind: 'agent',
      port: port('executor'),
      args: ['serve', 'agent', '--example', 'executor', '--a2a-only', '--port', String(port('executor'))],
      env: { ...a2a, AGENT_CARD: executorCard },
      dependsOn: ['guardian'],
    }),
    service({
      name: 'planner',
      kind: 'agent',
      port: port('planner'),
      args: ['serve', 'agent', '--example', 'planner', '--port', String(port('planner'))],
      env: { ...a2a, AGENT_CARD: plannerCard, EXECUTOR_CARD: executorCard },
      dependsOn: ['guardian', 'executor'],
    }),
    service({
      name: 'web',
      kind: 'agent',
      port: port('web'),
      // The minimal front door has only POST /stream; its A2A card answers GET.
      healthPath: '/.well-known/agent-card.json',
      args: ['serve', 'agent', '--example', 'planner', '--minimal', '--port', String(port('web'))],
      env: { ...a2a, AGENT_CARD: webCard, EXECUTOR_CARD: executorCard },
      dependsOn: ['guardian', 'executor'],
    }),
  ];
}

/**
 * The trading example's stack: the policy engine over `<toolkit>/policies`
 * (with `trading.rego`), the Guardian, and the trader agent
 * (`serve agent --example trader`), whose every trade the Guardian decides
 * in strict mode. `portOffset` shifts every port.
 *
 * @example
 * const services = prepareTradingStack({ toolkitRoot: config.root });
 */
export function prepareTradingStack(options: { toolkitRoot: string; portOffset?: number }): ServiceSpec[] {
  const offset = options.portOffset ?? 0;
  const policy = DEFAULT_PORTS.policy + offset;
  const guardian = DEFAULT_PORTS.guardian + offset;
  const trader = DEFAULT_PORTS.trader + offset;
  const base = { healthPath: '/health', optional: false } as const;
  return [
    {
      ...base,
      name: 'policy',
      kind: 'policy',
      port: policy,
      args: ['policy', 'serve', join(options.toolkitRoot, 'policies'), '--addr', `127.0.0.1:${policy}`, '--no-watch'],
      env: {},
      dependsOn: [],
    },
    {
      ...base,
      name: 'guardian',
      kind: 'guardian',
      port: guardian,
      args: ['serve', 'guardian', '--addr', `127.0.0.1:${guardian}`, '--opa-url', `http://127.0.0.1:${policy}`],
      env: {},
      dependsOn: ['policy'],
    },
    {
      ...base,
      name: 'trader',
      kind: 'agent',
      port: trader,
      args: ['serve', 'agent', '--example', 'trader', '--port', String(trader)],
      env: { GUARDIAN_URL: `http://127.0.0.1:${guardian}`, A2A_VALIDATION_MODE: 'strict', TOOL_POLICIES: 'place_trade:trading' },
      dependsOn: ['guardian'],
    },
  ];
}
