import type { AgentTool } from '../core/agent-tool.js';
import { loadAgentConfig } from '../core/config.js';
import { FrameworkAgent } from '../core/framework-agent.js';
import { FrameworkCore } from '../core/framework-core.js';
import type { LlmConfig } from '../core/llm-config.js';
import { createLogger } from '../core/logger.js';
import type { ChatRequest, ChatResult, LanguageModel } from '../llm/language-model.js';
import type { ChatToolCall } from '../llm/thread-history.js';
import { registerToolAgentTask } from '../tools/tool-agent.js';
import { toolGateFromEnv } from '../tools/tool-gate.js';

/** Example prices (not market data): the same symbol always gets the same price. */
function priceOf(symbol: string): number {
  let hash = 7;
  for (const char of symbol) hash = (hash * 31 + char.charCodeAt(0)) % 10_007;
  return 10 + (hash % 490) + (hash % 100) / 100;
}

/** The trader's tools: a quote, and a trade kept in this process's order book (an example, not a broker). */
export function traderTools(orders: { symbol: string; amount: number; id: string }[] = []): AgentTool[] {
  return [
    {
      name: 'get_quote',
      description: 'The current price of a stock symbol (example prices).',
      inputSchema: {
        type: 'object',
        properties: { symbol: { type: 'string', pattern: '^[A-Za-z.]{1,10}$' } },
        required: ['symbol'],
        additionalProperties: false,
      },
      run: (args) => {
        const symbol = (args as { symbol: string }).symbol.toUpperCase();
        return { symbol, price: priceOf(symbol), currency: 'USD' };
      },
    },
    {
      name: 'place_trade',
      description: 'Buy a stock for an amount of money (USD). Every trade is checked by the trading policy; large ones need a person to approve.',
      inputSchema: {
        type: 'object',
        properties: { symbol: { type: 'string', pattern: '^[A-Za-z.]{1,10}$' }, amount: { type: 'number', exclusiveMinimum: 0 } },
        required: ['symbol', 'amount'],
        additionalProperties: false,
      },
      run: (args) => {
        const { symbol, amount } = args as { symbol: string; amount: number };
        const order = { id: `order-${orders.length + 1}`, symbol: symbol.toUpperCase(), amount };
        orders.push(order);
        return { order_id: order.id, symbol: order.symbol, amount, status: 'placed' };
      },
    },
  ];
}

const BUY =
  /\b(?:buy|purchase|invest|compra(?:r)?|invierte)\s+\$?([\d][\d,._]*)\s*(?:usd|dollars|\$|d[oó]lares)?\s*(?:of|in|de|en)?\s+(?:shares?\s+of\s+|acciones\s+de\s+)?\$?([A-Za-z.]{1,10})\b/i;
const QUOTE = /\b(?:quote|price|cotizaci[oó]n|precio)\s+(?:of\s+|for\s+|de\s+)?\$?([A-Za-z.]{1,10})\b/i;

/**
 * The trader without a model: reads "buy 100 of ACME" and "quote ACME" (and
 * their Spanish forms) as the same tool calls a model would ask for, and
 * words the tool results as its answer, so the example runs on a machine
 * with no model, through the same gated tool loop. Anything else gets a
 * short help text. It is the example's fallback, not a language model.
 */
export class TraderRulesModel implements LanguageModel {
  readonly provider = 'trader-rules';
  readonly baseUrl = 'rules:';
  #calls = 0;

