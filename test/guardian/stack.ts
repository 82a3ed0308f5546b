import { fileURLToPath } from 'node:url';
import { startPolicyServer, type RunningPolicyServer } from '../../runtime/policy/server/start-policy-server.js';
import { startGuardian, type RunningGuardian, type StartGuardianOptions } from '../../runtime/guardian/start-guardian.js';
import type { A2AValidationInput } from '../../runtime/a2a/validation-input.js';

export const POLICIES_DIR = fileURLToPath(new URL('../../policies', import.meta.url));

/** The shipped policies served by our policy engine, and a Guardian in front of it; both on free ports. */
export async function startStack(
  options: Partial<StartGuardianOptions> = {},
): Promise<{ policy: RunningPolicyServer; guardian: RunningGuardian; close(): Promise<void> }> {
  const policy = await startPolicyServer({ dir: POLICIES_DIR, port: 0, host: '127.0.0.1', watch: false });
  const guardian = await startGuardian({ port: 0, ...options, opaUrl: options.opaUrl ?? policy.url });
  return {
    policy,
    guardian,
    async close() {
      await guardian.close();
      await policy.close();
    },
  };
}

/** A valid A2A validation input from `source` to `target`. */
export function validationInput(source: string, target: string, message = 'hello'): A2AValidationInput {
  return {
    source_agent: { name: source, description: `${source} agent`, url: `http://${source}.local:8002` },
    target_agent: { name: target, description: `${target} agent`, url: `http://${target}.local:8002` },
    communication: { timestamp: '2026-01-01T00:00:00Z', message_preview: message, message_length: message.length },
    validation_mode: 'strict',
  };
}

/** POSTs `body` as JSON (or as the given raw text and content type). */
export function post(url: string, body: unknown, options: { contentType?: string; raw?: string } = {}): Promise<Response> {
  return fetch(url, {
    method: 'POST',
    headers: { 'content-type': options.contentType ?? 'application/json' },
    body: options.raw ?? JSON.stringify(body),
  });
}
