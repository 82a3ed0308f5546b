import { DEFAULT_CHAT_MODEL, DEFAULT_PORTS, DEFAULT_URLS } from '../core/defaults.js';
import type { ServiceSpec } from '../supervisor/project-file.js';

/** Local addresses of the stack that `framework-cli up` starts. */
export const LOCAL_PORTS = { ...DEFAULT_PORTS, firstAgent: DEFAULT_PORTS.agent } as const;
export const LOCAL_URLS = DEFAULT_URLS;

/** Where a project keeps things, relative to its root. */
export const PROJECT_PATHS = {
  agents: 'agents',
  policies: 'services/guardian/policies',
  cards: 'services/semantic_layer/agent_cards',
  keysFile: '.framework/secrets/a2a-keys.json',
  /** The token the swarm's agents send to its memory service (mode 0600). */
  memoryToken: '.framework/secrets/memory-token',
  semanticStore: '.framework/semantic',
  compose: 'compose.yaml',
} as const;
/** The command `up` runs before starting services. */
/** The project's build: its own TypeScript compiler (installed by `npm install`), without npx, which would try the network. */
export const BUILD_COMMAND = ['node', 'node_modules/typescript/bin/tsc', '-p', '.'];

/** The card file of an agent, relative to the project root. */
export function cardPath(agent: string): string {
  return `${PROJECT_PATHS.cards}/${agent}.json`;
}

/**
 * The services every project runs besides its agents: model runtime and
 * Semantic Layer (optional: they need model files), policy engine, Guardian.
 *
 * @example
 * coreServices().map((s) => s.name); // ['model', 'policy', 'guardian', 'semantic-layer']
 */
export function coreServices(): ServiceSpec[] {
  return [
    service({ name: 'model', kind: 'model', port: LOCAL_PORTS.model, args: ['model', 'serve', '--addr', `127.0.0.1:${LOCAL_PORTS.model}`], optional: true }),
    service({
      name: 'policy',
      kind: 'policy',
      port: LOCAL_PORTS.policy,
      args: ['policy', 'serve', PROJECT_PATHS.policies, '--addr', `127.0.0.1:${LOCAL_PORTS.policy}`],
    }),
    service({
      name: 'guardian',
      kind: 'guardian',
      port: LOCAL_PORTS.guardian,
      args: ['serve', 'guardian', '--addr', `127.0.0.1:${LOCAL_PORTS.guardian}`, '--opa-url', LOCAL_URLS.policy],
      dependsOn: ['policy'],
    }),
    service({
      name: 'semantic-layer',
      kind: 'semantic-layer',
      port: LOCAL_PORTS.semanticLayer,
      args: [
        'serve',
        'semantic-layer',
        '--addr',
        `127.0.0.1:${LOCAL_PORTS.semanticLayer}`,
        '--cards',
        PROJECT_PATHS.cards,
        '--store-dir',
        PROJECT_PATHS.semanticStore,
      ],
      env: { OLLAMA_HOST: LOCAL_URLS.model },
      optional: true,
    }),
  ];
}

/** The key-value store the local memory service keeps system memory in (the system's Redis). */
export const LOCAL_KV_URL = DEFAULT_URLS.kv;

/**
 * The system memory of a swarm (`framework-cli serve memory`): after the
 * model runtime (its embeddings); healthy only once Redis answers, so the
 * agents, which depend on it, start after both.
 *
 * @example
 * memoryService().args; // ['serve', 'memory', '--addr', '127.0.0.1:8000']
 */
export function memoryService(): ServiceSpec {
  return {
    ...service({
      name: 'memory',
      kind: 'memory',
      port: LOCAL_PORTS.memory,
      args: ['serve', 'memory', '--addr', `127.0.0.1:${LOCAL_PORTS.memory}`],
      env: { KV_URL: LOCAL_KV_URL, OLLAMA_HOST: LOCAL_URLS.model, MEMORY_AUTH_TOKENS_FILE: PROJECT_PATHS.memoryToken },
      dependsOn: ['model'],
    }),
    healthPath: '/v1/health',
  };
}

/** What an agent service needs; `env` is its configuration (see `agentEnvironment`). */
export interface AgentServiceOptions {
  name: string;
  port: number;
  env: Record<string, string>;
  /** Only the A2A endpoint, no front door (an executor). */
  a2aOnly?: boolean;
  /** Also answer the Ollama chat API (generated with --with-web-interface). */
  chatCompat?: boolean;
  /** Services to be healthy first besides the Guardian (a swarm's `memory`). */
  dependsOn?: string[];
}

/**
 * An agent started as `framework-cli serve agent --module dist/agents/<name>/app.js`.
 *
 * @example
 * agentService({ name: 'helper', port: 8002, env: { AGENT_NAME: 'helper' } }).args;
 */
export function agentService(options: AgentServiceOptions): ServiceSpec {
  const args = ['serve', 'agent', '--module', `dist/agents/${options.name}/app.js`, '--port', String(options.port)];
  if (options.a2aOnly) args.push('--a2a-only');
  if (options.chatCompat) args.push('--chat-compat');
  return service({ name: options.name, kind: 'agent', port: options.port, args, env: options.env, dependsOn: ['guardian', ...(options.dependsOn ?? [])] });
}

/** System memory of a swarm, given to every agent. */
export interface SwarmMemory {
  agentMemoryUrl: string;
  contextId: string;
}

/**
 * The environment of an agent service: the spec's agent configuration with
 * local addresses. Secrets stay in the keys file; only its path is here.
 *
 * @example
 * agentEnvironment({ name: 'helper', port: 8002 }).AGENT_CARD; // 'services/semantic_layer/agent_cards/helper.json'
 */
export function agentEnvironment(options: {
  name: string;
  port: number;
  memory?: SwarmMemory;
  urls?: { guardian: string; policy: string; model: string };
}): Record<string, string> {
  const urls = options.urls ?? LOCAL_URLS;
  return {
    AGENT_NAME: options.name,
    AGENT_PORT: String(options.port),
    AGENT_CARD: cardPath(options.name),
    MODEL_NAME: DEFAULT_CHAT_MODEL,
    OLLAMA_HOST: urls.model,
    LOG_LEVEL: 'info',
    GUARDIAN_URL: urls.guardian,
    OPA_URL: urls.policy,
    A2A_VALIDATION_MODE: 'strict',
    A2A_ENABLE_AUDIT_LOG: 'true',
    A2A_KEYS_FILE: PROJECT_PATHS.keysFile,
    SESSION_BACKEND: 'memory',
    SESSION_TTL: '3600',
    ...(options.memory
      ? { AGENT_MEMORY_URL: options.memory.agentMemoryUrl, CONTEXT_ID: options.memory.contextId, AGENT_MEMORY_TOKEN_FILE: PROJECT_PATHS.memoryToken }
      : {}),
  };
}

function service(options: {
  name: string;
  kind: ServiceSpec['kind'];
  port: number;
  args: string[];
  env?: Record<string, string>;
  dependsOn?: string[];
  optional?: boolean;
}): ServiceSpec {
  return {
    name: options.name,
    kind: options.kind,
    port: options.port,
    // The model runtime speaks Ollama's API, which has no /health.
    healthPath: options.kind === 'model' ? '/api/version' : '/health',
    args: options.args,
    env: options.env ?? {},
    dependsOn: options.dependsOn ?? [],
    optional: options.optional ?? false,
  };
}
