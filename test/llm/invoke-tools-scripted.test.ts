import { describe, expect, it, vi } from 'vitest';
import type { LlmConfig } from '../../runtime/core/llm-config.js';
import type { AgentTool } from '../../runtime/llm/agent-tool.js';
import { invoke, invokeStream } from '../../runtime/llm/invoke.js';
import type { LanguageModel } from '../../runtime/llm/language-model.js';
import { ScriptedLanguageModel } from '../../runtime/testing/scripted-language-model.js';

/** Never reached: every test passes its own `languageModel`. */
const llmConfig: LlmConfig = { provider: 'ollama', model: 'scripted-model', base_url: 'http://127.0.0.1:9' };

const echo: AgentTool = {
  name: 'echo',
  description: 'Returns its input',
  inputSchema: { type: 'object', properties: { value: {} } },
  run: (args) => (args as { value: unknown }).value,
};

async function drain(stream: AsyncIterable<string>): Promise<string[]> {
  const chunks: string[] = [];
  for await (const chunk of stream) chunks.push(chunk);
  return chunks;
}

const callEcho = (value: unknown) => ({ toolCalls: [{ id: 'e1', name: 'echo', arguments: { value } }] });
const lastToolMessage = (model: ScriptedLanguageModel) => model.requests.at(-1)!.messages.at(-1)!;

describe('invoke with tools and a ScriptedLanguageModel (no sockets)', () => {
  it('sends a string result as it is and anything else as JSON', async () => {
    for (const [value, content] of [
      ['plain text', 'plain text'],
      [{ a: [1, 2] }, '{"a":[1,2]}'],
      [undefined, 'null'],
    ] as const) {
      const model = new ScriptedLanguageModel({ replies: [callEcho(value), 'done'] });
      const tool = { ...echo, run: () => value };
      expect(await invoke(llmConfig, 'go', { languageModel: model, tools: [tool] })).toBe('done');
      expect(lastToolMessage(model)).toEqual({ role: 'tool', content, tool_call_id: 'e1', name: 'echo' });
    }
  });

  it('a result that is not JSON becomes a tool error', async () => {
    const model = new ScriptedLanguageModel({ replies: [callEcho(1), 'done'] });
    await invoke(llmConfig, 'go', { languageModel: model, tools: [{ ...echo, run: () => 10n }] });
    expect(JSON.parse(lastToolMessage(model).content)).toEqual({ error: expect.stringMatching(/^tool 'echo' returned a value that is not JSON/) });
  });

  it('passes the tools to the model as name, description and schema on every request', async () => {
    const model = new ScriptedLanguageModel({ replies: [callEcho(1), 'done'] });
    await invoke(llmConfig, 'go', { languageModel: model, tools: [echo] });
    expect(model.requests.map((r) => r.tools)).toEqual([
      [{ name: 'echo', description: 'Returns its input', inputSchema: echo.inputSchema }],
      [{ name: 'echo', description: 'Returns its input', inputSchema: echo.inputSchema }],
    ]);
  });

  it('without tools, tool calls in a reply are ignored and its text returned', async () => {
    const model = new ScriptedLanguageModel({ replies: [{ text: 'just text', toolCalls: [{ id: 'x', name: 'echo', arguments: {} }] }] });
    expect(await invoke(llmConfig, 'go', { languageModel: model })).toBe('just text');
    expect(model.requests).toHaveLength(1);
    expect(model.requests[0]).not.toHaveProperty('tools');
  });

  it('an onToolCall that throws fails the invoke with its error', async () => {
    const model = new ScriptedLanguageModel({ replies: [callEcho(1), 'done'] });
    const failure = new Error('listener broke');
    await expect(
      invoke(llmConfig, 'go', {
        languageModel: model,
        tools: [echo],
        onToolCall: () => {
          throw failure;
        },
      }),
    ).rejects.toBe(failure);
  });

  it('invokeStream yields text written beside tool calls, then the final answer', async () => {
    const model = new ScriptedLanguageModel({
      replies: [{ text: 'Checking. ', toolCalls: [{ id: 'e1', name: 'echo', arguments: { value: 1 } }] }, 'It is 1.'],
    });
    const run = vi.fn(echo.run);
    const chunks = await drain(invokeStream(llmConfig, 'go', { languageModel: model, tools: [{ ...echo, run }] }));
    expect(chunks.join('')).toBe('Checking. It is 1.');
    expect(run).toHaveBeenCalledTimes(1);
  });

  it('invokeStream with tools falls back to chat() for a LanguageModel without chatEvents', async () => {
    const scripted = new ScriptedLanguageModel({ replies: [callEcho('x'), 'final'] });
    const chatStream = vi.fn(scripted.chatStream.bind(scripted));
    const minimal: LanguageModel = { provider: 'minimal', baseUrl: 'minimal:', chat: (r) => scripted.chat(r), chatStream };
    expect((await drain(invokeStream(llmConfig, 'go', { languageModel: minimal, tools: [echo] }))).join('')).toBe('final');
    expect(chatStream).not.toHaveBeenCalled();
    expect(scripted.requests).toHaveLength(2);
  });

  it('the tool gets the caller signal and the call id', async () => {
    const model = new ScriptedLanguageModel({ replies: [callEcho(1), 'done'] });
    const run = vi.fn(echo.run);
    const signal = new AbortController().signal;
    await invoke(llmConfig, 'go', { languageModel: model, tools: [{ ...echo, run }], signal });
    expect(run).toHaveBeenCalledWith({ value: 1 }, { signal, toolCallId: 'e1' });
  });

  it('an already aborted signal rejects before asking the model', async () => {
    const model = new ScriptedLanguageModel({ replies: ['never'] });
    const controller = new AbortController();
    controller.abort();
    await expect(invoke(llmConfig, 'go', { languageModel: model, tools: [echo], signal: controller.signal })).rejects.toMatchObject({ code: 'aborted' });
    expect(model.requests).toHaveLength(0);
  });
});
