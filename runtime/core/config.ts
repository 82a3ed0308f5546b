import { z } from 'zod';
import { ConfigError, type ConfigIssue } from './errors/config-error.js';
import { DEFAULT_HOST, DEFAULT_PORTS, DEFAULT_URLS } from './defaults.js';
import { LlmConfigSchema, type LlmConfig } from './llm-config.js';

export type Env = Readonly<Record<string, string | undefined>>;

const port = z.coerce.number({ error: 'must be a port number from 1 to 65535' }).int().min(1).max(65535, 'must be a port number from 1 to 65535');
const positiveInt = z.coerce
  .number({ error: 'must be a positive whole number' })
  .int('must be a positive whole number')
  .positive('must be a positive whole number');
const url = z.url({ error: 'must be an absolute URL such as http://127.0.0.1:8181' });
const bool = z
  .string()
  .trim()
  .toLowerCase()
  .pipe(z.enum(['true', 'false', '1', '0', 'yes', 'no', 'on', 'off']))
  .transform((v) => v === 'true' || v === '1' || v === 'yes' || v === 'on');
const logLevel = z
  .string()
  .trim()
  .toLowerCase()
  .pipe(z.enum(['debug', 'info', 'warn', 'warning', 'error'], { error: 'must be debug, info, warn or error' }))
  .transform((v): LogLevel => (v === 'warning' ? 'warn' : v));

const kvPrefix = z.string().regex(/^[A-Za-z0-9:_.-]{1,64}$/, 'must be 1-64 characters of A-Z a-z 0-9 : _ . -');

/** Field schemas for environment variables, shared by every service's configuration. */
export const ENV_FIELDS = {
  port,
  /** A port where 0 means "pick a free one". */
  portOrZero: z.coerce.number({ error: 'must be a port number from 0 to 65535' }).int().min(0).max(65535, 'must be a port number from 0 to 65535'),
  positiveInt,
  url,
  bool,
  logLevel,
  /** A key prefix for the key-value store (KV_PREFIX). */
  kvPrefix,
} as const;

/** Validation modes of A2A calls (spec "Authentication" 6). */
export const A2A_VALIDATION_MODES = ['strict', 'permissive', 'disabled'] as const;
export type A2AValidationMode = (typeof A2A_VALIDATION_MODES)[number];

const llmConfigFromJson = z.string().transform((raw, ctx) => {
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    ctx.addIssue({ code: 'custom', message: 'must be a JSON object such as {"provider":"ollama","model":"smollm2"}' });
    return z.NEVER;
  }
  const result = LlmConfigSchema.safeParse(parsed);
  if (!result.success) {
    for (const issue of result.error.issues) {
      ctx.addIssue({ code: 'custom', message: `${issue.path.join('.') || '(root)'}: ${issue.message}` });
    }
    return z.NEVER;
  }
  return result.data;
});

