import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { errorCodeInfo } from '../../runtime/core/error-codes.js';
import { AbortedError } from '../../runtime/core/errors/aborted-error.js';
import { FrameworkError } from '../../runtime/core/framework-error.js';
import type { LlmConfig } from '../../runtime/core/llm-config.js';
import type { AgentTool, ToolCallEvent } from '../../runtime/llm/agent-tool.js';
import { ToolLoopLimitError } from '../../runtime/llm/errors/tool-loop-limit-error.js';
import { InProcessThreadHistory } from '../../runtime/llm/in-process-thread-history.js';
import { invoke, invokeStream } from '../../runtime/llm/invoke.js';
import { KvThreadHistory } from '../../runtime/llm/kv-thread-history.js';
import type { ThreadHistory } from '../../runtime/llm/thread-history.js';
import { redisScope, REDIS_URL } from '../support/redis-scope.js';
import { sinceLastUser, toolCallingReply, type ReplyScript, type ScriptedMessage, type StandInServer } from './support/http-stand-in.js';
import { startOllamaStandIn } from './support/ollama-stand-in.js';
import { startOpenAiStandIn } from './support/openai-stand-in.js';

const WEATHER_SCHEMA = {
  type: 'object',
  properties: { city: { type: 'string' } },
  required: ['city'],
  additionalProperties: false,
} as const;

/** A weather tool whose `run` is a spy answering `{ city, celsius: 21 }`. */
function weatherTool(run: AgentTool['run'] = (args) => ({ city: (args as { city: string }).city, celsius: 21 })) {
  const spy = vi.fn(run);
  const tool: AgentTool = { name: 'get_weather', description: 'Current weather of a city', inputSchema: WEATHER_SCHEMA, run: spy };
  return { tool, run: spy };
}

async function drain(stream: AsyncIterable<string>): Promise<string[]> {
  const chunks: string[] = [];
  for await (const chunk of stream) chunks.push(chunk);
  return chunks;
}

/** The two wire formats, each behind a stand-in on a real port. */
const WIRES = [
  {
    wire: 'ollama',
    start: (reply: ReplyScript) => startOllamaStandIn({ reply }),
    config: (server: StandInServer): LlmConfig => ({ provider: 'ollama', model: 'test-model', base_url: server.url }),
  },
  {
    wire: 'openai',
    start: (reply: ReplyScript) => startOpenAiStandIn({ reply }),
    config: (server: StandInServer): LlmConfig => ({ provider: 'openai', model: 'test-model', base_url: `${server.url}/v1` }),
  },
] as const;

