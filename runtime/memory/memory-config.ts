import { readFileSync } from 'node:fs';
import { isLoopback } from '../core/server/loopback.js';
import { z } from 'zod';
import { ConfigError } from '../core/errors/config-error.js';
import { FrameworkError } from '../core/framework-error.js';
import { CONFIG_DEFAULTS, ENV_FIELDS, readEnvironment, type Env, type LogLevel } from '../core/config.js';
import { DEFAULT_EMBEDDING_MODEL, DEFAULT_HOST, DEFAULT_PORTS, DEFAULT_URLS } from '../core/defaults.js';

export const MEMORY_DEFAULTS = {
  host: DEFAULT_HOST,
  /** As Agent Memory Server's. */
  port: DEFAULT_PORTS.memory,
  kvUrl: DEFAULT_URLS.kv,
  keyPrefix: CONFIG_DEFAULTS.kvKeyPrefix,
  ollamaHost: CONFIG_DEFAULTS.ollamaHost,
  embeddingModel: DEFAULT_EMBEDDING_MODEL,
  maxBodyBytes: 1024 * 1024,
} as const;

/** Settings of the memory service. */
export interface MemoryConfig {
  host: string;
  /** 0 picks a free port. */
  port: number;
  kvUrl: string;
  /** Keys go under `<keyPrefix>mem:`. */
  keyPrefix: string;
  ollamaHost: string;
  embeddingModel: string;
  /** MEMORY_GENERATION_MODEL: the model (at OLLAMA_HOST) that summarises, extracts and optimises queries; unset: none (those are not done). */
  generationModel: string | undefined;
  /** MEMORY_GENERATION_CONTEXT_TOKENS: its context window (default 8192). */
  generationContextTokens: number;
  maxBodyBytes: number;
  /** MEMORY_INDEX_DIR: where the process saves its copy of the long-term memories for a fast restart; unset: not saved (`serve memory` defaults to `.framework/memory`). */
  indexDir: string | undefined;
  logLevel: LogLevel;
  /** Bearer tokens accepted (MEMORY_AUTH_TOKENS, or one per line in MEMORY_AUTH_TOKENS_FILE); empty: no authentication. */
  authTokens: string[];
  /** MEMORY_AUTH: `token` requires tokens, `disabled` serves anyone; unset: tokens required beyond loopback (see `checkMemoryAuth`). */
  authMode: 'token' | 'disabled' | undefined;
}

/**
 * Refuses to serve without authentication where others can reach the service:
 * on a host beyond loopback (or with MEMORY_AUTH=token) tokens are required,
 * unless MEMORY_AUTH=disabled says otherwise. Throws `ConfigError`.
 */
export function checkMemoryAuth(config: Pick<MemoryConfig, 'authTokens' | 'authMode'>, host: string): void {
  if (config.authTokens.length > 0 || config.authMode === 'disabled') return;
  if (config.authMode !== 'token' && isLoopback(host)) return;
  throw new ConfigError({
    context: 'The memory service needs authentication',
    issues: [
      {
        variable: 'MEMORY_AUTH_TOKENS',
        message: `no token is set while ${config.authMode === 'token' ? 'MEMORY_AUTH=token' : `it listens on ${host}, beyond this machine`}; set MEMORY_AUTH_TOKENS or MEMORY_AUTH_TOKENS_FILE (or MEMORY_AUTH=disabled to serve anyone, not recommended)`,
      },
    ],
  });
}

const TokenList = z
  .string()
  .transform((raw) =>
    raw
      .split(/[,\n]/)
      .map((token) => token.trim())
      .filter((token) => token !== ''),
  )
  .pipe(z.array(z.string().min(16, 'each token must be at least 16 characters')));

const MemoryEnvSchema = z.object({
  MEMORY_HOST: z.string().trim().min(1).optional(),
  MEMORY_PORT: ENV_FIELDS.portOrZero.optional(),
  KV_URL: z.url({ protocol: /^rediss?$/, error: 'must be a redis:// or rediss:// URL such as redis://127.0.0.1:6379' }).optional(),
  KV_PREFIX: ENV_FIELDS.kvPrefix.optional(),
  OLLAMA_HOST: ENV_FIELDS.url.optional(),
  EMBEDDING_MODEL: z.string().trim().min(1).optional(),
  MEMORY_GENERATION_MODEL: z.string().trim().min(1).optional(),
  MEMORY_GENERATION_CONTEXT_TOKENS: ENV_FIELDS.positiveInt.optional(),
  MEMORY_MAX_BODY_BYTES: ENV_FIELDS.positiveInt.optional(),
  MEMORY_INDEX_DIR: z.string().trim().min(1).optional(),
  LOG_LEVEL: ENV_FIELDS.logLevel.optional(),
  MEMORY_AUTH: z.enum(['token', 'disabled'], { error: 'must be token or disabled' }).optional(),
  MEMORY_AUTH_TOKENS: TokenList.optional(),
  MEMORY_AUTH_TOKENS_FILE: z.string().min(1).optional(),
});