/** The environment variables of the spec's "Agent configuration" table, and a few of ours. */
const EnvSchema = z
  .object({
    AGENT_NAME: z.string().regex(/^[a-z0-9][a-z0-9._-]*$/, 'must be a lower-case name (a-z, 0-9, ".", "_", "-")'),
    AGENT_DISPLAY_NAME: z.string().optional(),
    AGENT_DESCRIPTION: z.string().optional(),
    AGENT_VERSION: z.string().optional(),
    AGENT_HOST: z.string().min(1).optional(),
    AGENT_PORT: port.optional(),
    WEB_INTERFACE_PORT: port.optional(),
    A2A_GRPC_PORT: ENV_FIELDS.portOrZero.optional(),
    AGENT_CARD: z.string().min(1).optional(),
    MODEL_NAME: z.string().min(1).optional(),
    OLLAMA_HOST: url.optional(),
    LLM_CONFIG: llmConfigFromJson.optional(),
    LOG_LEVEL: logLevel.optional(),
    GUARDIAN_URL: url.optional(),
    OPA_URL: url.optional(),
    A2A_VALIDATION_MODE: z.string().trim().toLowerCase().pipe(z.enum(A2A_VALIDATION_MODES)).optional(),
    A2A_ENABLE_AUDIT_LOG: bool.optional(),
    A2A_ACCEPT_UNSIGNED: bool.optional(),
    A2A_KEY_ID: z
      .string()
      .regex(/^[A-Za-z0-9._-]{1,64}$/, 'must be 1-64 characters of A-Z a-z 0-9 . _ -')
      .optional(),
    A2A_TIMEOUT_MS: positiveInt.optional(),
    A2A_PREFERRED_TRANSPORTS: z
      .string()
      .transform((text) =>
        text
          .split(',')
          .map((name) => name.trim().toUpperCase())
          .filter((name) => name !== ''),
      )
      .pipe(z.array(z.enum(['JSONRPC', 'HTTP+JSON', 'GRPC'], { error: 'must list JSONRPC, HTTP+JSON or GRPC, comma-separated' })))
      .optional(),
    A2A_DECISIONS: z
      .string()
      .trim()
      .toLowerCase()
      .pipe(z.enum(['guardian', 'local']))
      .optional(),
    A2A_BUNDLE_REFRESH_MS: positiveInt.optional(),
    A2A_BUNDLE_MAX_AGE_MS: positiveInt.optional(),
    AGENT_MEMORY_URL: url.optional(),
    CONTEXT_ID: z.string().min(1).optional(),
    SESSION_BACKEND: z
      .string()
      .trim()
      .toLowerCase()
      .pipe(z.enum(['memory', 'kv']))
      .optional(),
    SESSION_KV_URL: url.optional(),
    KV_URL: url.optional(),
    KV_PREFIX: kvPrefix.optional(),
    SESSION_TTL: positiveInt.optional(),
    SESSION_START_LIMIT: z.coerce.number({ error: 'must be a whole number (0 turns the limit off)' }).int().min(0).optional(),
    MAX_BODY_BYTES: positiveInt.optional(),
    LLM_HISTORY_MESSAGES: positiveInt.optional(),
    CHAT_API_KEYS: z
      .string()
      .transform((raw) =>
        raw
          .split(',')
          .map((key) => key.trim())
          .filter((key) => key !== ''),
      )
      .pipe(z.array(z.string().min(16, 'each key must be at least 16 characters'))),
    CHAT_ANONYMOUS_CONTINUATION: bool.optional(),
    CHAT_PER_USER_KEYS: bool.optional(),
    A2A_CARD_SIGNING_KEY_FILE: z.string().min(1).optional(),
    A2A_CARD_SIGNING_KEY_ID: z
      .string()
      .regex(/^[A-Za-z0-9._:-]{1,128}$/, 'must be 1-128 characters of A-Z a-z 0-9 . _ : -')
      .optional(),
    A2A_PUSH_SIGNING_KEY_FILE: z.string().min(1).optional(),
    A2A_PUSH_SIGNING_KEY_ID: z
      .string()
      .regex(/^[A-Za-z0-9._:-]{1,128}$/, 'must be 1-128 characters of A-Z a-z 0-9 . _ : -')
      .optional(),
    A2A_PUSH_SIGNING_PREVIOUS_KEYS_FILE: z.string().min(1).optional(),
    A2A_CARD_DEFAULT_VERSION: z.enum(['1.0', '0.3'], { error: 'must be 1.0 or 0.3' }).optional(),
    A2A_PUSH_ALLOWED_HOSTS: z
      .string()
      .transform((raw) =>
        raw
          .split(',')
          .map((host) => host.trim().toLowerCase())
          .filter((host) => host !== ''),
      )
      .pipe(z.array(z.string().regex(/^(\*|\[[0-9a-f:.]+\](:\d{1,5})?|[a-z0-9.-]+(:\d{1,5})?)$/, 'each entry must be a host, host:port or *')))
      .optional(),
  })
  .partial({ CHAT_API_KEYS: true });

