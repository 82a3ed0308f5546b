import { randomUUID } from 'node:crypto';
import { BadRequestError } from '../core/errors/bad-request-error.js';
import { isPlainObject } from '../core/json.js';
import { silentLogger, type Logger } from '../core/logger.js';
import type { CardIndex } from './card-index.js';
import type { Embedder } from '../llm/embedder.js';
import { DEFAULT_MAX_RESULTS, MAX_RESULTS_LIMIT, type AgentCardJson, type DocumentHit } from './tool-contract.js';
import type { VectorStore } from './vector-store.js';

export interface SemanticServiceOptions {
  store: VectorStore;
  embedder: Embedder;
  cards: CardIndex;
  logger?: Logger;
  /** Largest document accepted, in UTF-8 bytes. */
  maxContentBytes: number;
  /** Cosine similarity a card must reach for `findAgent`. */
  findThreshold: number;
}

/** The Semantic Layer's behaviour, without transport: documents, discovery, health, start-up. */
export class SemanticService {
  readonly #o: SemanticServiceOptions;
  readonly #logger: Logger;
  #indexed = false;

  constructor(options: SemanticServiceOptions) {
    this.#o = options;
    this.#logger = options.logger ?? silentLogger;
  }

  async storeDocument(content: string, metadata: Readonly<Record<string, string>> = {}): Promise<{ id: string; stored: true }> {
    if (content.trim() === '') throw new BadRequestError({ code: 'invalid_request', message: 'content must not be empty.' });
    const bytes = Buffer.byteLength(content, 'utf8');
    if (bytes > this.#o.maxContentBytes) {
      throw new BadRequestError({
        code: 'payload_too_large',
        message: `content is ${bytes} bytes; the limit is ${this.#o.maxContentBytes} (SEMANTIC_MAX_CONTENT_BYTES). Split the document.`,
      });
    }
    checkMetadata(metadata);
    const [vector] = await this.#o.embedder.embed([content]);
    const id = randomUUID();
    await this.#o.store.upsert('documents', [{ id, vector: vector ?? [], content, metadata, uri: '' }]);
    return { id, stored: true };
  }

  async searchDocuments(query: string, maxResults = DEFAULT_MAX_RESULTS, filter?: Readonly<Record<string, string>>): Promise<DocumentHit[]> {
    const text = checkQuery(query, 'query');
    const limit = checkLimit(maxResults, 'max_results');
    if (filter) checkMetadata(filter);
    const [vector] = await this.#o.embedder.embed([text]);
    const hits = await this.#o.store.search('documents', vector ?? [], { limit, ...(filter ? { filter } : {}) });
    return hits.map((hit) => ({ id: hit.id, content: hit.content, metadata: { ...hit.metadata }, score: hit.score }));
  }

