import { afterEach, describe, expect, it } from 'vitest';
import { InvalidModelOutputError } from '../../runtime/core/errors/invalid-model-output-error.js';
import type { LlmConfig } from '../../runtime/core/llm-config.js';
import { generatePlan } from '../../runtime/planning/generate-plan.js';
import { METHODOLOGIES } from '../../runtime/planning/plan-records.js';
import { unusedAddress, type ScriptedMessage, type StandInServer } from '../llm/support/http-stand-in.js';
import { startOllamaStandIn } from '../llm/support/ollama-stand-in.js';
import { startOpenAiStandIn } from '../llm/support/openai-stand-in.js';

const servers: StandInServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

const GTD = { methodology: 'GTD', rationale: 'Many small errands.' } as const;

/** Replies to methodology selection with `selection`, and to plan calls with `plans` in turn (the last one repeats). */
function script(plans: string[], selection = '{"methodology": "WBS", "rationale": "A project with parts."}') {
  let call = 0;
  return (messages: ScriptedMessage[]) => {
    if (messages[0]?.content.includes('planning methodology')) return selection;
    return plans[Math.min(call++, plans.length - 1)]!;
  };
}

async function openai(plans: string[]): Promise<{ server: StandInServer; llmConfig: LlmConfig }> {
  const server = await startOpenAiStandIn({ reply: script(plans) });
  servers.push(server);
  return { server, llmConfig: { provider: 'openai', model: 'test-model', base_url: `${server.url}/v1` } };
}

async function ollama(plans: string[], selection?: string): Promise<{ server: StandInServer; llmConfig: LlmConfig }> {
  const server = await startOllamaStandIn({ reply: script(plans, selection) });
  servers.push(server);
  return { server, llmConfig: { provider: 'ollama', model: 'test-model', base_url: server.url, temperature: 0 } };
}

const lastUser = (body: { messages: ScriptedMessage[] }) => body.messages.at(-1)!.content;

