import type { FrameworkCore } from '../core/framework-core.js';
import type { LlmConfig } from '../core/llm-config.js';
import { invoke } from '../llm/invoke.js';
import type { DocumentHit } from './tool-contract.js';

/** What the answer says when no document gave any context (the model is not called). */
export const NO_INFORMATION_ANSWER = 'I have no information about that in the stored documents.';

/** Hits per question in the retrieval pattern. */
export const RAG_MAX_RESULTS = 3;

/** A source of an answer: the hit's id, metadata and score. */
export interface RagSource {
  id: string;
  metadata: Readonly<Record<string, string>>;
  score: number;
}

/** Something that searches documents: `MCPToolkit`, or anything with its `searchDocuments`. */
export interface DocumentSearch {
  searchDocuments(query: string, maxResults?: number): Promise<DocumentHit[] | { error: string }>;
}

/**
 * The context of a question from a search result: a result with `error` (or
 * no hits) gives an empty context and no sources; otherwise each hit's
 * `content`, joined with newlines.
 */
export function contextFrom(result: DocumentHit[] | { error: string }): { context: string; sources: RagSource[] } {
  if (!Array.isArray(result) || result.length === 0) return { context: '', sources: [] };
  return {
    context: result.map((hit) => hit.content).join('\n'),
    sources: result.map((hit) => ({ id: hit.id, metadata: hit.metadata, score: hit.score })),
  };
}

/** The prompt: answer only from the context, and say so when it lacks the information. */
export function ragPrompt(question: string, context: string): string {
  return [
    'Answer the question using only the context below.',
    'If the context does not contain the information, say that you do not have that information. Do not use any other knowledge.',
    '',
    'Context:',
    context,
    '',
    `Question: ${question}`,
    'Answer:',
  ].join('\n');
}

/**
 * The retrieval-augmented answer: searches (3 hits), builds the context,
 * asks the model to answer only from it, and returns `{answer, sources}`.
 * With an empty context it answers that there is no information, without
 * calling the model.
 *
 * @example
 * const { answer, sources } = await answerFromDocuments({ search: new MCPToolkit(), llmConfig, question: 'What is the capital of France?' });
 */
export async function answerFromDocuments(options: {
  search: DocumentSearch;
  llmConfig: LlmConfig;
  question: string;
  maxResults?: number;
  threadId?: string;
  signal?: AbortSignal;
}): Promise<{ answer: string; sources: RagSource[] }> {
  const { context, sources } = contextFrom(await options.search.searchDocuments(options.question, options.maxResults ?? RAG_MAX_RESULTS));
  if (context.trim() === '') return { answer: NO_INFORMATION_ANSWER, sources: [] };
  const answer = await invoke(options.llmConfig, ragPrompt(options.question, context), {
    ...(options.threadId ? { threadId: options.threadId } : {}),
    ...(options.signal ? { signal: options.signal } : {}),
  });
  return { answer: answer.trim(), sources };
}

/**
 * Registers the retrieval pattern as a step (default name
 * `answer_from_documents`) taking `{question}` and returning `{answer, sources}`;
 * a task yields it with `AgentResponse.result(await agent.executeStep(...))`.
 */
export function registerRagStep(core: FrameworkCore, options: { search: DocumentSearch; llmConfig: LlmConfig; name?: string; maxResults?: number }): void {
  core.step({ name: options.name ?? 'answer_from_documents' }, async ({ question }, { signal }) => {
    const result = await answerFromDocuments({ ...options, question: String(question ?? ''), ...(signal ? { signal } : {}) });
    return { answer: result.answer, sources: result.sources };
  });
}