  /** The best card above the threshold, or null. Cards on disk without a vector are re-indexed first (self-repair). */
  async findAgent(query: string): Promise<{ agent: AgentCardJson | null; score?: number }> {
    const text = checkQuery(query, 'query');
    const best = (await this.#searchCards(text, 1))[0];
    return best && best.score >= this.#o.findThreshold ? { agent: best.card, score: best.score } : { agent: null };
  }

  async recommendAgents(task: string, maxAgents = DEFAULT_MAX_RESULTS): Promise<{ card: AgentCardJson; score: number }[]> {
    return this.#searchCards(checkQuery(task, 'task'), checkLimit(maxAgents, 'max_agents'));
  }

  async listAgents(): Promise<AgentCardJson[]> {
    await this.#o.cards.repair();
    const records = await this.#o.store.list('agent_cards');
    return records
      .filter((record) => record.hasVector)
      .map((record) => parseCard(record.content))
      .filter((card): card is AgentCardJson => card !== undefined)
      .sort((a, b) => a.name.localeCompare(b.name));
  }

  async getAgentCard(name: string): Promise<AgentCardJson | null> {
    const wanted = checkQuery(name, 'name');
    return (await this.listAgents()).find((card) => card.name === wanted) ?? null;
  }

  /** `ok` when at least one card has a vector, else `degraded`. */
  async health(): Promise<{ status: 'ok' | 'degraded'; vectorized_cards: number; indexed: boolean; reason?: string }> {
    const count = await this.#o.cards.vectorizedCount();
    if (count > 0) return { status: 'ok', vectorized_cards: count, indexed: this.#indexed };
    return {
      status: 'degraded',
      vectorized_cards: 0,
      indexed: this.#indexed,
      reason: this.#indexed ? `no agent card in ${this.#o.cards.dir} has a vector` : 'waiting for the model runtime to embed the agent cards',
    };
  }

  /**
   * Start-up: waits until the embedder can embed (retrying with back-off and
   * logging `could not be embedded`), then indexes every card on disk.
   */
  async start(options: { signal?: AbortSignal; firstDelayMs?: number; maxDelayMs?: number } = {}): Promise<void> {
    let delay = options.firstDelayMs ?? 500;
    for (;;) {
      options.signal?.throwIfAborted();
      try {
        await this.#o.embedder.embed(['ready?'], options.signal ? { signal: options.signal } : {});
        break;
      } catch (error) {
        if (options.signal?.aborted) throw error;
        this.#logger.warn('agent cards could not be embedded; the model runtime is unavailable, retrying', {
          retryInMs: delay,
          error: (error as Error).message,
        });
        await sleep(delay, options.signal);
        delay = Math.min(delay * 2, options.maxDelayMs ?? 10_000);
      }
    }
    await this.#o.cards.indexAll(options.signal ? { signal: options.signal } : {});
    this.#indexed = true;
  }

  /**
   * Searches the cards. A discovery search must not miss a card that is on
   * disk but has no vector (an older store, a failed write): such cards are
   * re-embedded and re-indexed before the search, valid ones are left alone.
   */
  async #searchCards(text: string, limit: number): Promise<{ card: AgentCardJson; score: number }[]> {
    await this.#o.cards.repair();
    const [vector] = await this.#o.embedder.embed([text]);
    const hits = await this.#o.store.search('agent_cards', vector ?? [], { limit });
    return hits
      .map((hit) => ({ card: parseCard(hit.content), score: hit.score }))
      .filter((hit): hit is { card: AgentCardJson; score: number } => hit.card !== undefined);
  }
}

function parseCard(content: string): AgentCardJson | undefined {
  try {
    const card: unknown = JSON.parse(content);
    return isPlainObject(card) && typeof card.name === 'string' ? (card as AgentCardJson) : undefined;
  } catch {
    return undefined;
  }
}

function checkQuery(value: string, field: string): string {
  const text = value.trim();
  if (text === '') throw new BadRequestError({ code: 'invalid_request', message: `${field} must not be empty.` });
  return text;
}

function checkLimit(value: number, field: string): number {
  if (!Number.isInteger(value) || value < 1 || value > MAX_RESULTS_LIMIT) {
    throw new BadRequestError({ code: 'invalid_request', message: `${field} must be a whole number from 1 to ${MAX_RESULTS_LIMIT}.` });
  }
  return value;
}

function checkMetadata(metadata: unknown): void {
  if (!isPlainObject(metadata)) throw new BadRequestError({ code: 'invalid_request', message: 'metadata must be an object of string keys to string values.' });
  for (const [key, value] of Object.entries(metadata)) {
    if (typeof value !== 'string')
      throw new BadRequestError({
        code: 'invalid_request',
        message: `metadata.${key} must be a string (got ${Array.isArray(value) ? 'array' : typeof value}).`,
      });
    if (key.length === 0 || key.includes('='))
      throw new BadRequestError({ code: 'invalid_request', message: `metadata key ${JSON.stringify(key)} must be non-empty and must not contain "=".` });
  }
}

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(resolve, ms);
    timer.unref();
    signal?.addEventListener(
      'abort',
      () => {
        clearTimeout(timer);
        reject(signal.reason);
      },
      { once: true },
    );
  });
}
