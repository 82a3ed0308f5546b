/**
 * Tool choice of the default local model: on a labelled set of prompts that
 * need one of three tools and prompts that need none, how often SmolLM2-135M
 * picks the right one (the right tool, or a text answer) under three ways of
 * letting it choose:
 *
 * - `auto`: the server's `tool_choice: auto`. For SmolLM2 that is now the choice step
 *   below (`tool-choice-step.ts`), shipped after this bench measured node-llama-cpp's
 *   function calling alone (the model may start a call in its wrapper's syntax at any
 *   point) at 0/10 right tools and 10/10 text answers; other models get that;
 * - `choice grammar`: a first, grammar-constrained step where the model must
 *   write `{"action": <one of the tool names or "answer">}` after a system
 *   message listing the tools, the choice a forced call (or a text reply) would follow;
 * - `required`: every reply is a call (`--force-tool-call`), the model choosing only which tool.
 *
 *   npm run build && node dist/bench/model-tools.js      (needs `framework-cli model pull smollm2`)
 *
 * Greedy decoding (temperature 0), so one pass gives the figures. Prints
 * accuracy per class and per strategy; asserts nothing.
 */
import { LlamaEngine, type EngineRequest, type EngineTool } from '../runtime/model/llama-engine.js';
import { ModelStore, resolveModelsDir } from '../runtime/model/model-store.js';

const MODEL = process.env.BENCH_MODEL ?? 'smollm2';

const TOOLS: EngineTool[] = [
  {
    name: 'get_weather',
    description: 'Get the current weather for a city',
    parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
  },
  {
    name: 'get_time',
    description: 'Get the current time in a city',
    parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
  },
  {
    name: 'convert_currency',
    description: 'Convert an amount of money from one currency to another',
    parameters: {
      type: 'object',
      properties: { amount: { type: 'number' }, from: { type: 'string' }, to: { type: 'string' } },
      required: ['amount', 'from', 'to'],
    },
  },
];

/** Each prompt with the tool it needs, or `text` when it needs none. */
const LABELLED: Array<[string, string]> = [
  ['What is the weather in Paris right now?', 'get_weather'],
  ['Is it raining in London today?', 'get_weather'],
  ['How hot is it in Cairo at the moment?', 'get_weather'],
  ['Tell me the current temperature in Oslo.', 'get_weather'],
  ['What time is it in Tokyo?', 'get_time'],
  ['What is the local time in New York now?', 'get_time'],
  ['Tell me the current time in Sydney.', 'get_time'],
  ['Convert 100 US dollars to euros.', 'convert_currency'],
  ['How many yen is 50 pounds?', 'convert_currency'],
  ['Change 20 euros into Swiss francs.', 'convert_currency'],
  ['Write a haiku about the sea.', 'text'],
  ['What is the capital of Italy?', 'text'],
  ['Say hello.', 'text'],
  ['Explain what a noun is in one sentence.', 'text'],
  ['What is two plus two?', 'text'],
  ['Give me a name for a pet cat.', 'text'],
  ['Translate "thank you" into French.', 'text'],
  ['Who wrote Romeo and Juliet?', 'text'],
  ['List three colours.', 'text'],
  ['Tell me a short joke.', 'text'],
];

type Strategy = (engine: LlamaEngine, prompt: string) => Promise<string>;

const greedy = { temperature: 0, num_predict: 48, repeat_penalty: 1 } as const;

const STRATEGIES: Record<string, Strategy> = {
  auto: async (engine, prompt) => {
    const result = await engine.generate({ messages: [{ role: 'user', content: prompt }], tools: TOOLS, toolChoice: 'auto', options: greedy });
    return result.toolCalls?.[0]?.name ?? 'text';
  },
  'choice grammar': async (engine, prompt) => {
    const listed = TOOLS.map((t) => `- ${t.name}: ${t.description}`).join('\n');
    const request: EngineRequest = {
      messages: [
        {
          role: 'system',
          content: `You can use these tools:\n${listed}\nIf the user's request needs one of them, set "action" to its name. Otherwise set "action" to "answer".`,
        },
        { role: 'user', content: prompt },
      ],
      format: {
        type: 'object',
        properties: { action: { enum: [...TOOLS.map((t) => t.name), 'answer'] } },
        required: ['action'],
      },
      options: { ...greedy, num_predict: 24 },
    };
    const { text } = await engine.generate(request);
    const action = (JSON.parse(text) as { action: string }).action;
    return action === 'answer' ? 'text' : action;
  },
  required: async (engine, prompt) => {
    const result = await engine.generate({ messages: [{ role: 'user', content: prompt }], tools: TOOLS, toolChoice: 'required', options: greedy });
    return result.toolCalls?.[0]?.name ?? 'text';
  },
};

async function main(): Promise<void> {
  const store = new ModelStore({ dir: resolveModelsDir() });
  const model = await store.get(MODEL);
  if (!model) throw new Error(`model '${MODEL}' is not in the store: run \`framework-cli model pull ${MODEL}\` first`);
  // Threads adapt to the load (the default): a fixed count spins against other processes on a busy machine.
  const engine = new LlamaEngine({ model, numParallel: 1 });
  const toolPrompts = LABELLED.filter(([, label]) => label !== 'text').length;
  const textPrompts = LABELLED.length - toolPrompts;
  console.log(`tool choice of ${MODEL}: ${toolPrompts} prompts that need a tool (3 tools offered), ${textPrompts} that need none; greedy`);
  console.log('strategy          needs a tool: right tool   needs none: text answer   overall');
  try {
    for (const [name, strategy] of Object.entries(STRATEGIES)) {
      let rightTool = 0;
      let rightText = 0;
      const picks: string[] = [];
      for (const [prompt, label] of LABELLED) {
        const pick = await strategy(engine, prompt);
        picks.push(pick);
        if (pick === label) {
          if (label === 'text') rightText += 1;
          else rightTool += 1;
        }
      }
      const percent = (n: number, of: number) => `${n}/${of} (${Math.round((100 * n) / of)}%)`;
      console.log(
        `${name.padEnd(18)}${percent(rightTool, toolPrompts).padEnd(27)}${percent(rightText, textPrompts).padEnd(26)}${percent(rightTool + rightText, LABELLED.length)}`,
      );
      console.log(`  picks: ${picks.join(', ')}`);
    }
  } finally {
    await engine.dispose();
  }
}

await main();
