import { z } from 'zod';
import type { AgentTool } from '../core/agent-tool.js';
import { BadRequestError } from '../core/errors/bad-request-error.js';
import type { AgentMemory } from './agent-memory.js';

/** The names of the memory tools, as a model sees them. */
export const MEMORY_TOOL_NAMES = { remember: 'remember', recall: 'recall', forget: 'forget' } as const;

const RememberArgs = z.strictObject({
  text: z.string().refine((text) => text.trim() !== '', 'must not be empty'),
  topics: z.array(z.string().min(1)).max(10).optional(),
  memory_type: z.enum(['semantic', 'episodic']).optional(),
});
const RecallArgs = z.strictObject({
  query: z.string().refine((text) => text.trim() !== '', 'must not be empty'),
  limit: z.number().int().min(1).max(50).optional(),
  topics: z.array(z.string().min(1)).min(1).optional(),
});
const ForgetArgs = z.strictObject({ ids: z.array(z.string().min(1)).min(1).max(100) });

function parse<S extends z.ZodType>(schema: S, args: unknown, tool: string): z.output<S> {
  const parsed = schema.safeParse(args ?? {});
  if (parsed.success) return parsed.data;
  const issues = parsed.error.issues.map((issue) => `${issue.path.join('.') || 'arguments'}: ${issue.message}`).join('; ');
  throw new BadRequestError({ code: 'invalid_request', message: `Invalid arguments for ${tool}: ${issues}` });
}

/**
 * System memory as tools a model calls during `invoke` (or a
 * `FrameworkAgent` lists): `remember` stores a long-term memory, `recall`
 * finds the memories nearest a query (id, text, topics, distance), `forget`
 * deletes memories by id, all through `agentMemory` (so within its
 * namespace and user; `forget` leaves other scopes' records).
 *
 * @example
 * const memory = new AgentMemory({ url: 'http://127.0.0.1:8000', contextId: 'demo' });
 * await invoke(llmConfig, 'Remember that I like green tea.', { tools: memoryTools(memory) });
 */
export function memoryTools(agentMemory: AgentMemory): AgentTool[] {
  return [
    {
      name: MEMORY_TOOL_NAMES.remember,
      description: 'Stores a fact worth remembering across conversations (a preference, a decision, an event). Answers the id it is kept under.',
      inputSchema: {
        type: 'object',
        properties: {
          text: { type: 'string', description: 'The fact, self-contained (no pronouns needing context)' },
          topics: { type: 'array', items: { type: 'string' }, description: 'A few topic tags' },
          memory_type: { type: 'string', enum: ['semantic', 'episodic'], description: 'semantic: a lasting fact; episodic: an event in time' },
        },
        required: ['text'],
        additionalProperties: false,
      },
      run: async (args) => {
        const { text, topics, memory_type } = parse(RememberArgs, args, 'remember');
        return agentMemory.remember(text, { ...(topics ? { topics } : {}), ...(memory_type ? { memoryType: memory_type } : {}) });
      },
    },
    {
      name: MEMORY_TOOL_NAMES.recall,
      description: 'Finds remembered facts related to a query, nearest in meaning first, with their ids (for forget).',
      inputSchema: {
        type: 'object',
        properties: {
          query: { type: 'string', description: 'What to look for' },
          limit: { type: 'integer', minimum: 1, maximum: 50, description: 'How many at most (default 5)' },
          topics: { type: 'array', items: { type: 'string' }, description: 'Only memories with any of these topics' },
        },
        required: ['query'],
        additionalProperties: false,
      },
      run: async (args) => {
        const { query, limit, topics } = parse(RecallArgs, args, 'recall');
        const found = await agentMemory.recall(query, { limit: limit ?? 5, ...(topics ? { topics } : {}) });
        return { memories: found.map((m) => ({ id: m.id, text: m.text, topics: m.topics ?? [], memory_type: m.memory_type, dist: m.dist })) };
      },
    },
    {
      name: MEMORY_TOOL_NAMES.forget,
      description: 'Deletes remembered facts by id (ids come from recall or remember).',
      inputSchema: {
        type: 'object',
        properties: { ids: { type: 'array', items: { type: 'string' }, minItems: 1, description: 'The ids of the memories to delete' } },
        required: ['ids'],
        additionalProperties: false,
      },
      run: async (args) => {
        const { ids } = parse(ForgetArgs, args, 'forget');
        return { deleted: await agentMemory.forget(ids) };
      },
    },
  ];
}
