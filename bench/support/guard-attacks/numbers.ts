/**
 * Numbers (issue 33): a number no double can hold (1e400, 400 digits) must
 * never reach a policy as a missing field. Tries `buy 1<400 zeros> of ACME`
 * on the trader, a model answering a tool call with `"amount": 1e400` (a
 * scripted Ollama server in this process stands for the model), and 1e400
 * (or no amount at all) sent straight to the Guardian, the policy server
 * (as input and as data) and the A2A validation route. Refused: no order
 * placed, a 400, or a deny.
 */
import { startHostileModel } from './hostile-model.js';
import { attackTally, type GuardAttackClass, type GuardAttackResult } from './guard-attack.js';
import { ask, placed, postRaw, shown, startSession, startTraderStack, tail } from './trader-stack.js';

const HUGE = `1${'0'.repeat(400)}`;

export const numbersAttacks: GuardAttackClass = {
  name: 'numbers',
  async run(): Promise<GuardAttackResult> {
    const tally = attackTally();
    const model = await startHostileModel('{"symbol":"ACME","amount":1e400}');
    const stack = await startTraderStack({ allowWrites: true });
    const modelStack = await startTraderStack({ traderEnv: { MODEL_NAME: 'hostile', OLLAMA_HOST: model.url } });
    try {
      const token = await startSession(stack.trader.url);
      for (const request of [`buy ${HUGE} of ACME`, `buy ${'9'.repeat(310)} of ACME`, `compra ${HUGE} de ACME`]) {
        const text = shown(await ask(stack.trader.url, request, token));
        tally.check(!placed(text), `"${request.slice(0, 12)}… of ACME" placed an order: ${tail(text, 160)}`);
      }

      const modelTurn = shown(await ask(modelStack.trader.url, 'buy some ACME', await startSession(modelStack.trader.url)));
      tally.check(!/"status":"placed"|order-\d+/.test(modelTurn), `a model's "amount": 1e400 placed an order: ${tail(modelTurn, 160)}`);

      const evaluate = `${stack.guardian.url}/v1/policies/trading/evaluate`;
      const domain = (fields: string) =>
        `{"source_agent":{"name":"trader"},"target_agent":{"name":"place_trade"},"action":"place_trade",${fields}"metadata":{"requests_last_minute":1,"arguments":{"symbol":"ACME","amount":1e400}}}`;
      for (const [what, body] of [
        ['1e400 in the arguments, a small amount beside it', domain('"amount":100,')],
        ['1e400 as the amount', domain('"amount":1e400,')],
        ['no amount at all', domain('')],
      ] as const) {
        const response = await postRaw(evaluate, body);
        const answer = (await response.json()) as { allow?: boolean };
        tally.check(response.status === 400 || answer.allow === false, `the Guardian allowed a trade with ${what} (HTTP ${response.status})`);
      }

      const direct = await postRaw(
        `${stack.policy.url}/v1/data/trading/deny`,
        '{"input":{"action":"place_trade","amount":1e400,"metadata":{"requests_last_minute":1}}}',
      );
      const denied = ((await direct.json()) as { result?: string[] }).result ?? [];
      tally.check(
        direct.status === 400 || denied.some((reason) => reason.includes('1e400')),
        `the policy server did not deny amount 1e400 with the exact number: ${JSON.stringify(denied)}`,
      );

      const write = await fetch(`${stack.policy.url}/v1/data/limits`, {
        method: 'PUT',
        headers: { 'content-type': 'application/json' },
        body: '{"max":1e400}',
      });
      tally.check(write.status === 400, `the policy server answered data holding 1e400 with HTTP ${write.status}, not a clear 400`);

      const a2a = await postRaw(
        `${stack.guardian.url}/v1/a2a/validate`,
        '{"source_agent":{"name":"planner","description":"p","url":"http://p"},"target_agent":{"name":"executor","description":"e","url":"http://e"},"communication":{"timestamp":"2026-01-01T00:00:00Z","message_preview":"hi","message_length":1e400},"validation_mode":"strict"}',
      );
      tally.check(a2a.status === 400, `the A2A validation took message_length 1e400 (HTTP ${a2a.status})`);
    } finally {
      await Promise.all([stack.stop(), modelStack.stop(), model.close()]);
    }
    return tally.result();
  },
};
