import { afterEach, describe, expect, it } from 'vitest';
import type { LlmConfig } from '../../runtime/core/llm-config.js';
import { DEFAULT_METHODOLOGY, listMethodologies, selectMethodology } from '../../runtime/planning/methodologies.js';
import { METHODOLOGIES } from '../../runtime/planning/plan-records.js';
import type { StandInServer } from '../llm/support/http-stand-in.js';
import { unusedAddress } from '../llm/support/http-stand-in.js';
import { startOllamaStandIn } from '../llm/support/ollama-stand-in.js';
import { startOpenAiStandIn } from '../llm/support/openai-stand-in.js';

const servers: StandInServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

async function ollama(reply: string, options: { responseDelayMs?: number } = {}): Promise<{ server: StandInServer; llmConfig: LlmConfig }> {
  const server = await startOllamaStandIn({ reply: () => reply, ...options });
  servers.push(server);
  return { server, llmConfig: { provider: 'ollama', model: 'test-model', base_url: server.url, temperature: 0 } };
}

function expectFallback(result: { methodology: string; rationale: string }): void {
  expect(result.methodology).toBe('WBS');
  expect(result.rationale).toMatch(/default methodology.*selection failed/);
}

describe('listMethodologies', () => {
  it('describes the four methodologies, each in one sentence', () => {
    const list = listMethodologies();
    expect(Object.keys(list)).toEqual([...METHODOLOGIES]);
    expect(list.WBS).toMatch(/^Work Breakdown Structure/);
    expect(list.GTD).toMatch(/^Getting Things Done/);
    expect(list.SMART).toMatch(/Specific, Measurable, Achievable, Relevant, Time-bound/);
    expect(list.Polya).toMatch(/^Pólya's four-step problem solving/);
    for (const description of Object.values(list)) expect(description).toMatch(/fits .+\.$/);
    list.WBS = 'changed';
    expect(listMethodologies().WBS).not.toBe('changed');
  });
});

describe('selectMethodology', () => {
  it('asks with a JSON schema format and returns the validated choice', async () => {
    const { server, llmConfig } = await ollama('{"methodology": "GTD", "rationale": "A pile of errands."}');
    const result = await selectMethodology('Sort out my errands', llmConfig);
    expect(result).toEqual({ methodology: 'GTD', rationale: 'A pile of errands.' });

    const body = server.requests[0]!.body;
    expect(body.format).toMatchObject({
      type: 'object',
      properties: { methodology: { type: 'string', enum: ['WBS', 'SMART', 'GTD', 'Polya'] }, rationale: { type: 'string' } },
      required: ['methodology', 'rationale'],
      additionalProperties: false,
    });
    expect(body.messages[0].role).toBe('system');
    const prompt = body.messages.at(-1).content as string;
    expect(prompt).toContain('Sort out my errands');
    for (const name of METHODOLOGIES) expect(prompt).toContain(`- ${name}: `);
  });

  it('matches names ignoring case and accents, and reads fenced replies', async () => {
    const { llmConfig } = await ollama('```json\n{"methodology": " pólya ", "rationale": "A maths problem."}\n```');
    expect(await selectMethodology('Solve x^2 = 4', llmConfig)).toEqual({ methodology: 'Polya', rationale: 'A maths problem.' });
  });

  it('sends response_format json_schema (strict, no bounds) to an OpenAI-compatible server', async () => {
    const server = await startOpenAiStandIn({ reply: () => '{"methodology": "SMART", "rationale": "A goal."}' });
    servers.push(server);
    const result = await selectMethodology('Run a 10k by June', { provider: 'openai', model: 'test-model', base_url: `${server.url}/v1` });
    expect(result).toEqual({ methodology: 'SMART', rationale: 'A goal.' });
    const format = server.requests[0]!.body.response_format;
    expect(format).toMatchObject({ type: 'json_schema', json_schema: { strict: true, schema: { required: ['methodology', 'rationale'] } } });
    expect(JSON.stringify(format)).not.toMatch(/maxLength|minItems|maxItems/);
  });

  it('falls back to WBS when the runtime is down', async () => {
    const result = await selectMethodology('Plan a move', { provider: 'ollama', model: 'test-model', base_url: await unusedAddress() });
    expectFallback(result);
    expect(result.rationale).toContain('could not be reached');
  });

  it('falls back to WBS when the model is missing', async () => {
    const { server } = await ollama('{}');
    expectFallback(await selectMethodology('Plan a move', { provider: 'ollama', model: 'no-such-model', base_url: server.url }));
  });

  it('falls back to WBS on an unparseable reply', async () => {
    const { llmConfig } = await ollama('I think WBS would be best here!');
    const result = await selectMethodology('Plan a move', llmConfig);
    expectFallback(result);
    expect(result.rationale).toContain('no JSON object');
  });

  it('falls back to WBS on an unknown methodology or a missing field', async () => {
    const logged: unknown[] = [];
    const logger = { debug() {}, info() {}, error() {}, warn: (message: string) => logged.push(message) };
    const { llmConfig } = await ollama('{"methodology": "Kanban", "rationale": "Boards."}');
    const result = await selectMethodology('Plan a move', llmConfig, { logger });
    expectFallback(result);
    expect(result.rationale).toContain('no known methodology');
    expect(logged).toHaveLength(1);

    const other = await ollama('{"rationale": "forgot the name"}');
    expectFallback(await selectMethodology('Plan a move', other.llmConfig));
  });

  it('gives a rationale when the model left it empty', async () => {
    const { llmConfig } = await ollama('{"methodology": "SMART", "rationale": "  "}');
    expect(await selectMethodology('Get fit', llmConfig)).toEqual({
      methodology: 'SMART',
      rationale: 'The model chose SMART without giving a reason.',
    });
  });

  it('rejects with AbortedError when the caller aborts, instead of falling back', async () => {
    const { llmConfig } = await ollama('{"methodology": "GTD", "rationale": "late"}', { responseDelayMs: 2000 });
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 50);
    await expect(selectMethodology('Plan a move', llmConfig, { signal: controller.signal })).rejects.toMatchObject({ code: 'aborted' });
    await expect(selectMethodology('Plan a move', llmConfig, { signal: AbortSignal.abort() })).rejects.toMatchObject({ code: 'aborted' });
  });

  it('falls back to WBS for an invalid llmConfig', async () => {
    expect(DEFAULT_METHODOLOGY).toBe('WBS');
    expectFallback(await selectMethodology('Plan a move', { provider: 'nope', model: '' } as unknown as LlmConfig));
  });
});
