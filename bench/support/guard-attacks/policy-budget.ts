/**
 * The policy server's budget (issue 33): an `http.send` to a server that
 * hangs held `/health` for the request's whole timeout, `1e100000` and
 * `sprintf("%0100000000d")` held it for seconds, a POST followed by a few
 * milliseconds of work was sent twice, ad-hoc queries could reach the
 * network, deep text was a 500, and `policy serve` and `serve guardian`
 * listened on every interface when asked. Each attack comes from outside,
 * against a real `policy serve` child; none passes a flag of today's code
 * that did not exist before the fix.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdir, writeFile } from 'node:fs/promises';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { join } from 'node:path';
import { REPO_ROOT, freePort, startCli, type ChildService } from '../child-services.js';
import { attackTally, type GuardAttackClass, type GuardAttackContext } from './guard-attack.js';

/** The policies the budget attacks evaluate (shared with test/security/policy-budget.test.ts). */
export const BUDGET_POLICY = `package budget

hang := http.send({"method": "GET", "url": input.url, "timeout": "30s"}).status_code

post := n if {
  http.send({"method": "POST", "url": input.url, "body": {"transfer": 100}})
  n := count([x | some x in numbers.range(1, 300000); x % 7 == 0])
}

small if input.amount < 1000

padded := sprintf("%0100000000d", [1])

walked := count([p | walk(input, [p, _])])

cheap := true
`;

/** A server outside the policy engine: counts the requests it gets, and holds GETs to /hang without answering. */
export class Upstream {
  readonly server: Server;
  posts = 0;
  /** Requests to /hang received, and how many of their connections are still open. */
  held = 0;
  open = 0;
  readonly #sockets = new Set<Socket>();

  constructor() {
    this.server = createServer((request: IncomingMessage, response: ServerResponse) => {
      if (request.url === '/hang') {
        this.held++;
        this.open++;
        request.socket.once('close', () => this.open--);
        return;
      }
      if (request.method === 'POST') this.posts++;
      request.resume();
      response.end('{}');
    });
    this.server.on('connection', (socket) => {
      this.#sockets.add(socket);
      socket.once('close', () => this.#sockets.delete(socket));
    });
  }

  async start(): Promise<string> {
    this.server.listen(0, '127.0.0.1');
    await once(this.server, 'listening');
    const address = this.server.address();
    return `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  }

  async close(): Promise<void> {
    for (const socket of this.#sockets) socket.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

/** A request's status and text; status 0 with the error when there was no answer (a dropped connection, a crashed server). */
async function ask(url: string, init: RequestInit = {}): Promise<{ status: number; text: string }> {
  try {
    const response = await fetch(url, { ...init, signal: AbortSignal.timeout(60_000) });
    return { status: response.status, text: await response.text() };
  } catch (error) {
    return { status: 0, text: String((error as Error).cause ?? error) };
  }
}

const post = (server: ChildService, path: string, body: string) => ask(`${server.url}${path}`, { method: 'POST', body });

const until = async (check: () => boolean, ms: number): Promise<boolean> => {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return true;
};

/** Starts `args` and says whether it refused to run (exited) rather than answering /health on `port`. */
async function refusesToListen(args: string[], port: number): Promise<boolean> {
  const child = spawn(process.execPath, [join(REPO_ROOT, 'cli/bin/run.js'), ...args], {
    cwd: REPO_ROOT,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', LOG_LEVEL: 'error' },
    stdio: 'ignore',
  });
  const exited = once(child, 'exit').then(() => true);
  const listening = (async () => {
    for (let i = 0; i < 600; i++) {
      try {
        if ((await fetch(`http://127.0.0.1:${port}/health`)).status > 0) return false;
      } catch {
        // Not listening yet.
      }
      if (child.exitCode !== null) return true;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    return false;
  })();
  const refused = await Promise.race([exited, listening]);
  if (child.exitCode === null) {
    child.kill('SIGKILL');
    await once(child, 'exit');
  }
  return refused;
}

