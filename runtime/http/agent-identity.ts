/** Who an agent is, as its front door and `GET /health` tell it. */
export interface AgentIdentity {
  name: string;
  version: string;
  description?: string;
}