/**
 * The memory service's configuration: MEMORY_HOST / MEMORY_PORT
 * (127.0.0.1:8000), KV_URL (redis://127.0.0.1:6379), KV_PREFIX (`fw:`),
 * OLLAMA_HOST (http://127.0.0.1:11434), EMBEDDING_MODEL (all-minilm),
 * MEMORY_MAX_BODY_BYTES (1 MiB), LOG_LEVEL. `overrides` (explicit options,
 * in the same variable names) win over `env`; an empty variable counts as
 * unset; one `ConfigError` names every bad variable.
 *
 * @example
 * const config = loadMemoryConfig({ env: process.env, overrides: { KV_URL: 'redis://127.0.0.1:6380' } });
 */
export function loadMemoryConfig(options: { env?: Env; overrides?: Env } = {}): MemoryConfig {
  const e = readEnvironment(MemoryEnvSchema, { ...options, context: 'Invalid memory service configuration' });
  const host = e.MEMORY_HOST ?? MEMORY_DEFAULTS.host;
  const fromFile = e.MEMORY_AUTH_TOKENS_FILE === undefined ? [] : readTokenFile(e.MEMORY_AUTH_TOKENS_FILE, 'MEMORY_AUTH_TOKENS_FILE');
  const authTokens = e.MEMORY_AUTH === 'disabled' ? [] : [...(e.MEMORY_AUTH_TOKENS ?? []), ...fromFile];
  return {
    authTokens,
    authMode: e.MEMORY_AUTH,
    host,
    port: e.MEMORY_PORT ?? MEMORY_DEFAULTS.port,
    kvUrl: e.KV_URL ?? MEMORY_DEFAULTS.kvUrl,
    keyPrefix: e.KV_PREFIX ?? MEMORY_DEFAULTS.keyPrefix,
    ollamaHost: e.OLLAMA_HOST ?? MEMORY_DEFAULTS.ollamaHost,
    embeddingModel: e.EMBEDDING_MODEL ?? MEMORY_DEFAULTS.embeddingModel,
    generationModel: e.MEMORY_GENERATION_MODEL,
    generationContextTokens: e.MEMORY_GENERATION_CONTEXT_TOKENS ?? 8192,
    maxBodyBytes: e.MEMORY_MAX_BODY_BYTES ?? MEMORY_DEFAULTS.maxBodyBytes,
    indexDir: e.MEMORY_INDEX_DIR,
    logLevel: e.LOG_LEVEL ?? 'info',
  };
}

/** Where an agent finds system memory. */
export interface AgentMemoryConfig {
  url: string;
  contextId: string;
}

const AgentMemoryEnvSchema = z.object({
  AGENT_MEMORY_URL: ENV_FIELDS.url,
  CONTEXT_ID: z.string().min(1),
});

/**
 * The memory service's address and the session an agent remembers in:
 * `options.url` / `options.contextId` win over AGENT_MEMORY_URL / CONTEXT_ID
 * (set for agents of a swarm). A missing one is a `ConfigError` naming both
 * the option and the variable.
 *
 * @example
 * const { url, contextId } = agentMemoryConfig({ url: 'http://127.0.0.1:8000', env: { CONTEXT_ID: 'demo' } });
 */
export function agentMemoryConfig(options: { url?: string | undefined; contextId?: string | undefined; env?: Env }): AgentMemoryConfig {
  const overrides: Record<string, string> = {};
  if (options.url !== undefined) overrides.AGENT_MEMORY_URL = options.url;
  if (options.contextId !== undefined) overrides.CONTEXT_ID = options.contextId;
  try {
    const e = readEnvironment(AgentMemoryEnvSchema, { env: options.env ?? process.env, overrides, context: 'System memory is not configured' });
    return { url: e.AGENT_MEMORY_URL.replace(/\/+$/, ''), contextId: e.CONTEXT_ID };
  } catch (error) {
    if (!FrameworkError.isInstance(error) || !('issues' in error)) throw error;
    const named = { AGENT_MEMORY_URL: 'options.url or AGENT_MEMORY_URL', CONTEXT_ID: 'options.contextId or CONTEXT_ID' } as Record<string, string>;
    throw new ConfigError({
      context: 'System memory is not configured (framework-cli create swarm sets both for its agents)',
      issues: (error as ConfigError).issues.map((issue) => ({ variable: named[issue.variable] ?? issue.variable, message: issue.message })),
    });
  }
}

/** Tokens from a file, one per line (or comma-separated); a missing or empty file is a `ConfigError` naming the variable. */
export function readTokenFile(path: string, variable: string): string[] {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new ConfigError({ issues: [{ variable, message: `cannot read ${path}: ${(error as Error).message}` }] });
  }
  const parsed = TokenList.safeParse(text);
  if (!parsed.success || parsed.data.length === 0) {
    throw new ConfigError({ issues: [{ variable, message: `${path} must hold tokens of at least 16 characters, one per line` }] });
  }
  return parsed.data;
}
