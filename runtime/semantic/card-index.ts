import { createHash } from 'node:crypto';
import { readdir, readFile, stat } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { isPlainObject } from '../core/json.js';
import { silentLogger, type Logger } from '../core/logger.js';
import { stripSecrets } from '../core/secret-fields.js';
import type { Embedder } from '../llm/embedder.js';
import type { AgentCardJson } from './tool-contract.js';
import type { VectorRecord, VectorStore } from './vector-store.js';

/** A card file as read from disk, secrets already stripped. */
export interface CardOnDisk {
  id: string;
  name: string;
  card: AgentCardJson;
  /** `file://` URL of the card file. */
  uri: string;
  /** What is embedded for discovery: name, description, skills. */
  text: string;
}

/** The stable id of a card: derived from its name, so a restart or a renamed file never duplicates it. */
export function cardId(name: string): string {
  const hex = createHash('sha256').update(`agent-card:${name}`).digest('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20, 32)}`;
}

/**
 * The text a card is embedded from: its description and its skills'
 * descriptions as plain sentences (names and tag lists dilute a sentence
 * embedding; the name is matched exactly by `get_agent_card`).
 */
export function cardText(card: AgentCardJson): string {
  const skills = (Array.isArray(card.skills) ? card.skills : []).filter(isPlainObject);
  const sentences = [
    card.description ?? '',
    ...skills.map((skill) =>
      typeof skill.description === 'string' && skill.description ? skill.description : typeof skill.name === 'string' ? skill.name : '',
    ),
  ]
    .map((text) => text.trim().replace(/[.]+$/, ''))
    .filter(Boolean);
  return sentences.length > 0 ? `${sentences.join('. ')}.` : card.name;
}

/**
 * Agent cards on disk (the source of truth) and their vectors in the store.
 * Cards are stripped of secrets before anything else sees them, and are never
 * stored without a vector.
 */
export class CardIndex {
  readonly dir: string;
  readonly #store: VectorStore;
  readonly #embedder: Embedder;
  readonly #logger: Logger;
  readonly #parsed = new Map<string, { stamp: string; card: CardOnDisk | undefined }>();

  constructor(options: { dir: string; store: VectorStore; embedder: Embedder; logger?: Logger }) {
    this.dir = resolve(options.dir);
    this.#store = options.store;
    this.#embedder = options.embedder;
    this.#logger = options.logger ?? silentLogger;
  }

  /** Every readable card file of the folder; unreadable ones are logged and skipped. */
  async readCards(): Promise<CardOnDisk[]> {
    let names: string[];
    try {
      names = (await readdir(this.dir)).filter((name) => name.endsWith('.json')).sort();
    } catch (error) {
      this.#logger.warn('the agent cards folder cannot be read', { dir: this.dir, error: (error as Error).message });
      return [];
    }
    const cards = new Map<string, CardOnDisk>();
    for (const name of names) {
      const file = join(this.dir, name);
      const parsed = await this.#parseFile(file);
      if (parsed === undefined) continue;
      if (cards.has(parsed.name)) {
        this.#logger.warn('skipped an agent card file', { file, error: `a second card for "${parsed.name}"` });
        continue;
      }
      cards.set(parsed.name, parsed);
    }
    const present = new Set(names.map((name) => join(this.dir, name)));
    for (const file of this.#parsed.keys()) if (!present.has(file)) this.#parsed.delete(file);
    return [...cards.values()];
  }

  /**
   * One card file, parsed again only when its size or modification time
   * changed: discovery checks the folder before every search, and must not
   * re-read every file (nor log the same broken file) each time.
   */
  async #parseFile(file: string): Promise<CardOnDisk | undefined> {
    let stamp: string;
    try {
      const info = await stat(file);
      stamp = `${info.size}:${info.mtimeMs}`;
    } catch {
      this.#parsed.delete(file);
      return undefined;
    }
    const known = this.#parsed.get(file);
    if (known?.stamp === stamp) return known.card;
    let card: CardOnDisk | undefined;
    try {
      const raw: unknown = JSON.parse(await readFile(file, 'utf8'));
      if (!isPlainObject(raw) || typeof raw.name !== 'string' || raw.name.trim() === '') throw new Error('a card needs a "name" string');
      const stripped = stripSecrets(raw) as AgentCardJson;
      card = { id: cardId(stripped.name), name: stripped.name, card: stripped, uri: pathToFileURL(file).href, text: cardText(stripped) };
    } catch (error) {
      this.#logger.warn('skipped an agent card file', { file, error: (error as Error).message });
    }
    this.#parsed.set(file, { stamp, card });
    return card;
  }

  /** Embeds and stores `cards` (replacing by id); returns how many were stored. */
  async index(cards: readonly CardOnDisk[], options: { signal?: AbortSignal } = {}): Promise<number> {
    if (cards.length === 0) return 0;
    const vectors = await this.#embedder.embed(
      cards.map((card) => card.text),
      options,
    );
    const records: VectorRecord[] = cards.map((card, i) => ({
      id: card.id,
      vector: vectors[i] ?? [],
      content: JSON.stringify(card.card),
      metadata: { name: card.name },
      uri: card.uri,
    }));
    await this.#store.upsert('agent_cards', records);
    return records.length;
  }

  /**
   * Indexes every card on disk (a restart re-indexes without duplicating) and
   * drops stored cards whose file is gone, logging `card is not present on disk`.
   */
  async indexAll(options: { signal?: AbortSignal } = {}): Promise<number> {
    const cards = await this.readCards();
    const indexed = await this.index(cards, options);
    await this.#dropMissing(cards);
    this.#logger.info('indexed agent cards', { count: indexed, dir: this.dir });
    return indexed;
  }

  /**
   * Self-repair: re-embeds cards that are on disk but have no valid vector in
   * the store (valid ones are untouched). Returns how many were re-indexed.
   */
  async repair(options: { signal?: AbortSignal } = {}): Promise<number> {
    const cards = await this.readCards();
    const stored = new Map((await this.#store.list('agent_cards')).map((record) => [record.id, record]));
    const missing = cards.filter((card) => stored.get(card.id)?.hasVector !== true);
    await this.#dropMissing(cards, stored);
    if (missing.length === 0) return 0;
    const count = await this.index(missing, options);
    this.#logger.info(`re-indexed ${count} card(s) from disk`, { cards: missing.map((card) => card.name) });
    return count;
  }

  /** How many stored cards have a valid vector. */
  async vectorizedCount(): Promise<number> {
    return (await this.#store.list('agent_cards')).filter((record) => record.hasVector).length;
  }

  async #dropMissing(onDisk: readonly CardOnDisk[], stored?: Map<string, { id: string; uri: string; hasVector: boolean }>): Promise<void> {
    const present = new Set(onDisk.map((card) => card.id));
    const records = stored ? [...stored.values()] : await this.#store.list('agent_cards');
    const gone = records.filter((record) => !present.has(record.id));
    for (const record of gone) this.#logger.warn('card is not present on disk', { uri: record.uri, fix: `add its JSON to ${this.dir}` });
    if (gone.length > 0)
      await this.#store.delete(
        'agent_cards',
        gone.map((record) => record.id),
      );
  }
}
