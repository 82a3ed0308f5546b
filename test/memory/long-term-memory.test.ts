import { describe, expect, it } from 'vitest';
import { MemoryPromptResponseSchema } from '../../runtime/memory/memory-prompt.js';
import { MemoryRecordResultsSchema } from '../../runtime/memory/memory-records.js';
import { redisScope } from '../support/redis-scope.js';
import { call, modelRuntime, openMemory, remember, search } from './support.js';

const scope = redisScope();
const models = modelRuntime();
const open = () => scope.track(openMemory({ keyPrefix: scope.prefix, ollamaHost: models.url() }));

describe('long-term memory', () => {
  it('finds a paraphrase before unrelated text, with AMS result fields', async () => {
    const { app } = open();
    await remember(app, [
      { id: 'tea', text: 'The user drinks green tea every morning', namespace: 'rel', topics: ['food'] },
      { id: 'car', text: 'The quarterly report is due on Friday', namespace: 'rel' },
      { id: 'dog', text: 'The office printer on floor three is broken', namespace: 'rel' },
    ]);
    const found = MemoryRecordResultsSchema.parse(await search(app, { text: 'What beverage does the user have at breakfast?', namespace: { eq: 'rel' } }));
    expect(found.memories[0]!.id).toBe('tea');
    expect(found.total).toBe(3);
    const [first, second] = found.memories;
    expect(first!.dist).toBeLessThan(second!.dist);
    expect(first).toMatchObject({
      text: 'The user drinks green tea every morning',
      namespace: 'rel',
      topics: ['food'],
      memory_type: 'semantic',
      score_type: 'semantic',
      persisted_at: expect.any(String),
    });
    expect(first!.score).toBeCloseTo(1 - first!.dist, 6);

    // A distance threshold keeps only the near one; limit/offset page through the rest.
    const near = await search(app, {
      text: 'What beverage does the user have at breakfast?',
      namespace: { eq: 'rel' },
      distance_threshold: (first!.dist + second!.dist) / 2,
    });
    expect(near.memories.map((m) => m.id)).toEqual(['tea']);
    const page = await search(app, { text: 'What beverage does the user have at breakfast?', namespace: { eq: 'rel' }, limit: 1, offset: 1 });
    expect(page).toMatchObject({ total: 3, next_offset: 2 });
    expect(page.memories.map((m) => m.id)).toEqual([second!.id]);

    // No text: a filtered listing, newest first, distance 0 (as AMS).
    const listed = await search(app, { namespace: { eq: 'rel' }, topics: { any: ['food'] } });
    expect(listed.memories.map((m) => [m.id, m.dist, m.score])).toEqual([['tea', 0, null]]);
  });

  it('keeps one record for identical text in a namespace and user, and honours deduplicate: false', async () => {
    const { app } = open();
    const first = await remember(app, [{ id: 'd1', text: 'The user is allergic to peanuts', namespace: 'dup' }]);
    expect(first).toEqual({ status: 'ok', ids: ['d1'], deduplicated: [false] });
    const again = await remember(app, [
      { id: 'd2', text: '  The user is allergic to peanuts ', namespace: 'dup' },
      { id: 'd3', text: 'The user is allergic to peanuts', namespace: 'other' },
    ]);
    expect(again).toEqual({ status: 'ok', ids: ['d1', 'd3'], deduplicated: [true, false] });
    expect((await search(app, { text: 'peanut allergy', namespace: { eq: 'dup' } })).memories.map((m) => m.id)).toEqual(['d1']);
    const forced = await remember(app, [{ id: 'd4', text: 'The user is allergic to peanuts', namespace: 'dup' }], false);
    expect(forced.deduplicated).toEqual([false]);
    expect((await search(app, { text: 'peanut allergy', namespace: { eq: 'dup' } })).total).toBe(2);
    // The same id replaces the record.
    await remember(app, [{ id: 'd1', text: 'The user is allergic to shellfish', namespace: 'dup' }]);
    const replaced = await search(app, { text: 'shellfish', namespace: { eq: 'dup' }, limit: 1 });
    expect(replaced.memories[0]).toMatchObject({ id: 'd1', text: 'The user is allergic to shellfish' });
    // d1 no longer holds the peanut text, so d4 is its only copy: a new one is a duplicate of d4.
    expect((await remember(app, [{ id: 'd5', text: 'The user is allergic to peanuts', namespace: 'dup' }])).ids).toEqual(['d4']);
  });

  it('still finds the remaining copy of a text after another copy is deleted', async () => {
    const { app } = open();
    await remember(app, [{ id: 'k1', text: 'The user likes tea', namespace: 'copies' }]);
    await remember(app, [{ id: 'k2', text: 'The user likes tea', namespace: 'copies' }], false);
    expect((await call(app, 'DELETE', '/v1/long-term-memory?memory_ids=k2')).status).toBe(200);
    const again = await remember(app, [{ id: 'k3', text: 'The user likes tea', namespace: 'copies' }]);
    expect(again).toEqual({ status: 'ok', ids: ['k1'], deduplicated: [true] });
    expect((await call(app, 'DELETE', '/v1/long-term-memory?memory_ids=k1')).status).toBe(200);
    expect((await remember(app, [{ id: 'k4', text: 'The user likes tea', namespace: 'copies' }])).ids).toEqual(['k4']);
  });

  it("never returns another namespace's or user's memories", async () => {
    const { app } = open();
    await remember(app, [
      { id: 'n-a', text: 'The launch code word is pineapple', namespace: 'team-a', user_id: 'alice' },
      { id: 'n-b', text: 'The launch code word is pineapple express', namespace: 'team-b', user_id: 'alice' },
      { id: 'n-c', text: 'The launch code word is mango', namespace: 'team-a', user_id: 'bob' },
    ]);
    const ids = async (filters: Record<string, unknown>) =>
      (await search(app, { text: 'What is the launch code word?', ...filters })).memories.map((m) => m.id).sort();
    expect(await ids({ namespace: { eq: 'team-a' } })).toEqual(['n-a', 'n-c']);
    expect(await ids({ namespace: { eq: 'team-b' } })).toEqual(['n-b']);
    expect(await ids({ namespace: { eq: 'team-a' }, user_id: { eq: 'alice' } })).toEqual(['n-a']);
    expect(await ids({ user_id: { eq: 'bob' } })).toEqual(['n-c']);
    // The official client's spellings: in_ / not_eq.
    expect(await ids({ namespace: { in_: ['team-b'] } })).toEqual(['n-b']);
    expect(await ids({ namespace: { eq: 'team-a' }, user_id: { not_eq: 'alice' } })).toEqual(['n-c']);
    expect(await ids({ namespace: { eq: 'team-c' } })).toEqual([]);
  });

  it('filters on topics, memory type and dates', async () => {
    const { app } = open();
    await remember(app, [
      { id: 't1', text: 'Invoices are sent on the first of the month', namespace: 'tf', topics: ['billing', 'schedule'], created_at: '2024-01-10T00:00:00Z' },
      { id: 't2', text: 'Refunds take five working days', namespace: 'tf', topics: ['billing'], memory_type: 'episodic', event_date: '2024-06-01T00:00:00Z' },
      { id: 't3', text: 'Standup is at nine every day', namespace: 'tf', topics: ['schedule'] },
    ]);
    const ids = async (filters: Record<string, unknown>) => (await search(app, { namespace: { eq: 'tf' }, ...filters })).memories.map((m) => m.id).sort();
    expect(await ids({ topics: { any: ['billing'] } })).toEqual(['t1', 't2']);
    expect(await ids({ topics: { all: ['billing', 'schedule'] } })).toEqual(['t1']);
    expect(await ids({ topics: { none: ['billing'] } })).toEqual(['t3']);
    expect(await ids({ memory_type: { eq: 'episodic' } })).toEqual(['t2']);
    expect(await ids({ created_at: { lt: '2025-01-01T00:00:00Z' } })).toEqual(['t1']);
    expect(await ids({ event_date: { gte: '2024-05-01T00:00:00Z' } })).toEqual(['t2']);
  });

  it('deletes by id and says how many', async () => {
    const { app } = open();
    await remember(app, [
      { id: 'x1', text: 'Temporary note one', namespace: 'del' },
      { id: 'x2', text: 'Temporary note two', namespace: 'del' },
    ]);
    const res = await call(app, 'DELETE', '/v1/long-term-memory?memory_ids=x1&memory_ids=x2&memory_ids=missing');
    expect(res.body).toEqual({ status: 'ok, deleted 2 memories' });
    expect((await search(app, { text: 'note', namespace: { eq: 'del' } })).total).toBe(0);
  });

  it('builds a memory prompt from working memory and related long-term memories', async () => {
    const { app } = open();
    await remember(app, [
      { id: 'p1', text: 'The user is vegetarian', namespace: 'chef', session_id: 'older' },
      { id: 'p2', text: 'The user is vegetarian and loves mushrooms', namespace: 'elsewhere', session_id: 'older' },
    ]);
    await call(app, 'PUT', '/v1/working-memory/dinner?namespace=chef', {
      context: 'Planning a dinner party.',
      messages: [
        { role: 'user', content: 'Suggest a main course' },
        { role: 'assistant', content: 'How many guests?' },
      ],
    });
    const res = await call(app, 'POST', '/v1/memory/prompt', {
      query: 'What should I cook for the user?',
      session: { session_id: 'dinner', namespace: 'chef' },
      long_term_search: true,
    });
    expect(res.status).toBe(200);
    const prompt = MemoryPromptResponseSchema.parse(res.body);
    expect(prompt.messages.map((m) => m.role)).toEqual(['system', 'user', 'assistant', 'system', 'user']);
    expect(prompt.messages[0]!.content.text).toBe('## A summary of the conversation so far:\nPlanning a dinner party.');
    expect(prompt.messages[3]!.content.text).toBe("## Long term memories related to the user's query\n - The user is vegetarian (ID: p1)");
    expect(prompt.messages[4]!.content).toEqual({ type: 'text', text: 'What should I cook for the user?' });
    expect(prompt.long_term_memories?.map((m) => m.id)).toEqual(['p1']);

    const none = await call(app, 'POST', '/v1/memory/prompt', { query: 'anything', long_term_search: { namespace: { eq: 'empty-ns' } } });
    expect(none.body.messages.map((m: { content: { text: string } }) => m.content.text)).toEqual([
      "## Long term memories related to the user's query\n No relevant long-term memories found.",
      'anything',
    ]);
    expect(none.body.long_term_memories).toBeNull();
  });
});