describe('generatePlan with a scripted model', () => {
  it('selects a methodology, then asks for actions with a bounded JSON schema format', async () => {
    const { server, llmConfig } = await ollama(
      ['{"actions": [" Pick a date ", "Book the venue", "Send invitations"]}'],
      '{"methodology": "WBS", "rationale": "An event with several parts."}',
    );
    const plan = await generatePlan({ query: 'Organise a team offsite', llmConfig });
    expect(plan).toEqual({
      actions: ['Pick a date', 'Book the venue', 'Send invitations'],
      methodology: 'WBS',
      methodology_rationale: 'An event with several parts.',
    });
    expect(server.requests).toHaveLength(2);
    const [selection, planCall] = server.requests.map((r) => r.body);
    expect(selection.format.properties.methodology.enum).toEqual([...METHODOLOGIES]);
    expect(planCall.format).toEqual({
      type: 'object',
      properties: { actions: { type: 'array', items: { type: 'string', minLength: 1, maxLength: 100 }, minItems: 1, maxItems: 10 } },
      required: ['actions'],
      additionalProperties: false,
    });
    expect(planCall.options).toEqual({ temperature: 0 });
    const prompt = lastUser(planCall);
    expect(prompt).toContain('Organise a team offsite');
    expect(prompt).toContain('Methodology: WBS (Work Breakdown Structure');
    expect(prompt).toContain('An event with several parts.');
  });

  it('uses a given methodology without asking for one', async () => {
    const { server, llmConfig } = await ollama(['{"actions": ["Write the list", "Do the first errand"]}']);
    const plan = await generatePlan({ query: 'Sort out my errands', llmConfig, methodology: GTD });
    expect(plan).toEqual({ actions: ['Write the list', 'Do the first errand'], methodology: 'GTD', methodology_rationale: GTD.rationale });
    expect(server.requests).toHaveLength(1);
    expect(lastUser(server.requests[0]!.body)).toContain('Methodology: GTD (Getting Things Done');
  });

  it('repairs a prose-wrapped invalid reply once (OpenAI-compatible server ignoring the schema)', async () => {
    const bad = 'Sure! Here is your plan:\n```json\n{"actions": ["Pick a date", "Book the venue"\n```\nLet me know!';
    const { server, llmConfig } = await openai([bad, '{"actions": ["Pick a date", "Book the venue"]}']);
    const warnings: string[] = [];
    const logger = { debug() {}, info() {}, error() {}, warn: (message: string) => warnings.push(message) };
    const plan = await generatePlan({ query: 'Organise a team offsite', llmConfig, logger });
    expect(plan.actions).toEqual(['Pick a date', 'Book the venue']);
    expect(plan.methodology).toBe('WBS');

    const planCalls = server.requests.slice(1).map((r) => r.body);
    expect(planCalls).toHaveLength(2);
    for (const body of planCalls) {
      expect(body.response_format).toMatchObject({
        type: 'json_schema',
        json_schema: { strict: true, schema: { required: ['actions'], additionalProperties: false } },
      });
      expect(JSON.stringify(body.response_format)).not.toMatch(/maxLength|minItems|maxItems/);
    }
    const repair = lastUser(planCalls[1]!);
    expect(repair).toContain('could not be used: The JSON object in the model reply is never closed');
    expect(repair).toContain(bad);
    expect(repair).toContain('Organise a team offsite');
    expect(warnings).toEqual(['plan generation: unusable reply, asking the model to repair it']);
  });

  it('repairs a reply of the wrong shape, sending the validation problem back', async () => {
    const tooMany = JSON.stringify({ actions: Array.from({ length: 12 }, (_, i) => `Step ${i + 1}`) });
    const { server, llmConfig } = await ollama([tooMany, '{"actions": ["Step 1"]}']);
    const plan = await generatePlan({ query: 'Tidy the garage', llmConfig, methodology: GTD });
    expect(plan.actions).toEqual(['Step 1']);
    expect(lastUser(server.requests[1]!.body)).toContain('at most 10 actions');
  });

  it('fails with invalid_model_output when the repaired reply is still unusable', async () => {
    const { server, llmConfig } = await openai(['Here is the plan: first pick a date.', '{"steps": ["Pick a date"]}']);
    const error = await generatePlan({ query: 'Organise a team offsite', llmConfig, methodology: GTD }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InvalidModelOutputError);
    const invalid = error as InvalidModelOutputError;
    expect(invalid.code).toBe('invalid_model_output');
    expect(invalid.message).toMatch(/^The model did not return a valid plan, even after one repair attempt: the JSON does not match/);
    expect(invalid.excerpt).toBe('{"steps": ["Pick a date"]}');
    expect(server.requests).toHaveLength(2);
  });

  it('falls back to WBS when selection fails, and still plans', async () => {
    const { llmConfig } = await ollama(['{"actions": ["Pack boxes"]}'], 'no idea');
    const plan = await generatePlan({ query: 'Plan a move', llmConfig });
    expect(plan.methodology).toBe('WBS');
    expect(plan.methodology_rationale).toMatch(/default methodology.*selection failed/);
    expect(plan.actions).toEqual(['Pack boxes']);
  });

  it('propagates model failures of the plan call', async () => {
    const llmConfig: LlmConfig = { provider: 'ollama', model: 'test-model', base_url: await unusedAddress() };
    await expect(generatePlan({ query: 'Plan a move', llmConfig })).rejects.toMatchObject({ code: 'model_runtime_unavailable' });
    await expect(generatePlan({ query: 'Plan a move', llmConfig, signal: AbortSignal.abort() })).rejects.toMatchObject({ code: 'aborted' });
  });

  it('rejects an empty query and an unknown given methodology', async () => {
    const { llmConfig } = await ollama(['{"actions": ["x"]}']);
    await expect(generatePlan({ query: '  ', llmConfig })).rejects.toThrow(TypeError);
    const methodology = { methodology: 'Kanban', rationale: '' } as unknown as typeof GTD;
    await expect(generatePlan({ query: 'Plan', llmConfig, methodology })).rejects.toThrow(/must name one of WBS, SMART, GTD, Polya/);
  });
});
