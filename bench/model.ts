/**
 * Model runtime benchmark: tokens per second and time to first token of our
 * Ollama-compatible server (official `ollama` client, streaming) versus
 * calling node-llama-cpp directly, in the same run, on the same model, prompt,
 * context size, thread count and sampling (temperature 0, fixed token budget).
 *
 *   npm run bench:model        (needs `framework-cli model pull smollm2` first; BENCH_ROUNDS=3)
 *
 * The direct run happens first and is disposed before the server starts, so
 * the two never share the two cores. Prints medians and the ratio; asserts nothing.
 */
import { fork } from 'node:child_process';
import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import { getLlama, LlamaChatSession, LlamaLogLevel } from 'node-llama-cpp';
import { Ollama } from 'ollama';
import { ModelStore, resolveModelsDir } from '../runtime/model/model-store.js';
import { startModelServer } from '../runtime/model/start-model-server.js';

const MODEL = 'smollm2';
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const TOKENS = 64;
const CONTEXT = 2048;
const PROMPT = 'Write a short paragraph about the history of the city of Lyon.';
const threads = availableParallelism();

interface Round {
  ttftMs: number;
  tokensPerSecond: number;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? Number.NaN;

async function direct(modelPath: string): Promise<Round[]> {
  const llama = await getLlama({ gpu: false, build: 'never', maxThreads: threads, logLevel: LlamaLogLevel.error });
  const model = await llama.loadModel({ modelPath });
  const rounds: Round[] = [];
  try {
    for (let i = 0; i <= ROUNDS; i++) {
      const context = await model.createContext({ contextSize: CONTEXT, sequences: 1, threads });
      const session = new LlamaChatSession({ contextSequence: context.getSequence() });
      const started = performance.now();
      let first = 0;
      let tokens = 0;
      await session.prompt(PROMPT, {
        maxTokens: TOKENS,
        temperature: 0,
        onToken: (chunk) => {
          if (first === 0) first = performance.now();
          tokens += chunk.length;
        },
      });
      const ended = performance.now();
      await context.dispose();
      // Round 0 warms up (page cache, first-use allocations) and is not counted.
      if (i > 0) rounds.push({ ttftMs: first - started, tokensPerSecond: ((tokens - 1) * 1000) / (ended - first) });
    }
  } finally {
    await model.dispose();
    await llama.dispose();
  }
  return rounds;
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

async function viaServer(): Promise<Round[]> {
  const child = fork(fileURLToPath(import.meta.url), ['serve'], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const url = await new Promise<string>((resolve, reject) => {
    child.once('message', (m) => resolve(String(m)));
    child.once('exit', (code) => reject(new Error(`model server exited with ${String(code)}`)));
  });
  const client = new Ollama({ host: url });
  const rounds: Round[] = [];
  try {
    for (let i = 0; i <= ROUNDS; i++) {
      const started = performance.now();
      let first = 0;
      let evalCount = 0;
      let evalNs = 0;
      const stream = await client.chat({
        model: MODEL,
        messages: [{ role: 'user', content: PROMPT }],
        stream: true,
        options: { temperature: 0, num_predict: TOKENS, num_ctx: CONTEXT },
      });
      for await (const part of stream) {
        if (first === 0 && part.message.content) first = performance.now();
        if (part.done) {
          evalCount = part.eval_count;
          evalNs = part.eval_duration;
        }
      }
      const ended = performance.now();
      // Client-side rate over the streamed tokens, like the direct run; the server's own
      // eval_count / eval_duration is printed alongside as a cross-check.
      if (i > 0) {
        rounds.push({ ttftMs: first - started, tokensPerSecond: ((evalCount - 1) * 1000) / (ended - first) });
        if (i === ROUNDS) console.log(`  (server-reported: ${evalCount} tokens, ${((evalCount * 1e9) / evalNs).toFixed(1)} tokens/s)`);
      }
    }
    serverClient = client;
  } catch (error) {
    child.kill('SIGTERM');
    throw error;
  }
  stopServer = () => child.kill('SIGTERM');
  return rounds;
}

let serverClient: Ollama | undefined;
let stopServer = () => {};

function report(label: string, rounds: Round[]): { tps: number; ttft: number } {
  const tps = median(rounds.map((r) => r.tokensPerSecond));
  const ttft = median(rounds.map((r) => r.ttftMs));
  console.log(`${label.padEnd(34)} ${tps.toFixed(1).padStart(7)} tokens/s   time to first token ${ttft.toFixed(0).padStart(5)} ms`);
  return { tps, ttft };
}

if (process.argv[2] === 'serve') {
  const running = await startModelServer({ store: new ModelStore({ dir: resolveModelsDir() }), host: '127.0.0.1', port: 0 });
  process.send?.(running.url);
} else {
  const stored = await new ModelStore({ dir: resolveModelsDir() }).get(MODEL);
  if (!stored) throw new Error(`model ${MODEL} is not pulled: run \`framework-cli model pull ${MODEL}\` first`);
  console.log(
    `chat: ${MODEL}, ${TOKENS} tokens at temperature 0, context ${CONTEXT}, ${threads} threads, median of ${ROUNDS} rounds after a warm-up (node ${process.version})`,
  );
  const d = report('node-llama-cpp directly', await direct(stored.path));
  const s = report('framework_core model server (HTTP)', await viaServer());
  console.log(`ratio server / direct: tokens/s ${(s.tps / d.tps).toFixed(2)} (target >= 0.9), time to first token ${(s.ttft / d.ttft).toFixed(2)}`);
  try {
    if (serverClient) await embeddings(serverClient);
  } finally {
    stopServer();
  }
}