export type LogLevel = 'debug' | 'info' | 'warn' | 'error';

/** Resolved agent configuration, with defaults applied. */
export interface AgentConfig extends SessionConfig, A2AConfig {
  agentName: string;
  displayName: string;
  description: string;
  version: string;
  host: string;
  agentPort: number;
  webInterfacePort: number | undefined;
  /** Serve the A2A gRPC binding on this port (A2A_GRPC_PORT; 0 picks a free one); unset, no gRPC. */
  a2aGrpcPort: number | undefined;
  agentCard: string | undefined;
  modelName: string | undefined;
  ollamaHost: string;
  llmConfig: LlmConfig | undefined;
  logLevel: LogLevel;
  agentMemoryUrl: string | undefined;
  contextId: string | undefined;
  maxBodyBytes: number;
  /** API keys a chat interface sends as `Authorization: Bearer` to the chat-compatibility endpoints (CHAT_API_KEYS, comma-separated). */
  chatApiKeys: string[];
  /** Let callers without identity continue a conversation by its history (CHAT_ANONYMOUS_CONTINUATION; unsafe with more than one user). */
  chatAnonymousContinuation: boolean;
  /** Every key of CHAT_API_KEYS belongs to one person (CHAT_PER_USER_KEYS), so a key tells callers apart and approvals can be asked in the chat. */
  chatPerUserKeys: boolean;
  /** Hosts (`host` or `host:port`, `*` for any) A2A push-notification webhooks may target (A2A_PUSH_ALLOWED_HOSTS); none by default. */
  a2aPushAllowedHosts: string[];
  /**
   * The agent-card shape served to a request without A2A-Version (A2A_CARD_DEFAULT_VERSION): unset (default) the 1.0
   * card with the 0.3 fields added, which clients of both versions read; `1.0` or `0.3` for that shape alone.
   */
  a2aCardDefaultVersion: '1.0' | '0.3' | undefined;
  /** PEM private key that signs the served agent card (A2A_CARD_SIGNING_KEY_FILE), with its JWS kid (A2A_CARD_SIGNING_KEY_ID). */
  a2aCardSigningKeyFile: string | undefined;
  a2aCardSigningKeyId: string | undefined;
  /** PEM private key that signs push-notification webhook POSTs (A2A_PUSH_SIGNING_KEY_FILE), with its JWT kid (A2A_PUSH_SIGNING_KEY_ID; default the key's thumbprint). */
  a2aPushSigningKeyFile: string | undefined;
  a2aPushSigningKeyId: string | undefined;
  /** Retired push signing public keys still served in the JWKS (A2A_PUSH_SIGNING_PREVIOUS_KEYS_FILE: a JWKS or PEM keys). */
  a2aPushSigningPreviousKeysFile: string | undefined;
}

export const CONFIG_DEFAULTS = {
  host: DEFAULT_HOST,
  agentPort: DEFAULT_PORTS.agent,
  ollamaHost: DEFAULT_URLS.model,
  logLevel: 'info',
  a2aValidationMode: 'strict',
  sessionBackend: 'memory',
  sessionTtlSeconds: 3600,
  sessionStartsPerMinute: 600,
  maxBodyBytes: 1024 * 1024,
  llmHistoryMessages: 40,
  kvKeyPrefix: 'fw:',
  a2aTimeoutMs: 2_000,
  version: '0.1.0',
} as const;

/**
 * Validates the variables of `schema` found in `env` then `overrides`
 * (overrides win; an empty variable counts as unset, as shells and compose
 * files produce them). Collects every problem instead of stopping at the first.
 */
