/**
 * Model runtime benchmark: tokens per second and time to first token of our
 * Ollama-compatible server versus calling node-llama-cpp directly, in the same
 * run, on the same model, prompt, context (2048 tokens per sequence, 2
 * sequences, as the server's default `numParallel`), thread count and
 * sampling (greedy: temperature 0, no repeat penalty; fixed token budget):
 *
 * - node-llama-cpp directly, one client, then two at once on the context's two sequences;
 * - node-llama-cpp directly with Ollama's default repeat penalty (1.1 over the
 *   last 64 tokens), which `/v1` applies since OpenAI's API cannot turn it off:
 *   the baseline `/v1/chat/completions` is compared with (the same tokens);
 * - `/api/chat` through the official `ollama` client, streamed;
 * - `/v1/chat/completions` through the official `openai` client, streamed;
 * - two `ollama` clients streaming `/api/chat` at once: per-client and aggregate tokens/s.
 *
 *   npm run bench:model        (needs `framework-cli model pull smollm2` first; BENCH_ROUNDS=3)
 *
 * The direct runs happen first and are disposed before the server (a child
 * process) starts, so the two never share the cores. Each kind of run checks
 * that it produced the same text as the direct one (greedy decoding), so the
 * rates compare the same work. Prints medians and ratios; asserts nothing.
 */
