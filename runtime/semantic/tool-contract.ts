import { z } from 'zod';

/**
 * The Semantic Layer's MCP tools: names, inputs and structured outputs.
 * Shared by the server (`create-semantic-layer.ts`) and the client
 * (`mcp-toolkit.ts`), so both sides agree by construction.
 */
export const TOOL_NAMES = {
  searchDocuments: 'search_documents',
  storeDocument: 'store_document',
  findAgent: 'find_agent',
  listAgents: 'list_agents',
  getAgentCard: 'get_agent_card',
  recommendAgents: 'recommend_agents',
} as const;

export const DEFAULT_MAX_RESULTS = 3;
export const MAX_RESULTS_LIMIT = 50;

/** Document metadata: string keys to string values. */
export const MetadataSchema = z.record(z.string(), z.string({ error: 'metadata values must be strings' }), {
  error: 'metadata must be an object of string keys to string values',
});

export const SearchDocumentsInput = {
  query: z.string({ error: 'query must be a string' }),
  max_results: z.number().int().min(1).max(MAX_RESULTS_LIMIT).optional(),
  filter: MetadataSchema.optional(),
};
export const StoreDocumentInput = {
  content: z.string({ error: 'content must be a string' }),
  metadata: MetadataSchema.optional(),
};
export const FindAgentInput = { query: z.string({ error: 'query must be a string' }) };
export const GetAgentCardInput = { name: z.string({ error: 'name must be a string' }) };
export const RecommendAgentsInput = {
  task: z.string({ error: 'task must be a string' }),
  max_agents: z.number().int().min(1).max(MAX_RESULTS_LIMIT).optional(),
};

export const DocumentHitSchema = z.object({
  id: z.string(),
  content: z.string(),
  metadata: z.record(z.string(), z.string()),
  score: z.number(),
});
export type DocumentHit = z.infer<typeof DocumentHitSchema>;

/** An agent card as the tools return it: the card file's JSON, secrets stripped. */
export const CardSchema = z.looseObject({ name: z.string(), description: z.string().optional(), url: z.string().optional() });
export type AgentCardJson = z.infer<typeof CardSchema>;

/**
 * Every tool's structured output (raw zod shapes, as MCP's `outputSchema`
 * wants): its success fields, or only `error` when it failed. A failure is
 * a result with `error`, never a thrown transport error.
 */
const error = z.string().optional();
export const SearchDocumentsOutput = { hits: z.array(DocumentHitSchema).optional(), error };
export const StoreDocumentOutput = { id: z.string().optional(), stored: z.boolean().optional(), error };
export const FindAgentOutput = { agent: CardSchema.nullable().optional(), score: z.number().optional(), error };
export const ListAgentsOutput = { agents: z.array(CardSchema).optional(), error };
export const GetAgentCardOutput = { agent: CardSchema.nullable().optional(), error };
export const RecommendAgentsOutput = { agents: z.array(z.object({ card: CardSchema, score: z.number() })).optional(), error };