export const policyBudgetAttacks: GuardAttackClass = {
  name: 'policy-budget',
  async run(context: GuardAttackContext) {
    const tally = attackTally();
    const dir = join(context.scratch, 'policies');
    await mkdir(dir);
    await writeFile(join(dir, 'budget.rego'), BUDGET_POLICY);
    const upstream = new Upstream();
    const upstreamUrl = await upstream.start();
    const port = await freePort();
    const server = await startCli({ name: 'policy serve', args: ['policy', 'serve', dir, '--addr', `127.0.0.1:${port}`], port });
    try {
      // A decision waiting on a server that hangs must not hold /health, and the budget (5 s) must end it, not the 30 s timeout.
      const hanging = post(server, '/v1/data/budget/hang', JSON.stringify({ input: { url: `${upstreamUrl}/hang` } }));
      await until(() => upstream.held > 0, 20_000);
      const health = await ask(`${server.url}/health`);
      tally.check(
        health.status === 200 && upstream.open > 0,
        `/health waited for an http.send to a server that hangs (answered ${health.status} ${health.text.slice(0, 80)})`,
      );
      const hung = await hanging;
      tally.check(
        hung.status === 500 && hung.text.includes('eval_cancel_error'),
        `a hanging http.send outlived the evaluation budget (answered ${hung.status} ${hung.text.slice(0, 120)})`,
      );

      // One POST per evaluation, even when the decision then works longer than the slice on the event loop.
      const before = upstream.posts;
      await post(server, '/v1/data/budget/post', JSON.stringify({ input: { url: `${upstreamUrl}/post` } }));
      tally.check(upstream.posts - before === 1, `an http.send POST was sent ${upstream.posts - before} times for one decision`);

      const huge = await post(server, '/v1/data/budget/small', '{"input": {"amount": 1e100000}}');
      tally.check(huge.status >= 400 && huge.status < 500, `{"amount": 1e100000} was taken (answered ${huge.status}; it held the server for seconds)`);

      const padded = await post(server, '/v1/data/budget/padded', '{}');
      tally.check(padded.status === 200 && padded.text.length < 1_000, `sprintf("%0100000000d") was answered ${padded.status} in ${padded.text.length} bytes`);

      // As OPA: JSON is read 10,000 deep (Go's encoding/json) and evaluated over; one level more is a 400.
      const deepBody = await post(server, '/v1/data/budget/walked', `{"input": ${'['.repeat(3_000)}1${']'.repeat(3_000)}}`);
      tally.check(
        deepBody.status === 200 && deepBody.text.includes('3001'),
        `a body nested 3,000 deep was answered ${deepBody.status}, not evaluated as OPA does`,
      );
      const tooDeep = await post(server, '/v1/data/budget/walked', `{"input": ${'['.repeat(10_000)}1${']'.repeat(10_000)}}`);
      tally.check(tooDeep.status === 400 && tooDeep.text.includes('exceeded max depth'), `a body nested 10,001 deep was answered ${tooDeep.status}`);
      const deepQuery = await ask(`${server.url}/v1/query?q=${encodeURIComponent(`x := ${'['.repeat(10_000)}1${']'.repeat(10_000)}`)}`);
      tally.check(deepQuery.status >= 400 && deepQuery.status < 500, `a query nested 10,000 deep was answered ${deepQuery.status}`);
      const longSum = await post(server, '/v1/query', JSON.stringify({ query: `x := ${Array.from({ length: 30_000 }, () => '1').join(' + ')}` }));
      tally.check(longSum.status > 0 && longSum.status < 500, `a query summing 30,000 terms (an expression 30,000 deep) was answered ${longSum.status}`);

      // Ad-hoc queries may not reach the network unless the operator allowed it.
      const postsBefore = upstream.posts;
      const adHoc = await post(server, '/v1/query', JSON.stringify({ query: `r := http.send({"method": "POST", "url": "${upstreamUrl}/query"})` }));
      tally.check(upstream.posts === postsBefore && adHoc.status >= 400, `an ad-hoc query sent a POST (answered ${adHoc.status})`);
      const lookup = await post(server, '/v1/query', JSON.stringify({ query: 'r := net.lookup_ip_addr("localhost")' }));
      tally.check(lookup.status >= 400 && !lookup.text.includes('127.0.0.1'), `an ad-hoc query resolved a host name (answered ${lookup.status})`);

      // Cheap decisions still answered afterwards.
      const cheap = await post(server, '/v1/data/budget/cheap', '{}');
      tally.check(cheap.text === '{"result":true}', `a cheap decision was answered ${cheap.status} ${cheap.text.slice(0, 80)} afterwards`);

      // Neither the policy server nor the Guardian listens beyond loopback unless told to.
      const open = await freePort();
      tally.check(await refusesToListen(['policy', 'serve', dir, '--addr', `0.0.0.0:${open}`], open), 'policy serve listened on 0.0.0.0 without being told to');
      const guardianPort = await freePort();
      tally.check(
        await refusesToListen(['serve', 'guardian', '--addr', `0.0.0.0:${guardianPort}`, '--opa-url', server.url], guardianPort),
        'serve guardian listened on 0.0.0.0 without being told to',
      );
    } finally {
      await server.stop();
      await upstream.close();
    }
    return tally.result();
  },
};
