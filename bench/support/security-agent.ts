/**
 * The agent `bench/security` serves with `framework-cli serve agent --module`:
 * every query answers at once with a status and a result, so load figures
 * measure the front door, sessions and SSE, not a model.
 */
import { AgentResponse, FrameworkAgent, FrameworkCore } from '../../runtime/index.js';

export const core = new FrameworkCore();
export const agent = new FrameworkAgent({ agentName: 'executor', description: 'security figures target', version: '1.0.0' });

core.task({ name: 'route_to_task' }, async function* ({ query }) {
  yield AgentResponse.status('Working');
  yield AgentResponse.result({ received: typeof query === 'string' ? query.slice(0, 200) : 'data' });
});
