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
  maxBodyBytes: number;
  logLevel: LogLevel;
}

const MemoryEnvSchema = z.object({
  MEMORY_HOST: z.string().trim().min(1).optional(),
  MEMORY_PORT: ENV_FIELDS.portOrZero.optional(),
  KV_URL: z.url({ protocol: /^rediss?$/, error: 'must be a redis:// or rediss:// URL such as redis://127.0.0.1:6379' }).optional(),
  KV_PREFIX: ENV_FIELDS.kvPrefix.optional(),
  OLLAMA_HOST: ENV_FIELDS.url.optional(),
  EMBEDDING_MODEL: z.string().trim().min(1).optional(),
  MEMORY_MAX_BODY_BYTES: ENV_FIELDS.positiveInt.optional(),
  LOG_LEVEL: ENV_FIELDS.logLevel.optional(),
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
  return {
    host: e.MEMORY_HOST ?? MEMORY_DEFAULTS.host,
    port: e.MEMORY_PORT ?? MEMORY_DEFAULTS.port,
    kvUrl: e.KV_URL ?? MEMORY_DEFAULTS.kvUrl,
    keyPrefix: e.KV_PREFIX ?? MEMORY_DEFAULTS.keyPrefix,
    ollamaHost: e.OLLAMA_HOST ?? MEMORY_DEFAULTS.ollamaHost,
    embeddingModel: e.EMBEDDING_MODEL ?? MEMORY_DEFAULTS.embeddingModel,
    maxBodyBytes: e.MEMORY_MAX_BODY_BYTES ?? MEMORY_DEFAULTS.maxBodyBytes,
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
