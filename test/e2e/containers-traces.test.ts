/**
 * `framework-cli trace` for a containers stack (issue 36): `up --containers`
 * adds the stack's trace receiver (`serve traces`, a `traces` service writing
 * into the project's .framework/traces/ through a bind mount) and points
 * every toolkit service at it; after a plan approved across the containers,
 * `trace --last` on the host draws one trace across the planner, the
 * Guardian, the policy engine and the executor, and still does after `down`.
 * One stack start. Skipped only without a Docker engine outside CI (CI=true:
 * fails). Run `npm run build` first.
 */
import { describe, expect, it } from 'vitest';
import { TraceStore } from '../../runtime/telemetry/trace-store.js';
import { runCli } from '../support/cli.js';
import { dockerEngineAnswers, holdDockerEngineForFile } from '../support/docker.js';
import { waitFor } from '../support/net.js';
import { ContainersSwarm } from './containers-support.js';

const ENGINE = dockerEngineAnswers();
/** The project name of containers.test.ts: the same images, warm from either file's run (the Docker lock keeps the two apart). */
const swarm = new ContainersSwarm('fwe2e');
holdDockerEngineForFile(ENGINE, () => swarm.cleanUp());

interface TraceJson {
  traceId: string;
  services: string[];
  spans: { spanId: string; parentSpanId?: string; service: string; name: string; depth: number }[];
}

describe.skipIf(!ENGINE && process.env.CI !== 'true')('local traces of a containers stack (up --containers, then trace)', () => {
  it('keeps the trace of a plan approved across containers in the project folder, drawn by trace --last on the host', async () => {
    const hostPorts = await swarm.create();
    const planner = `http://127.0.0.1:${hostPorts.planner}`;
    const services = await swarm.up();
    expect(services.map((s) => s.name)).toContain('traces');

    const proposal = await swarm.chat([planner, '--message', 'Book the conference room; send the invitations to the team']);
    expect(proposal.find((l) => l.event === 'input_required')?.data, JSON.stringify(proposal)).toMatchObject({ action_type: 'plan_confirmation' });
    const approved = await swarm.chat([planner, '--approve']);
    expect(approved.find((l) => l.event === 'result')?.data, JSON.stringify(approved)).toMatchObject({
      actions: ['Book the conference room', 'send the invitations to the team'],
    });

    // The approval's trace: the one whose root is the planner's front door (POST /query or /stream) and which reached the executor (background calls make traces of their own).
    const store = new TraceStore({ root: swarm.root });
    const approvalTrace = () => {
      const spans = store.read();
      const queries = spans.filter((span) => span.service === 'planner' && /^POST \/(query|stream)$/.test(span.name) && span.parentSpanId === undefined);
      return queries.map((root) => root.traceId).find((id) => spans.some((span) => span.traceId === id && span.service === 'executor'));
    };
    const show = async (traceId: string) => {
      const result = await runCli(['trace', traceId, '--dir', swarm.root, '--json'], { env: swarm.env });
      return result.code === 0 ? (JSON.parse(result.stdout) as TraceJson) : undefined;
    };
    let traceId: string | undefined;
    await waitFor(
      async () => {
        traceId = approvalTrace();
        const view = traceId ? await show(traceId) : undefined;
        return ['planner', 'guardian', 'policy', 'executor'].every((service) => view?.services.includes(service));
      },
      'the approved plan as one trace across four services in the local store',
      30_000,
    );
    const view = (await show(traceId!))!;
    // In a swarm the planner also recalls from the memory service (which embeds with the model runtime): they join the trace too.
    expect(view.services).toEqual(expect.arrayContaining(['planner', 'guardian', 'policy', 'executor']));
    expect(view.spans[0]).toMatchObject({ service: 'planner', depth: 0 });
    const ids = new Set(view.spans.map((span) => span.spanId));
    expect(view.spans.slice(1).every((span) => span.parentSpanId !== undefined && ids.has(span.parentSpanId))).toBe(true);
    const latest = await runCli(['trace', '--last', '--dir', swarm.root], { env: swarm.env });
    expect(latest.code, latest.stderr).toBe(0);
    expect(latest.stdout).toMatch(/^trace [0-9a-f]{32} /);

    const text = await runCli(['trace', view.traceId, '--dir', swarm.root], { env: swarm.env });
    expect(text.code, text.stderr).toBe(0);
    expect(text.stdout).toMatch(/^guardian +.*POST \/v1\/a2a\/validate .*decision=allow/m);
    expect(text.stdout).toMatch(/^executor /m);

    await swarm.down();
    // The store is the project's files: still there with the stack gone.
    const after = await runCli(['trace', view.traceId, '--dir', swarm.root, '--json'], { env: swarm.env });
    expect(after.code, after.stderr).toBe(0);
    expect((JSON.parse(after.stdout) as TraceJson).spans.length).toBe(view.spans.length);
  }, 1_800_000);
});