export function parseEnvironment<S extends z.ZodObject>(
  schema: S,
  sources: readonly Env[],
): { data: z.output<S> | undefined; issues: ConfigIssue[]; raw: Record<string, string> } {
  const raw: Record<string, string> = {};
  for (const source of sources) {
    for (const key of Object.keys(schema.shape)) {
      const value = source[key];
      if (value !== undefined && value !== '') raw[key] = value;
    }
  }
  const parsed = schema.safeParse(raw);
  if (parsed.success) return { data: parsed.data, issues: [], raw };
  const issues = parsed.error.issues.map((issue): ConfigIssue => {
    const variable = String(issue.path[0] ?? '(environment)');
    const message = raw[variable] === undefined ? 'is required' : `${issue.message} (got ${JSON.stringify(raw[variable])})`;
    return { variable, message };
  });
  return { data: undefined, issues, raw };
}

/**
 * Reads the variables of `schema` from the environment (overrides win),
 * throwing one `ConfigError` (introduced by `context`) that names every bad
 * variable.
 */
export function readEnvironment<S extends z.ZodObject>(schema: S, options: { env?: Env; overrides?: Env; context: string }): z.output<S> {
  const { data, issues } = parseEnvironment(schema, [options.env ?? process.env, options.overrides ?? {}]);
  if (!data || issues.length > 0) throw new ConfigError({ issues, context: options.context });
  return data;
}

/** Session and conversation-memory settings: the part of the configuration stores need. */
export interface SessionConfig {
  sessionBackend: 'memory' | 'kv';
  /** SESSION_KV_URL, falling back to KV_URL. */
  sessionKvUrl: string | undefined;
  sessionTtlSeconds: number;
  /** Sessions one client address may start per minute (SESSION_START_LIMIT, default 600; 0 = no limit). */
  sessionStartsPerMinute: number;
  llmHistoryMessages: number;
  /** Prefix of every Redis key the stores write (KV_PREFIX); default `fw:`. */
  kvKeyPrefix: string;
}

const SessionEnvSchema = EnvSchema.pick({
  SESSION_BACKEND: true,
  SESSION_KV_URL: true,
  KV_URL: true,
  KV_PREFIX: true,
  SESSION_TTL: true,
  SESSION_START_LIMIT: true,
  LLM_HISTORY_MESSAGES: true,
});

/** SESSION_BACKEND=kv needs a store address; checked on the raw values so it is reported with every other problem. */
function kvUrlIssues(raw: Record<string, string>): ConfigIssue[] {
  const wantsKv = raw.SESSION_BACKEND?.trim().toLowerCase() === 'kv';
  return wantsKv && raw.SESSION_KV_URL === undefined && raw.KV_URL === undefined
    ? [{ variable: 'SESSION_KV_URL', message: 'is required when SESSION_BACKEND=kv (or set KV_URL)' }]
    : [];
}

function resolveSessionConfig(e: z.output<typeof SessionEnvSchema>): SessionConfig {
  const sessionBackend = e.SESSION_BACKEND ?? CONFIG_DEFAULTS.sessionBackend;
  const sessionKvUrl = e.SESSION_KV_URL ?? e.KV_URL;
  return {
    sessionBackend,
    sessionKvUrl,
    sessionTtlSeconds: e.SESSION_TTL ?? CONFIG_DEFAULTS.sessionTtlSeconds,
    sessionStartsPerMinute: e.SESSION_START_LIMIT ?? CONFIG_DEFAULTS.sessionStartsPerMinute,
    llmHistoryMessages: e.LLM_HISTORY_MESSAGES ?? CONFIG_DEFAULTS.llmHistoryMessages,
    kvKeyPrefix: e.KV_PREFIX ?? CONFIG_DEFAULTS.kvKeyPrefix,
  };
}

/**
 * Reads only the session settings (SESSION_BACKEND, SESSION_KV_URL / KV_URL,
 * KV_PREFIX, SESSION_TTL, LLM_HISTORY_MESSAGES), for code that needs a store but is not
 * an agent process.
 */
