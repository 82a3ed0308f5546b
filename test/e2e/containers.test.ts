/**
 * Issue 22: `up --containers` runs the whole stack in Docker. A swarm made
 * by `create swarm` is built (toolkit image with framework_core packed in,
 * Redis image; base image from FRAMEWORK_BASE_IMAGE or made locally) and
 * brought up; every service is healthy; `chat --json` proposes a plan and
 * approves it, its steps going planner → executor over signed, policy-checked
 * A2A between containers; after `down` + `up` the memory service recalls it;
 * `down` leaves no container, network or anonymous volume; with
 * `--scale planner=2` a plan proposed on one replica is approved on the other.
 * Skipped only without a Docker engine outside CI (CI=true: fails). Run
 * `npm run build` first.
 */
import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { runCli } from '../support/cli.js';
import { dockerEngineAnswers, holdDockerEngineForFile } from '../support/docker.js';
import { ContainersSwarm, type ChatLine } from './containers-support.js';

const ENGINE = dockerEngineAnswers();
/** A fixed name: its images (fwe2e-toolkit, fwe2e-redis) stay after the run, so the next run's build is warm. */
const PROJECT = 'fwe2e';
const swarm = new ContainersSwarm(PROJECT);
holdDockerEngineForFile(ENGINE, () => swarm.cleanUp());

const statuses = (lines: ChatLine[]) => lines.filter((l) => l.event === 'status').map((l) => String(l.data.text));
const chat = (args: string[]) => swarm.chat(args);
const up = (extra: string[] = []) => swarm.up(extra);
const down = () => swarm.down();

async function post(url: string, body: unknown, token?: string): Promise<Record<string, unknown>> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: JSON.stringify(body),
  });
  expect(response.status, url).toBe(200);
  return (await response.json()) as Record<string, unknown>;
}

describe.skipIf(!ENGINE && process.env.CI !== 'true')('a swarm in containers (up --containers)', () => {
  it('has a Docker engine (CI=true must have one: .ci/run starts it with scripts/ci-docker.sh)', () => {
    expect(ENGINE).toBe(true);
  });

  it('builds and starts every service healthy, runs an approved plan across containers, and recalls it after down + up', async () => {
    const hostPorts = await swarm.create();
    expect(Object.keys(hostPorts).sort()).toEqual(['orchestrator', 'planner']);
    const planner = `http://127.0.0.1:${hostPorts.planner}`;

    const started = Date.now();
    const services = await up();
    console.log(`containers: up --containers (build included) took ${Math.round((Date.now() - started) / 1000)} s`);
    expect(services.map((s) => s.name)).toEqual([
      'model',
      'policy',
      'guardian',
      'semantic-layer',
      'kv',
      'memory',
      'orchestrator',
      'planner',
      'executor',
      'traces',
    ]);
    expect(services.every((s) => s.pid === null)).toBe(true);
    expect(services.find((s) => s.name === 'planner')?.url).toBe(planner);

    const status = await runCli(['status', '--dir', swarm.root, '--json'], { env: swarm.env, timeoutMs: 60_000 });
    const report = JSON.parse(status.stdout) as { running: boolean; services: { name: string; health: string }[] };
    expect(report.running).toBe(true);
    expect(report.services.filter((s) => s.health !== 'ok')).toEqual([]);

    const proposal = await chat([planner, '--message', 'Book the conference room; send the invitations to the team']);
    const question = proposal.find((l) => l.event === 'input_required');
    expect(question?.data, JSON.stringify(proposal)).toMatchObject({ action_type: 'plan_confirmation' });
    const approved = await chat([planner, '--approve']);
    const result = approved.find((l) => l.event === 'result');
    expect(result?.data, JSON.stringify(approved)).toMatchObject({ actions: ['Book the conference room', 'send the invitations to the team'] });
    expect((result?.data.outcomes as string[]).length).toBe(2);

    // Each step went planner → executor over A2A: allowed by the Guardian's policy, and the executor verified the signed call.
    const audit = async (service: string) => {
      const logs = await runCli(['logs', service, '--dir', swarm.root, '--json', '--lines', '200'], { env: swarm.env, timeoutMs: 60_000 });
      expect(logs.code, logs.stderr).toBe(0);
      return (JSON.parse(logs.stdout) as { lines: { line: string }[] }).lines
        .map((l) => l.line)
        .filter((line) => line.includes('"audit":"a2a"') && line.includes('"source":"planner"') && line.includes('"target":"executor"'));
    };
    expect((await audit('guardian')).filter((line) => line.includes('"decision":"allowed"')).length).toBeGreaterThanOrEqual(2);
    expect((await audit('executor')).filter((line) => line.includes('"decision":"allowed"')).length).toBeGreaterThanOrEqual(2);

    await down();
    await up();
    const again = await chat([planner, '--new-session', '--message', 'Reserve the conference room and invite the team']);
    expect(statuses(again), JSON.stringify(again)).toContain('Recalled 1 related past result(s) from system memory');
    expect(again.find((l) => l.event === 'input_required')?.data).toMatchObject({ action_type: 'plan_confirmation' });
    await down();
  }, 1_800_000);

  it('puts two planner replicas behind the service name, sessions in Redis: proposed on one, approved on the other', async () => {
    expect(swarm.created, 'the first test made the project').toBe(true);
    const services = await up(['--scale', 'planner=2']);
    const planners = services.filter((s) => s.name === 'planner' || s.name === 'planner-2');
    expect(planners.map((s) => s.name)).toEqual(['planner', 'planner-2']);
    const [a, b] = planners.map((s) => s.url) as [string, string];
    expect(a).not.toBe(b);

    const { session_token: token } = (await post(`${a}/session/start`, {})) as { session_token: string };
    const proposal = (await post(`${a}/query`, { query: 'Order the catering; print the badges', event_format: 'json' }, token)) as {
      events: { event: string; data: Record<string, unknown> }[];
    };
    expect(proposal.events.find((e) => e.event === 'input_required')?.data, JSON.stringify(proposal)).toMatchObject({ action_type: 'plan_confirmation' });
    const approval = (await post(`${b}/query`, { query: 'PLAN_CONFIRM_APPROVE', event_format: 'json' }, token)) as {
      events: { event: string; data: Record<string, unknown> }[];
    };
    expect(approval.events.find((e) => e.event === 'result')?.data, JSON.stringify(approval)).toMatchObject({
      actions: ['Order the catering', 'print the badges'],
    });
    // The orchestrator reaches the planners by the service name over A2A (either replica): a delegated request runs at once.
    const orchestrator = services.find((s) => s.name === 'orchestrator')!.url;
    const delegated = (await post(`${orchestrator}/query`, { query: 'Book the room; send the invitations', event_format: 'json' })) as {
      events: { event: string; data: Record<string, unknown> }[];
    };
    expect(delegated.events.find((e) => e.event === 'result')?.data, JSON.stringify(delegated)).toMatchObject({ delegatedTo: 'planner' });
    expect(String(delegated.events.find((e) => e.event === 'result')?.data.answer)).toMatch(/^1\. Book the room: .+\n2\. send the invitations: /);
    // The two URLs are two containers of the one service.
    const ids = execFileSync(
      'docker',
      ['ps', '--quiet', '--filter', `label=com.docker.compose.project=${PROJECT}`, '--filter', 'label=com.docker.compose.service=planner'],
      {
        encoding: 'utf8',
      },
    );
    expect(ids.trim().split('\n')).toHaveLength(2);
    await down();
  }, 1_800_000);
});
