import { bodyField, type HttpAnswer } from './http-probe.js';
import { DEFAULT_PORTS } from '../core/defaults.js';

/** A default port of the component table and how to recognise our service on it. */
export interface KnownPort {
  port: number;
  /** Who normally listens there, for messages: `the Guardian`. */
  service: string;
  /** The command that starts it. */
  startedBy: string;
  /** What to GET to ask who is there. */
  probePath: string;
  /** True when the answer is the one our service gives (healthy or not). */
  isOurs(answer: HttpAnswer): boolean;
}

const isAgent = (a: HttpAnswer) => bodyField(a.body, 'status') === 'ok' && typeof bodyField(a.body, 'name') === 'string';

function agentPort(port: number, service: string): KnownPort {
  return { port, service, startedBy: 'framework-cli serve agent / up', probePath: '/health', isOurs: isAgent };
}

/** The default ports of docs ARCHITECTURE "Components and default ports", in that order. */
export const KNOWN_PORTS: readonly KnownPort[] = [
  agentPort(DEFAULT_PORTS.agent, 'the project agent'),
  agentPort(DEFAULT_PORTS.planner, 'the planner agent'),
  agentPort(DEFAULT_PORTS.executor, 'the executor agent'),
  agentPort(DEFAULT_PORTS.tutorialWeb, 'the tutorial web interface'),
  {
    port: DEFAULT_PORTS.guardian,
    service: 'the Guardian',
    startedBy: 'framework-cli serve guardian',
    probePath: '/health',
    isOurs: (a) => bodyField(a.body, 'policy_engine') !== undefined,
  },
  {
    port: DEFAULT_PORTS.policy,
    service: 'the policy engine',
    startedBy: 'framework-cli policy serve',
    probePath: '/health',
    // OPA and ours answer `{}` when healthy and `{code, message}` when not.
    isOurs: (a) => typeof a.body === 'object' && a.body !== null && (a.ok ? Object.keys(a.body).length === 0 : typeof bodyField(a.body, 'code') === 'string'),
  },
  {
    port: DEFAULT_PORTS.semanticLayer,
    service: 'the Semantic Layer',
    startedBy: 'framework-cli serve semantic-layer',
    probePath: '/health',
    isOurs: (a) => typeof bodyField(a.body, 'vectorized_cards') === 'number',
  },
  {
    port: DEFAULT_PORTS.memory,
    service: 'the memory service',
    startedBy: 'framework-cli serve memory',
    probePath: '/v1/health',
    isOurs: (a) => typeof bodyField(a.body, 'kv_store') === 'string' && typeof bodyField(a.body, 'now') === 'number',
  },
  {
    port: DEFAULT_PORTS.model,
    service: 'the model runtime',
    startedBy: 'framework-cli model serve',
    // The Ollama API has no /health; /api/version answers on ours and on Ollama.
    probePath: '/api/version',
    isOurs: (a) => a.ok && typeof bodyField(a.body, 'version') === 'string',
  },
];

/** The known port entry of `port`, if it is one of the table. */
export function knownPort(port: number): KnownPort | undefined {
  return KNOWN_PORTS.find((p) => p.port === port);
}
