import type { AgentTool } from './agent-tool.js';
import type { LlmConfig } from './llm-config.js';

export type { AgentTool } from './agent-tool.js';

export interface FrameworkAgentOptions {
  agentName: string;
  description: string;
  llmConfig?: LlmConfig;
  tools?: readonly AgentTool[];
  systemPrompt?: string;
  /** Content types the agent accepts and produces, e.g. `['text', 'text/plain']`. */
  contentTypes?: readonly string[];
  /** Semantic version of the agent; shown by GET /health. */
  version?: string;
}

/**
 * The identity of an agent: name, description, model and prompt. Extend it
 * to give an agent its own fields; the work itself lives in the tasks and
 * steps registered on `FrameworkCore`.
 *
 * @example
 * class PlannerAgent extends FrameworkAgent {}
 * const planner = new PlannerAgent({ agentName: 'planner', description: 'Plans work' });
 */
export class FrameworkAgent {
  readonly agentName: string;
  readonly description: string;
  readonly llmConfig: LlmConfig | undefined;
  readonly tools: readonly AgentTool[];
  readonly systemPrompt: string | undefined;
  readonly contentTypes: readonly string[];
  readonly version: string;

  constructor(options: FrameworkAgentOptions) {
    if (typeof options.agentName !== 'string' || options.agentName.length === 0) {
      throw new TypeError('FrameworkAgent needs a non-empty agentName');
    }
    this.agentName = options.agentName;
    this.description = options.description ?? '';
    this.llmConfig = options.llmConfig;
    this.tools = options.tools ?? [];
    this.systemPrompt = options.systemPrompt;
    this.contentTypes = options.contentTypes ?? ['text', 'text/plain'];
    this.version = options.version ?? '0.1.0';
  }
}