import { fork } from 'node:child_process';
import { availableParallelism, loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import { getLlama, LlamaChatSession, LlamaLogLevel, resolveChatWrapper, type LlamaContext } from 'node-llama-cpp';
import { Ollama } from 'ollama';
import OpenAI from 'openai';
import { ModelStore, resolveModelsDir } from '../runtime/model/model-store.js';
import { startModelServer } from '../runtime/model/start-model-server.js';

const MODEL = 'smollm2';
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const TOKENS = 64;
const CONTEXT = 2048;
const PARALLEL = 2;
const PROMPTS = ['Write a short paragraph about the history of the city of Lyon.', 'Write a short paragraph about the rivers of France.'];
// Both sides get every core, fixed: the server's default adapts to the load average, which the direct runs raise.
const threads = availableParallelism();
/** What the server is asked for: the direct runs' settings in Ollama's names. */
const SERVER_OPTIONS = { temperature: 0, repeat_penalty: 1, num_predict: TOKENS, num_ctx: CONTEXT };

/** One client's generation: from the request to the first token, then the rate over the tokens after it. */
interface Run {
  started: number;
  first: number;
  ended: number;
  tokens: number;
  text: string;
}

interface Round {
  ttftMs: number;
  tokensPerSecond: number;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? Number.NaN;
const roundOf = (r: Run): Round => ({ ttftMs: r.first - r.started, tokensPerSecond: ((r.tokens - 1) * 1000) / (r.ended - r.first) });
/** Tokens per second of clients running together: all tokens after each first one, over the span from the first first-token to the last end. */
const aggregate = (runs: Run[]) =>
  (runs.reduce((n, r) => n + r.tokens - 1, 0) * 1000) / (Math.max(...runs.map((r) => r.ended)) - Math.min(...runs.map((r) => r.first)));

/** The text each prompt gave in the direct run, to check the other runs did the same work. */
const reference = new Map<string, string>();
const mismatches = new Set<string>();
function checkText(label: string, prompt: string, text: string) {
  const expected = reference.get(prompt);
  if (expected === undefined) reference.set(prompt, text);
  else if (expected !== text) mismatches.add(label);
}
/** The reference key of a prompt generated with Ollama's default repeat penalty (as `/v1` does). */
const penalised = (prompt: string) => `${prompt} (repeat penalty 1.1)`;
/** Ollama's default repeat penalty in node-llama-cpp's terms (what the server passes for `/v1`). */
const OLLAMA_REPEAT_PENALTY = { lastTokens: 64, penalty: 1.1, presencePenalty: 0, frequencyPenalty: 0 };

interface Measured {
  single: Round[];
  /** One client with Ollama's default repeat penalty. */
  penalised: Round[];
  pairs: { perClient: Round[]; aggregate: number }[];
}

async function direct(modelPath: string): Promise<Measured> {
  const llama = await getLlama({ gpu: false, build: 'never', maxThreads: threads, logLevel: LlamaLogLevel.error });
  const model = await llama.loadModel({ modelPath });
  // Resolved once, as the server does: a session made without one resolves it anew (about 300 ms).
  const chatWrapper = resolveChatWrapper(model);
  const generate = async (context: LlamaContext, prompt: string, repeatPenalty: typeof OLLAMA_REPEAT_PENALTY | false = false): Promise<Run> => {
    const sequence = context.getSequence();
    const session = new LlamaChatSession({ contextSequence: sequence, autoDisposeSequence: false, chatWrapper });
    // No system prompt, as the server sends a request without one (LlamaChatSession would add its default one).
    session.setChatHistory([]);
    const run: Run = { started: performance.now(), first: 0, ended: 0, tokens: 0, text: '' };
    run.text = await session.prompt(prompt, {
      maxTokens: TOKENS,
      temperature: 0,
      repeatPenalty,
      onToken: (chunk) => {
        if (run.first === 0) run.first = performance.now();
        run.tokens += chunk.length;
      },
    });
    run.ended = performance.now();
    session.dispose();
    await sequence.dispose();
    return run;
  };
  const measured: Measured = { single: [], penalised: [], pairs: [] };
  try {
    for (let i = 0; i <= ROUNDS; i++) {
      const context = await model.createContext({ contextSize: CONTEXT, sequences: PARALLEL, threads });
      const one = await generate(context, PROMPTS[0]!);
      const two = await Promise.all(PROMPTS.map((p) => generate(context, p)));
      const withPenalty = await generate(context, PROMPTS[0]!, OLLAMA_REPEAT_PENALTY);
      await context.dispose();
      // Round 0 warms up (page cache, first-use allocations) and is not counted.
      if (i === 0) {
        checkText('direct', PROMPTS[0]!, one.text);
        two.forEach((r, k) => checkText('direct, 2 at once', PROMPTS[k]!, r.text));
        checkText('direct, repeat penalty 1.1', penalised(PROMPTS[0]!), withPenalty.text);
        continue;
      }
      measured.single.push(roundOf(one));
      measured.penalised.push(roundOf(withPenalty));
      measured.pairs.push({ perClient: two.map(roundOf), aggregate: aggregate(two) });
    }
  } finally {
    await model.dispose();
    await llama.dispose();
  }
  return measured;
}

async function ollamaChat(client: Ollama, prompt: string, label: string): Promise<Run> {
  const run: Run = { started: performance.now(), first: 0, ended: 0, tokens: 0, text: '' };
  const stream = await client.chat({ model: MODEL, messages: [{ role: 'user', content: prompt }], stream: true, options: SERVER_OPTIONS });
  for await (const part of stream) {
    if (run.first === 0 && part.message.content) run.first = performance.now();
    run.text += part.message.content;
    if (part.done) run.tokens = part.eval_count;
  }
  run.ended = performance.now();
  checkText(label, prompt, run.text);
  return run;
}

async function openAiChat(client: OpenAI, prompt: string): Promise<Run> {
  const run: Run = { started: performance.now(), first: 0, ended: 0, tokens: 0, text: '' };
  const stream = await client.chat.completions.create({
    model: MODEL,
    messages: [{ role: 'user', content: prompt }],
    stream: true,
    stream_options: { include_usage: true },
    max_tokens: TOKENS,
    temperature: 0,
    // OpenAI's API has no repeat_penalty: /v1 applies Ollama's default (1.1), compared with the direct run that does the same.
  });
  for await (const chunk of stream) {
    const text = chunk.choices[0]?.delta.content ?? '';
    if (run.first === 0 && text) run.first = performance.now();
    run.text += text;
    if (chunk.usage) run.tokens = chunk.usage.completion_tokens;
  }
  run.ended = performance.now();
  checkText('/v1/chat/completions', penalised(prompt), run.text);
  return run;
}

const SENTENCES = Array.from({ length: 32 }, (_, i) => `Sentence number ${i} is about agents that plan, call tools and remember what users said.`);

/** Embeddings per second through the server for batches of 1 and 32 (all-minilm, if pulled). */
async function embeddings(client: Ollama): Promise<void> {
  const models = (await client.list()).models.map((m) => m.name);
  if (!models.some((m) => m.startsWith('all-minilm'))) {
    console.log('embeddings: all-minilm is not pulled (`framework-cli model pull all-minilm`); skipped');
    return;
  }
  await client.embed({ model: 'all-minilm', input: 'warm up' });
  for (const batch of [1, 32]) {
    const rounds = batch === 1 ? 32 : 3;
    const started = performance.now();
    for (let i = 0; i < rounds; i++) await client.embed({ model: 'all-minilm', input: SENTENCES.slice(0, batch) });
    const seconds = (performance.now() - started) / 1000;
    console.log(`embeddings, batch of ${String(batch).padStart(2)}                ${((rounds * batch) / seconds).toFixed(1).padStart(7)} embeddings/s`);
  }
}

interface ServerMeasured {
  ollama: Round[];
  openai: Round[];
  pairs: { perClient: Round[]; aggregate: number }[];
}

/** Runs the server in a child process (so the clients do not share its event loop) and measures it; `stop()` ends the child. */
async function viaServer(): Promise<{ measured: ServerMeasured; ollama: Ollama; stop: () => void }> {
  const child = fork(fileURLToPath(import.meta.url), ['serve'], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const stop = () => child.kill('SIGTERM');
  try {
    const url = await new Promise<string>((resolve, reject) => {
      child.once('message', (m) => resolve(String(m)));
      child.once('exit', (code) => reject(new Error(`model server exited with ${String(code)}`)));
    });
    const ollama = new Ollama({ host: url });
    const openai = new OpenAI({ baseURL: `${url}/v1`, apiKey: 'unused' });
    const measured: ServerMeasured = { ollama: [], openai: [], pairs: [] };
    for (let i = 0; i <= ROUNDS; i++) {
      const viaOllama = await ollamaChat(ollama, PROMPTS[0]!, '/api/chat');
      const viaOpenAi = await openAiChat(openai, PROMPTS[0]!);
      const two = await Promise.all(PROMPTS.map((p) => ollamaChat(ollama, p, '/api/chat, 2 at once')));
      if (i === 0) continue;
      measured.ollama.push(roundOf(viaOllama));
      measured.openai.push(roundOf(viaOpenAi));
      measured.pairs.push({ perClient: two.map(roundOf), aggregate: aggregate(two) });
    }
    return { measured, ollama, stop };
  } catch (error) {
    stop();
    throw error;
  }
}

function report(label: string, rounds: Round[]): { tps: number; ttft: number } {
  const tps = median(rounds.map((r) => r.tokensPerSecond));
  const ttft = median(rounds.map((r) => r.ttftMs));
  console.log(`${label.padEnd(44)} ${tps.toFixed(1).padStart(7)} tokens/s   time to first token ${ttft.toFixed(0).padStart(5)} ms`);
  return { tps, ttft };
}

function reportPairs(label: string, pairs: Measured['pairs']): { aggregate: number; perClient: number } {
  const perClient = median(pairs.flatMap((p) => p.perClient.map((r) => r.tokensPerSecond)));
  const ttft = median(pairs.flatMap((p) => p.perClient.map((r) => r.ttftMs)));
  const total = median(pairs.map((p) => p.aggregate));
  console.log(
    `${label.padEnd(44)} ${total.toFixed(1).padStart(7)} tokens/s in all, ${perClient.toFixed(1)} per client   time to first token ${ttft.toFixed(0)} ms`,
  );
  return { aggregate: total, perClient };
}

const ratio = (a: number, b: number) => (a / b).toFixed(2);

if (process.argv[2] === 'serve') {
  const running = await startModelServer({ store: new ModelStore({ dir: resolveModelsDir() }), host: '127.0.0.1', port: 0, numParallel: PARALLEL, threads });
  process.send?.(running.url);
} else {
  const stored = await new ModelStore({ dir: resolveModelsDir() }).get(MODEL);
  if (!stored) throw new Error(`model ${MODEL} is not pulled: run \`framework-cli model pull ${MODEL}\` first`);
  console.log(
    `chat: ${MODEL}, ${TOKENS} tokens greedy, context ${CONTEXT} × ${PARALLEL} sequences, ${threads} threads, median of ${ROUNDS} rounds after a warm-up (node ${process.version}, load average ${loadavg()[0]!.toFixed(1)})`,
  );
  const d = await direct(stored.path);
  const direct1 = report('node-llama-cpp directly', d.single);
  const direct2 = reportPairs('node-llama-cpp directly, 2 at once', d.pairs);
  const directPenalised = report('node-llama-cpp directly, repeat penalty 1.1', d.penalised);
  const { measured: s, ollama, stop } = await viaServer();
  const api = report('/api/chat (ollama client)', s.ollama);
  const v1 = report('/v1/chat/completions (openai client)', s.openai);
  const api2 = reportPairs('/api/chat, 2 clients at once', s.pairs);
  console.log(`ratio /api/chat / direct: tokens/s ${ratio(api.tps, direct1.tps)} (target >= 0.95), time to first token ${ratio(api.ttft, direct1.ttft)}`);
  console.log(
    `ratio /v1/chat/completions / direct with repeat penalty 1.1: tokens/s ${ratio(v1.tps, directPenalised.tps)} (target >= 0.95), time to first token ${ratio(v1.ttft, directPenalised.ttft)}`,
  );
  console.log(
    `ratio 2 clients / direct 2 at once: aggregate ${ratio(api2.aggregate, direct2.aggregate)}, per client ${ratio(api2.perClient, direct2.perClient)}; 2 clients / 1 client on /api/chat: aggregate ${ratio(api2.aggregate, api.tps)}`,
  );
  console.log(
    mismatches.size === 0
      ? 'every run produced the direct run’s text (same work compared)'
      : `text differs from the direct run in: ${[...mismatches].join(', ')} (rates compare different tokens there)`,
  );
  try {
    await embeddings(ollama);
  } finally {
    stop();
  }
  console.log(`load average at the end ${loadavg()[0]!.toFixed(1)}`);
}
