/** One agent-to-agent hop for figure scripts: the example executor in a process of its own, and an `agentConnection` call to it. */
import type { AgentCard } from '@a2a-js/sdk';
import { A2AResponse } from '../../runtime/a2a/a2a-response.js';
import type { A2AChunk } from '../../runtime/a2a/a2a-chunk.js';
import { agentConnection } from '../../runtime/a2a/agent-connection.js';
import type { KeyRing } from '../../runtime/a2a/signing/key-ring.js';
import type { A2AValidator } from '../../runtime/a2a/validator.js';
import { freePort, startCli, type ChildService } from './child-services.js';

/** The action every hop asks for, and the executor's outcome for it. */
export const HOP_ACTION = 'Book the room';
export const HOP_OUTCOME = `Done: ${HOP_ACTION}`;

/**
 * The example executor (`serve agent --example executor --a2a-only`) on a free port with `env` (and Node's
 * `execArgv`; `cli`: another build's `cli/bin/run.js`, for a before/after run), and its card as it serves it.
 */
export async function startExecutor(
  env: Record<string, string>,
  options: { execArgv?: string[]; cli?: string } = {},
): Promise<{ card: AgentCard; service: ChildService; close(): Promise<void> }> {
  const port = await freePort();
  const service = await startCli({
    name: 'executor',
    args: ['serve', 'agent', '--example', 'executor', '--a2a-only', '--port', String(port)],
    port,
    env,
    execArgv: options.execArgv,
    ...(options.cli === undefined ? {} : { cli: options.cli }),
  });
  const card = (await (await fetch(`${service.url}/.well-known/agent-card.json`)).json()) as AgentCard;
  return { card, service, close: () => service.stop() };
}

/** One `agentConnection` hop (signed with `planner-1`; `stream: false` for one blocking send); throws unless the outcome is the expected one. */
export async function hop(source: AgentCard, target: AgentCard, options: { validator: A2AValidator; keys: KeyRing; stream?: boolean }): Promise<void> {
  const chunks: A2AChunk[] = [];
  for await (const chunk of agentConnection(source, target, HOP_ACTION, { ...options, keyId: 'planner-1' })) chunks.push(chunk);
  const outcome = A2AResponse.outcome(A2AResponse.fromResults(chunks));
  if (outcome !== HOP_OUTCOME) throw new Error(`unexpected outcome: ${outcome}`);
}