describe.each(WIRES)('invoke with tools over the $wire wire', ({ wire, start, config }) => {
  /** The script of the current test; the stand-in calls it for each request. */
  let script: ReplyScript = toolCallingReply([]);
  let server: StandInServer;
  let llmConfig: LlmConfig;
  beforeAll(async () => {
    server = await start((messages, model) => script(messages, model));
    llmConfig = config(server);
  });
  afterEach(() => {
    server.requests.length = 0;
  });
  afterAll(async () => {
    await server.close();
  });

  const sent = (i: number) => server.requests[i]!.body.messages as ScriptedMessage[];
  const toolMessages = (i: number) => sent(i).filter((m) => m.role === 'tool');
  const toolError = (i: number) => (JSON.parse(toolMessages(i)[0]!.content) as { error: string }).error;

  it('offers the tools, runs the requested call and sends its result back to the model', async () => {
    script = toolCallingReply([{ id: 'call_1', name: 'get_weather', arguments: { city: 'Paris' } }]);
    const { tool, run } = weatherTool();
    const events: ToolCallEvent[] = [];
    const answer = await invoke(llmConfig, 'Weather in Paris?', { tools: [tool], onToolCall: (e) => void events.push(e) });

    expect(answer).toBe('answer: {"city":"Paris","celsius":21}');
    expect(run).toHaveBeenCalledTimes(1);
    expect(run.mock.calls[0]![0]).toEqual({ city: 'Paris' });
    expect(run.mock.calls[0]![1]).toMatchObject({ toolCallId: 'call_1' });
    expect(server.requests).toHaveLength(2);
    for (const request of server.requests) {
      expect(request.body.tools).toEqual([
        { type: 'function', function: { name: 'get_weather', description: 'Current weather of a city', parameters: WEATHER_SCHEMA } },
      ]);
    }
    expect(toolMessages(1)).toHaveLength(1);
    expect(toolMessages(1)[0]!.content).toBe('{"city":"Paris","celsius":21}');
    expect(events).toEqual([{ id: 'call_1', name: 'get_weather', arguments: { city: 'Paris' }, result: { city: 'Paris', celsius: 21 } }]);
  });

  it('sends the assistant tool call and the result in the wire format of the runtime', async () => {
    script = toolCallingReply([{ id: 'call_7', name: 'get_weather', arguments: { city: 'Oslo' } }]);
    await invoke(llmConfig, 'Weather in Oslo?', { tools: [weatherTool().tool] });
    const [userMessage, assistant, result] = sent(1);
    expect(userMessage).toEqual({ role: 'user', content: 'Weather in Oslo?' });
    if (wire === 'openai') {
      expect(assistant).toEqual({
        role: 'assistant',
        content: null,
        tool_calls: [{ id: 'call_7', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Oslo"}' } }],
      });
      expect(result).toEqual({ role: 'tool', tool_call_id: 'call_7', content: '{"city":"Oslo","celsius":21}' });
    } else {
      expect(assistant).toEqual({ role: 'assistant', content: '', tool_calls: [{ function: { name: 'get_weather', arguments: { city: 'Oslo' } } }] });
      expect(result).toEqual({ role: 'tool', content: '{"city":"Oslo","celsius":21}', tool_name: 'get_weather' });
    }
  });

  it('runs several calls of one reply in order, each with its own result', async () => {
    script = toolCallingReply([
      { id: 'a', name: 'get_weather', arguments: { city: 'Paris' } },
      { id: 'b', name: 'get_weather', arguments: { city: 'Rome' } },
    ]);
    const { tool, run } = weatherTool();
    const answer = await invoke(llmConfig, 'Paris and Rome?', { tools: [tool] });
    expect(run.mock.calls.map(([args]) => args)).toEqual([{ city: 'Paris' }, { city: 'Rome' }]);
    expect(answer).toBe('answer: {"city":"Paris","celsius":21} | {"city":"Rome","celsius":21}');
  });

  it('refuses arguments that do not match the schema: the model gets the error and run is not called', async () => {
    script = toolCallingReply([{ id: 'bad', name: 'get_weather', arguments: { city: 42 } }]);
    const { tool, run } = weatherTool();
    const events: ToolCallEvent[] = [];
    const answer = await invoke(llmConfig, 'Weather?', { tools: [tool], onToolCall: (e) => void events.push(e) });
    expect(run).not.toHaveBeenCalled();
    expect(toolError(1)).toMatch(/invalid arguments for 'get_weather'.*city must be string/);
    expect(answer).toContain('invalid arguments');
    expect(events).toEqual([{ id: 'bad', name: 'get_weather', arguments: { city: 42 }, error: expect.stringMatching(/invalid arguments/) }]);
  });

  it('answers a call of an unknown tool with an error naming the tools it has', async () => {
    script = toolCallingReply([{ id: 'x', name: 'launch_rocket', arguments: {} }]);
    const { tool, run } = weatherTool();
    await invoke(llmConfig, 'Launch!', { tools: [tool] });
    expect(run).not.toHaveBeenCalled();
    expect(toolError(1)).toBe("unknown tool 'launch_rocket'; available tools: get_weather");
  });

  it('turns a throwing tool into an error message for the model, not a failed invoke', async () => {
    script = toolCallingReply([{ id: 't', name: 'get_weather', arguments: { city: 'Paris' } }]);
    const { tool, run } = weatherTool(() => {
      throw new Error('weather service down');
    });
    const answer = await invoke(llmConfig, 'Weather?', { tools: [tool] });
    expect(run).toHaveBeenCalledTimes(1);
    expect(toolError(1)).toBe("tool 'get_weather' failed: weather service down");
    expect(answer).toBe(`answer: ${JSON.stringify({ error: "tool 'get_weather' failed: weather service down" })}`);
  });

  it('rejects with tool_loop_limit when the model keeps asking for tools', async () => {
    script = () => ({ toolCalls: [{ id: 'again', name: 'get_weather', arguments: { city: 'Paris' } }] });
    const { tool, run } = weatherTool();
    const error = await invoke(llmConfig, 'Loop', { tools: [tool], maxToolSteps: 2 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ToolLoopLimitError);
    expect(error).toMatchObject({ code: 'tool_loop_limit', maxToolSteps: 2, pendingTools: ['get_weather'] });
    expect(FrameworkError.isInstance(error)).toBe(true);
    expect((error as Error).message).toMatch(/after 2 rounds of tool calls; raise invoke\(\{ maxToolSteps \}\)/);
    expect(errorCodeInfo('tool_loop_limit')).toEqual({ httpStatus: 502, jsonRpcCode: -32015 });
    expect(run).toHaveBeenCalledTimes(2);
    expect(server.requests).toHaveLength(3);
  });

  it('stops at 8 rounds by default', async () => {
    script = () => ({ toolCalls: [{ id: 'again', name: 'get_weather', arguments: { city: 'Paris' } }] });
    const { tool, run } = weatherTool();
    await expect(invoke(llmConfig, 'Loop', { tools: [tool] })).rejects.toMatchObject({ code: 'tool_loop_limit', maxToolSteps: 8 });
    expect(run).toHaveBeenCalledTimes(8);
  });

  it('streams the final answer with invokeStream, the tool round happening before it', async () => {
    script = toolCallingReply([{ id: 's1', name: 'get_weather', arguments: { city: 'Lima' } }]);
    const { tool, run } = weatherTool();
    const events: ToolCallEvent[] = [];
    const chunks = await drain(invokeStream(llmConfig, 'Weather in Lima?', { tools: [tool], onToolCall: (e) => void events.push(e) }));
    expect(chunks.length).toBeGreaterThan(1);
    expect(chunks.join('')).toBe('answer: {"city":"Lima","celsius":21}');
    expect(run).toHaveBeenCalledTimes(1);
    expect(run.mock.calls[0]![0]).toEqual({ city: 'Lima' });
    expect(events).toHaveLength(1);
    expect(server.requests.map((r) => r.body.stream)).toEqual([true, true]);
    expect(toolMessages(1)[0]!.content).toBe('{"city":"Lima","celsius":21}');
  });

  it('rejects a streamed invoke with tool_loop_limit too', async () => {
    script = () => ({ toolCalls: [{ id: 'again', name: 'get_weather', arguments: { city: 'Paris' } }] });
    await expect(drain(invokeStream(llmConfig, 'Loop', { tools: [weatherTool().tool], maxToolSteps: 1 }))).rejects.toBeInstanceOf(ToolLoopLimitError);
    expect(server.requests).toHaveLength(2);
  });

  it('aborting during a tool run rejects with AbortedError, tells the tool, and asks the model nothing more', async () => {
    script = toolCallingReply([{ id: 'slow', name: 'get_weather', arguments: { city: 'Paris' } }]);
    const controller = new AbortController();
    let toolSignal: AbortSignal | undefined;
    const { tool } = weatherTool(
      (_args, context) =>
        new Promise((resolve) => {
          toolSignal = context.signal;
          setTimeout(() => controller.abort(), 20);
          // Resolves long after the abort: invoke must not wait for it.
          setTimeout(() => resolve('late'), 2000).unref();
        }),
    );
    const history = new InProcessThreadHistory({ maxMessages: 20 });
    const started = Date.now();
    const error = await invoke(llmConfig, 'Weather?', { tools: [tool], signal: controller.signal, threadId: 'aborted', history }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AbortedError);
    expect(Date.now() - started).toBeLessThan(1500);
    expect(toolSignal?.aborted).toBe(true);
    expect(server.requests).toHaveLength(1);
    expect(await history.load('aborted')).toEqual([]);
  });

  it('aborting a streamed invoke during a tool run rejects with AbortedError', async () => {
    script = toolCallingReply([{ id: 'slow', name: 'get_weather', arguments: { city: 'Paris' } }]);
    const controller = new AbortController();
    const { tool } = weatherTool(
      (_args, context) =>
        new Promise((_resolve, reject) => {
          context.signal?.addEventListener('abort', () => reject(new Error('stopped')));
          setTimeout(() => controller.abort(), 20);
        }),
    );
    await expect(drain(invokeStream(llmConfig, 'Weather?', { tools: [tool], signal: controller.signal }))).rejects.toBeInstanceOf(AbortedError);
    expect(server.requests).toHaveLength(1);
  });
});

describe.each(WIRES)('thread history keeps tool calls and results over the $wire wire', ({ wire, start, config }) => {
  const redis = redisScope();
  let server: StandInServer;
  let llmConfig: LlmConfig;
  beforeAll(async () => {
    // First prompt of a thread: call the tool; later prompts: answer with what the model saw.
    server = await start((messages) => {
      const round = sinceLastUser(messages);
      const results = round.filter((m) => m.role === 'tool');
      if (messages.filter((m) => m.role === 'user').length === 1 && results.length === 0) {
        return { toolCalls: [{ id: `call_${wire}`, name: 'get_weather', arguments: { city: 'Paris' } }] };
      }
      return `answer after ${messages.length} messages`;
    });
    llmConfig = config(server);
  });
  afterEach(() => {
    server.requests.length = 0;
  });
  afterAll(async () => {
    await server.close();
  });

  const sent = (i: number) => server.requests[i]!.body.messages as ScriptedMessage[];
  const histories: Array<{ backend: string; open: () => ThreadHistory }> = [
    { backend: 'in-process', open: () => new InProcessThreadHistory({ maxMessages: 20 }) },
    { backend: 'kv', open: () => redis.track(new KvThreadHistory({ url: REDIS_URL, maxMessages: 20, keyPrefix: redis.prefix })) },
  ];

  it.each(histories)('$backend: the next call sends the earlier tool call and result', async ({ open }) => {
    const threadId = `thread-${wire}`;
    const history = open();
    const { tool } = weatherTool();
    const first = await invoke(llmConfig, 'Weather in Paris?', { threadId, history, tools: [tool] });
    expect(first).toBe('answer after 3 messages');

    // A second history object on the same store: what was stored, not what is cached, is sent.
    const again = history.backend === 'kv' ? open() : history;
    const second = await drain(invokeStream(llmConfig, 'And tomorrow?', { threadId, history: again, tools: [tool] }));
    expect(second.join('')).toBe('answer after 5 messages');

    const replayed = sent(2);
    expect(replayed.map((m) => m.role)).toEqual(['user', 'assistant', 'tool', 'assistant', 'user']);
    expect(replayed[1]!.tool_calls).toHaveLength(1);
    expect(replayed[2]!.content).toBe('{"city":"Paris","celsius":21}');
    if (wire === 'openai') expect(replayed[2]!.tool_call_id).toBe(replayed[1]!.tool_calls![0].id);
    else expect(replayed[2]!.tool_name).toBe('get_weather');

    expect(await again.load(threadId)).toEqual([
      { role: 'user', content: 'Weather in Paris?' },
      { role: 'assistant', content: '', tool_calls: [{ id: `call_${wire}`, name: 'get_weather', arguments: { city: 'Paris' } }] },
      { role: 'tool', content: '{"city":"Paris","celsius":21}', tool_call_id: `call_${wire}`, name: 'get_weather' },
      { role: 'assistant', content: 'answer after 3 messages' },
      { role: 'user', content: 'And tomorrow?' },
      { role: 'assistant', content: 'answer after 5 messages' },
    ]);
  });
});

describe('tool arguments as JSON text (OpenAI wire)', () => {
  let server: StandInServer;
  beforeAll(async () => {
    server = await startOpenAiStandIn({ reply: toolCallingReply([{ id: 'raw', name: 'get_weather', arguments: '{"city": "Par' }]) });
  });
  afterAll(async () => {
    await server.close();
  });

  it('answers unparsable arguments with a tool error and does not run the tool', async () => {
    const { tool, run } = weatherTool();
    const events: ToolCallEvent[] = [];
    const llmConfig: LlmConfig = { provider: 'openai', model: 'test-model', base_url: `${server.url}/v1` };
    for (const call of [
      () => invoke(llmConfig, 'Weather?', { tools: [tool], onToolCall: (e) => void events.push(e) }),
      async () => (await drain(invokeStream(llmConfig, 'Weather?', { tools: [tool], onToolCall: (e) => void events.push(e) }))).join(''),
    ]) {
      server.requests.length = 0;
      const answer = await call();
      const result = (server.requests[1]!.body.messages as ScriptedMessage[]).find((m) => m.role === 'tool')!;
      expect(JSON.parse(result.content)).toEqual({ error: expect.stringMatching(/^arguments are not valid JSON/) });
      expect(result.tool_call_id).toBe('raw');
      expect(answer).toContain('not valid JSON');
    }
    expect(run).not.toHaveBeenCalled();
    expect(events.map((e) => [e.arguments, e.error !== undefined])).toEqual([
      ['{"city": "Par', true],
      ['{"city": "Par', true],
    ]);
  });
});

describe('tool definitions and options', () => {
  const llmConfig: LlmConfig = { provider: 'ollama', model: 'test-model', base_url: 'http://127.0.0.1:9' };
  const tool = weatherTool().tool;

  it.each([
    ['two tools with one name', { tools: [tool, { ...tool }] }, /two tools are named 'get_weather'/],
    ['a name a model API refuses', { tools: [{ ...tool, name: 'get weather' }] }, /must be 1-64 letters/],
    ['a schema ajv cannot compile', { tools: [{ ...tool, inputSchema: { type: 'no-such-type' } }] }, /invalid inputSchema/],
    ['a tool without run', { tools: [{ ...tool, run: undefined as unknown as AgentTool['run'] }] }, /has no run function/],
  ])('refuses %s before calling the model', async (_what, options, message) => {
    await expect(invoke(llmConfig, 'hi', options)).rejects.toThrow(message);
  });

  it.each([0, -1, 1.5])('refuses maxToolSteps %s', async (maxToolSteps) => {
    await expect(invoke(llmConfig, 'hi', { tools: [tool], maxToolSteps })).rejects.toBeInstanceOf(RangeError);
  });
});

describe('a thread trimmed between a tool call and its result', () => {
  let server: StandInServer;
  beforeAll(async () => {
    server = await startOllamaStandIn();
  });
  afterAll(async () => {
    await server.close();
  });

  it('does not send tool results whose call was trimmed away', async () => {
    const history = new InProcessThreadHistory({ maxMessages: 3 });
    await history.append('t', [
      { role: 'user', content: 'Weather?' },
      { role: 'assistant', content: '', tool_calls: [{ id: 'c1', name: 'get_weather', arguments: { city: 'Paris' } }] },
      { role: 'tool', content: '{"celsius":21}', tool_call_id: 'c1', name: 'get_weather' },
      { role: 'tool', content: '{"celsius":22}', tool_call_id: 'c2', name: 'get_weather' },
      { role: 'assistant', content: 'Warm.' },
    ]);
    const llmConfig: LlmConfig = { provider: 'ollama', model: 'test-model', base_url: server.url };
    await invoke(llmConfig, 'Thanks', { threadId: 't', history });
    expect(server.requests[0]!.body.messages).toEqual([
      { role: 'assistant', content: 'Warm.' },
      { role: 'user', content: 'Thanks' },
    ]);
  });
});
