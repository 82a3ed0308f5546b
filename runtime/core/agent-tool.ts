/** What a tool's `run` gets besides its arguments. */
export interface AgentToolContext {
  /** The caller's signal: fires when the `invoke` is aborted. Long tools should stop on it. */
  signal?: AbortSignal;
  /** The model's id for this call (generated when the runtime sends none). */
  toolCallId: string;
}

/**
 * A function a model may call during `invoke` (MCP / function-calling
 * shape); also what `FrameworkAgent` lists as its `tools`. Its arguments are checked
 * against `inputSchema` (JSON schema) before `run`; its result is sent back
 * to the model as JSON (a string as it is).
 *
 * @example
 * const weather: AgentTool = {
 *   name: 'get_weather',
 *   description: 'Current weather of a city',
 *   inputSchema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
 *   run: async (args) => ({ city: (args as { city: string }).city, celsius: 21 }),
 * };
 * await invoke(llmConfig, 'Weather in Paris?', { tools: [weather] });
 * new FrameworkAgent({ agentName: 'forecaster', description: 'Weather', tools: [weather] });
 */
export interface AgentTool {
  /** Unique among the tools of one call; letters, digits, `_` and `-` (what model APIs accept). */
  name: string;
  /** What the tool does, for the model to decide when to call it. */
  description: string;
  /** JSON schema of the arguments object. */
  inputSchema: Readonly<Record<string, unknown>>;
  run(args: unknown, context: AgentToolContext): Promise<unknown> | unknown;
}