  async chat(request: ChatRequest): Promise<ChatResult> {
    const last = request.messages.at(-1);
    if (last?.role === 'tool') return { text: this.#answer(request), model: 'trader-rules', finishReason: 'stop' };
    const text = last?.content ?? '';
    const buy = BUY.exec(text);
    if (buy) {
      const amount = Number((buy[1] as string).replace(/[,_]/g, ''));
      return this.#call('place_trade', { symbol: (buy[2] as string).toUpperCase(), amount });
    }
    const quote = QUOTE.exec(text);
    if (quote) return this.#call('get_quote', { symbol: (quote[1] as string).toUpperCase() });
    return {
      text: 'I can quote a stock and place trades, checked by the trading policy. Try "quote ACME" or "buy 100 of ACME".',
      model: 'trader-rules',
      finishReason: 'stop',
    };
  }

  async *chatStream(request: ChatRequest): AsyncIterable<string> {
    yield (await this.chat(request)).text;
  }

  #call(name: string, args: Record<string, unknown>): ChatResult {
    this.#calls += 1;
    const toolCalls: ChatToolCall[] = [{ id: `rules-${this.#calls}`, name, arguments: args }];
    return { text: '', toolCalls, model: 'trader-rules', finishReason: 'tool_calls' };
  }

  /** The answer once the tools have run: what each result (or refusal) says. */
  #answer(request: ChatRequest): string {
    const lines: string[] = [];
    for (const message of request.messages.slice(request.messages.findLastIndex((m) => m.role === 'assistant') + 1)) {
      let result: Record<string, unknown>;
      try {
        result = JSON.parse(message.content) as Record<string, unknown>;
      } catch {
        result = { text: message.content };
      }
      if (typeof result.error === 'string') lines.push(`${message.name ?? 'The tool'} did not run: ${result.error}`);
      else if (message.name === 'place_trade') lines.push(`Placed ${String(result.order_id)}: ${String(result.amount)} USD of ${String(result.symbol)}.`);
      else if (message.name === 'get_quote') lines.push(`${String(result.symbol)} is at ${String(result.price)} ${String(result.currency)}.`);
      else lines.push(message.content);
    }
    return lines.join('\n');
  }
}

/**
 * The trading example (`serve agent --example trader`): tools `get_quote`
 * and `place_trade(symbol, amount)`, every trade asked of the Guardian
 * (GUARDIAN_URL; package from TOOL_POLICIES, default `place_trade:trading`)
 * under the shipped `policies/trading.rego`: 60000 is refused with the
 * policy's reason, 10000 waits for a person's approval, 100 runs at once.
 * With a model (MODEL_NAME / LLM_CONFIG) the model decides the calls;
 * without one, `TraderRulesModel` turns the request into the same calls.
 */
export function createTraderAgent(options: { env?: Readonly<Record<string, string | undefined>>; approvalTtlMs?: number; now?: () => number } = {}): {
  core: FrameworkCore;
  agent: FrameworkAgent;
} {
  const env = options.env ?? process.env;
  const tools = traderTools();
  const core = new FrameworkCore();
  const agent = new FrameworkAgent({
    agentName: env.AGENT_NAME || 'trader',
    description: 'Example trader: quotes and trades, every trade checked by the trading policy and, above a threshold, approved by a person.',
    version: '0.1.0',
    tools,
  });
  const gate = toolGateFromEnv({
    env,
    agent: { name: agent.agentName, description: agent.description },
    defaultPolicies: 'place_trade:trading',
    logger: createLogger({ name: 'trader' }),
  });
  const rules = new TraderRulesModel();
  let llmConfig: LlmConfig | undefined | null = null;
  registerToolAgentTask(core, {
    tools,
    gate,
    ...(options.approvalTtlMs === undefined ? {} : { approvalTtlMs: options.approvalTtlMs }),
    ...(options.now === undefined ? {} : { now: options.now }),
    system: 'You are a trading assistant. Use get_quote for prices and place_trade to buy. Amounts are in USD.',
    model: () => {
      llmConfig ??= loadAgentConfig({ env, overrides: { AGENT_NAME: agent.agentName } }).llmConfig;
      return llmConfig ? { llmConfig } : { llmConfig: { provider: 'ollama', model: 'trader-rules' }, languageModel: rules };
    },
  });
  return { core, agent };
}