export function loadSessionConfig(options: { env?: Env; overrides?: Env } = {}): SessionConfig {
  const { data, issues, raw } = parseEnvironment(SessionEnvSchema, [options.env ?? process.env, options.overrides ?? {}]);
  issues.push(...kvUrlIssues(raw));
  if (!data || issues.length > 0) throw new ConfigError({ issues, context: 'Invalid session configuration' });
  return resolveSessionConfig(data);
}

/**
 * Reads the agent configuration from the environment (the explicit
 * `overrides` win over `env`). Every missing or malformed variable is reported
 * in one `ConfigError`, so a bad start-up names them all at once.
 *
 * @example
 * const config = loadAgentConfig({ env: process.env, overrides: { AGENT_NAME: 'planner' } });
 */
export function loadAgentConfig(options: { env?: Env; overrides?: Env } = {}): AgentConfig {
  const { data: e, issues, raw } = parseEnvironment(EnvSchema, [options.env ?? process.env, options.overrides ?? {}]);
  issues.push(...kvUrlIssues(raw));
  if (!e || issues.length > 0) throw new ConfigError({ issues });
  const session = resolveSessionConfig(e);

  const ollamaHost = e.OLLAMA_HOST ?? CONFIG_DEFAULTS.ollamaHost;
  const llmConfig: LlmConfig | undefined = e.LLM_CONFIG ?? (e.MODEL_NAME ? { provider: 'ollama', model: e.MODEL_NAME, base_url: ollamaHost } : undefined);

  return {
    ...session,
    agentName: e.AGENT_NAME,
    displayName: e.AGENT_DISPLAY_NAME ?? e.AGENT_NAME,
    description: e.AGENT_DESCRIPTION ?? '',
    version: e.AGENT_VERSION ?? CONFIG_DEFAULTS.version,
    host: e.AGENT_HOST ?? CONFIG_DEFAULTS.host,
    agentPort: e.AGENT_PORT ?? CONFIG_DEFAULTS.agentPort,
    webInterfacePort: e.WEB_INTERFACE_PORT,
    a2aGrpcPort: e.A2A_GRPC_PORT,
    agentCard: e.AGENT_CARD,
    modelName: e.MODEL_NAME ?? llmConfig?.model,
    ollamaHost,
    llmConfig,
    logLevel: e.LOG_LEVEL ?? CONFIG_DEFAULTS.logLevel,
    ...resolveA2AConfig(e),
    agentMemoryUrl: e.AGENT_MEMORY_URL,
    contextId: e.CONTEXT_ID,
    maxBodyBytes: e.MAX_BODY_BYTES ?? CONFIG_DEFAULTS.maxBodyBytes,
    chatApiKeys: e.CHAT_API_KEYS ?? [],
    chatAnonymousContinuation: e.CHAT_ANONYMOUS_CONTINUATION ?? false,
    chatPerUserKeys: e.CHAT_PER_USER_KEYS ?? false,
    a2aPushAllowedHosts: e.A2A_PUSH_ALLOWED_HOSTS ?? [],
    a2aCardDefaultVersion: e.A2A_CARD_DEFAULT_VERSION,
    a2aCardSigningKeyFile: e.A2A_CARD_SIGNING_KEY_FILE,
    a2aCardSigningKeyId: e.A2A_CARD_SIGNING_KEY_ID,
    a2aPushSigningKeyFile: e.A2A_PUSH_SIGNING_KEY_FILE,
    a2aPushSigningKeyId: e.A2A_PUSH_SIGNING_KEY_ID,
    a2aPushSigningPreviousKeysFile: e.A2A_PUSH_SIGNING_PREVIOUS_KEYS_FILE,
  };
}

