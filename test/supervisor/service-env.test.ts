import { describe, expect, it } from 'vitest';
import { serviceEnv } from '../../runtime/supervisor/service-env.js';

describe('the environment of a child service', () => {
  it('passes on where the native parts are and which llama.cpp build to use, never the secrets', () => {
    const env = serviceEnv({
      base: { PATH: '/bin', FRAMEWORK_RUNTIMES_DIR: '/opt/rt', FRAMEWORK_LLAMA_GPU: 'vulkan', XDG_CACHE_HOME: '/c', OPENAI_API_KEY: 'sk-secret' },
      env: { AGENT_NAME: 'planner' },
    });
    expect(env).toEqual({ PATH: '/bin', FRAMEWORK_RUNTIMES_DIR: '/opt/rt', FRAMEWORK_LLAMA_GPU: 'vulkan', XDG_CACHE_HOME: '/c', AGENT_NAME: 'planner' });
  });
});
