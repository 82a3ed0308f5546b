import { describe, expect, it } from 'vitest';
import { ConfigError, loadAgentConfig, loadSessionConfig } from '../../runtime/index.js';

describe('loadAgentConfig', () => {
  it('applies the spec defaults', () => {
    const config = loadAgentConfig({ env: { AGENT_NAME: 'planner' } });
    expect(config).toMatchObject({
      agentName: 'planner',
      displayName: 'planner',
      agentPort: 8002,
      sessionBackend: 'memory',
      sessionTtlSeconds: 3600,
      a2aValidationMode: 'strict',
      a2aEnableAuditLog: false,
      logLevel: 'info',
      maxBodyBytes: 1048576,
      llmConfig: undefined,
    });
  });

  it('reads every variable of the table', () => {
    const config = loadAgentConfig({
      env: {
        AGENT_NAME: 'executor',
        AGENT_DISPLAY_NAME: 'Executor',
        AGENT_DESCRIPTION: 'Runs actions',
        AGENT_PORT: '8101',
        WEB_INTERFACE_PORT: '8103',
        AGENT_CARD: 'agent_cards/executor.json',
        MODEL_NAME: 'qwen2.5:3b',
        OLLAMA_HOST: 'http://10.0.0.5:11434',
        LOG_LEVEL: 'DEBUG',
        GUARDIAN_URL: 'http://127.0.0.1:11438',
        OPA_URL: 'http://127.0.0.1:8181',
        A2A_VALIDATION_MODE: 'disabled',
        A2A_ENABLE_AUDIT_LOG: 'True',
        AGENT_MEMORY_URL: 'http://127.0.0.1:9000',
        CONTEXT_ID: 'swarm-1',
        SESSION_BACKEND: 'kv',
        KV_URL: 'redis://127.0.0.1:6379',
        SESSION_TTL: '60',
      },
    });
    expect(config).toMatchObject({
      displayName: 'Executor',
      agentPort: 8101,
      webInterfacePort: 8103,
      logLevel: 'debug',
      a2aValidationMode: 'disabled',
      a2aEnableAuditLog: true,
      sessionBackend: 'kv',
      sessionKvUrl: 'redis://127.0.0.1:6379',
      sessionTtlSeconds: 60,
      modelName: 'qwen2.5:3b',
      llmConfig: { provider: 'ollama', model: 'qwen2.5:3b', base_url: 'http://10.0.0.5:11434' },
    });
  });

  it('prefers SESSION_KV_URL over KV_URL, and LLM_CONFIG over MODEL_NAME', () => {
    const config = loadAgentConfig({
      env: {
        AGENT_NAME: 'a',
        SESSION_KV_URL: 'redis://primary:6379',
        KV_URL: 'redis://fallback:6379',
        MODEL_NAME: 'x',
        LLM_CONFIG: '{"provider":"openai","model":"gpt-x","temperature":0.2,"base_url":"http://127.0.0.1:9/v1"}',
      },
    });
    expect(config.sessionKvUrl).toBe('redis://primary:6379');
    expect(config.llmConfig).toEqual({ provider: 'openai', model: 'gpt-x', temperature: 0.2, base_url: 'http://127.0.0.1:9/v1' });
  });

  it('explicit overrides win over the environment', () => {
    const config = loadAgentConfig({ env: { AGENT_NAME: 'a', AGENT_PORT: '1' }, overrides: { AGENT_PORT: '9000' } });
    expect(config.agentPort).toBe(9000);
  });

  it('names every bad variable in one error', () => {
    let error: unknown;
    try {
      loadAgentConfig({
        env: {
          AGENT_PORT: 'eighty',
          SESSION_TTL: '-5',
          SESSION_BACKEND: 'postgres',
          OPA_URL: 'not a url',
          A2A_VALIDATION_MODE: 'lenient',
          LLM_CONFIG: '{"provider":"x"}',
        },
      });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ConfigError);
    const variables = (error as ConfigError).issues.map((i) => i.variable).sort();
    expect(variables).toEqual(
      ['A2A_VALIDATION_MODE', 'AGENT_NAME', 'AGENT_PORT', 'LLM_CONFIG', 'LLM_CONFIG', 'OPA_URL', 'SESSION_BACKEND', 'SESSION_TTL'].sort(),
    );
    expect((error as Error).message).toContain('AGENT_NAME: is required');
    expect((error as Error).message).toContain('"eighty"');
  });

  it('requires a store URL for the kv backend', () => {
    expect(() => loadAgentConfig({ env: { AGENT_NAME: 'a', SESSION_BACKEND: 'kv' } })).toThrow(/SESSION_KV_URL: is required/);
  });

  it('treats empty variables as unset and rejects upper-case agent names', () => {
    expect(loadAgentConfig({ env: { AGENT_NAME: 'a', AGENT_PORT: '' } }).agentPort).toBe(8002);
    expect(() => loadAgentConfig({ env: { AGENT_NAME: 'Planner' } })).toThrow(/lower-case/);
  });
});

describe('loadSessionConfig', () => {
  it('needs no agent name', () => {
    expect(loadSessionConfig({ env: { SESSION_BACKEND: 'kv', KV_URL: 'redis://h:1' } })).toEqual({
      sessionBackend: 'kv',
      sessionKvUrl: 'redis://h:1',
      sessionTtlSeconds: 3600,
      sessionStartsPerMinute: 600,
      llmHistoryMessages: 40,
      kvKeyPrefix: 'fw:',
    });
    expect(loadSessionConfig({ env: { SESSION_START_LIMIT: '0' } }).sessionStartsPerMinute).toBe(0);
    expect(() => loadSessionConfig({ env: { SESSION_TTL: 'soon' } })).toThrow(ConfigError);
    expect(() => loadSessionConfig({ env: { SESSION_START_LIMIT: '-1' } })).toThrow(ConfigError);
  });
});