/** How agent-to-agent calls are validated: the part of the configuration the validator needs. */
export interface A2AConfig {
  guardianUrl: string | undefined;
  opaUrl: string | undefined;
  /** `strict` unless A2A_VALIDATION_MODE says otherwise (also with no configuration at all). */
  a2aValidationMode: A2AValidationMode;
  a2aEnableAuditLog: boolean;
  /** Accept A2A calls without a signature (development only; also implied by `disabled`). */
  a2aAcceptUnsigned: boolean;
  /** Which of this agent's keys signs its calls (A2A_KEY_ID); needed only when it has several. */
  a2aKeyId: string | undefined;
  /** How long to wait for the Guardian or policy engine (A2A_TIMEOUT_MS, default 2000). */
  a2aTimeoutMs: number;
  /**
   * The bindings this agent calls peers over, most preferred first (A2A_PREFERRED_TRANSPORTS, e.g. `GRPC,JSONRPC`);
   * after them, the peer's own order. Empty (default): the peer's order.
   */
  a2aPreferredTransports: ('JSONRPC' | 'HTTP+JSON' | 'GRPC')[];
  /**
   * Where calls are decided (A2A_DECISIONS): `guardian` (default) asks the
   * Guardian per call; `local` evaluates its signed policy bundle in process
   * and ships the decisions to it.
   */
  a2aDecisions: 'guardian' | 'local';
  /** How often a local bundle is re-checked (A2A_BUNDLE_REFRESH_MS, default 2000). */
  a2aBundleRefreshMs: number;
  /** How old a local bundle may get without the Guardian confirming it (A2A_BUNDLE_MAX_AGE_MS, default 60000). */
  a2aBundleMaxAgeMs: number;
}

const A2AEnvSchema = EnvSchema.pick({
  GUARDIAN_URL: true,
  OPA_URL: true,
  A2A_VALIDATION_MODE: true,
  A2A_ENABLE_AUDIT_LOG: true,
  A2A_ACCEPT_UNSIGNED: true,
  A2A_KEY_ID: true,
  A2A_TIMEOUT_MS: true,
  A2A_PREFERRED_TRANSPORTS: true,
  A2A_DECISIONS: true,
  A2A_BUNDLE_REFRESH_MS: true,
  A2A_BUNDLE_MAX_AGE_MS: true,
});

function resolveA2AConfig(e: z.output<typeof A2AEnvSchema>): A2AConfig {
  return {
    guardianUrl: e.GUARDIAN_URL,
    opaUrl: e.OPA_URL,
    a2aValidationMode: e.A2A_VALIDATION_MODE ?? CONFIG_DEFAULTS.a2aValidationMode,
    a2aEnableAuditLog: e.A2A_ENABLE_AUDIT_LOG ?? false,
    a2aAcceptUnsigned: e.A2A_ACCEPT_UNSIGNED ?? false,
    a2aKeyId: e.A2A_KEY_ID,
    a2aTimeoutMs: e.A2A_TIMEOUT_MS ?? CONFIG_DEFAULTS.a2aTimeoutMs,
    a2aPreferredTransports: e.A2A_PREFERRED_TRANSPORTS ?? [],
    a2aDecisions: e.A2A_DECISIONS ?? 'guardian',
    a2aBundleRefreshMs: e.A2A_BUNDLE_REFRESH_MS ?? 2_000,
    a2aBundleMaxAgeMs: e.A2A_BUNDLE_MAX_AGE_MS ?? 60_000,
  };
}

/**
 * Reads only the A2A validation settings (A2A_VALIDATION_MODE, GUARDIAN_URL,
 * OPA_URL, A2A_ENABLE_AUDIT_LOG, A2A_ACCEPT_UNSIGNED, A2A_KEY_ID,
 * A2A_TIMEOUT_MS), for callers that are not agent processes. With nothing
 * set, the mode is `strict`.
 */
export function loadA2AConfig(options: { env?: Env; overrides?: Env } = {}): A2AConfig {
  return resolveA2AConfig(readEnvironment(A2AEnvSchema, { ...options, context: 'Invalid A2A configuration' }));
}
