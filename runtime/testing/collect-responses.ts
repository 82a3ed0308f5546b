import type { AgentResponse } from '../core/agent-response.js';
import type { ExecuteTaskOptions, FrameworkCore } from '../core/framework-core.js';

/**
 * Runs a task to its end and returns every response it yielded, in order:
 * the shortest way to test a task without a server.
 *
 * @example
 * const responses = await collectResponses(agent, 'route_to_task', { query: 'hello' });
 * expect(responses.at(-1)?.type).toBe('result');
 */
export async function collectResponses(core: FrameworkCore, task: string, options: ExecuteTaskOptions): Promise<AgentResponse[]> {
  const responses: AgentResponse[] = [];
  for await (const response of core.executeTask(task, options)) responses.push(response);
  return responses;
}
