/**
 * Issue 39: `deploy kubernetes` writes the manifests and a Helm chart of a
 * project from its containers model. No cluster runs here: what is proven
 * is that every object validates, strictly, against the Kubernetes API
 * schemas of each version from 1.32 on that kubernetes-validate ships, that
 * Helm's own engine (helm-python-sdk, Helm's Go SDK) renders and lints the
 * chart, and that the rendered chart holds exactly the objects of the
 * manifests. Both Python tools run from the venv of FRAMEWORK_K8S_VALIDATE
 * (.ci/run makes it). Run `npm run build` first.
 */
import { spawnSync } from 'node:child_process';
import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { runCli } from '../support/cli.js';
import { REPO_ROOT } from '../support/processes.js';
import { venvPython } from '../support/python-venv.js';

const python = venvPython({ env: 'FRAMEWORK_K8S_VALIDATE', setup: 'pip install kubernetes-validate==1.37.0 helm-python-sdk==0.2.2' });
const CHECK = join(REPO_ROOT, 'test', 'support', 'kubernetes_check.py');

interface KubeObject {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string };
  spec?: Record<string, unknown>;
  data?: Record<string, string>;
}

let base: string;
let env: Record<string, string>;
const team = () => join(base, 'team');
const out = () => join(base, 'out');

function check<T>(request: unknown): T {
  const result = spawnSync(python!, [CHECK], { input: JSON.stringify(request), encoding: 'utf8', timeout: 300_000, maxBuffer: 64 * 1024 * 1024 });
  expect(result.status, result.stderr).toBe(0);
  return JSON.parse(result.stdout) as T;
}

function objectsOf(text: string): KubeObject[] {
  return parseAllDocuments(text)
    .map((d) => d.toJS() as KubeObject | null)
    .filter((o): o is KubeObject => o !== null);
}

async function manifests(files: readonly string[]): Promise<KubeObject[]> {
  return (await Promise.all(files.map(async (f) => objectsOf(await readFile(f, 'utf8'))))).flat();
}

const key = (o: KubeObject) => `${o.kind}/${o.metadata.name}`;

interface Output {
  manifests: string[];
  chart: string;
  secretFiles: string[];
  objects: string[];
  singleReplicaAgents: string[];
}

async function deploy(args: string[], dir = team()): Promise<Output> {
  const result = await runCli(['deploy', 'kubernetes', '--dir', dir, '--json', ...args], { env, timeoutMs: 60_000 });
  expect(result.code, result.stderr + result.stdout).toBe(0);
  return JSON.parse(result.stdout) as Output;
}

beforeAll(async () => {
  base = await mkdtemp(join(tmpdir(), 'fw-k8s-'));
  env = { FRAMEWORK_CLI_CONFIG_DIR: join(base, 'config') };
  const created = await runCli(['create', 'swarm', 'team', '--dir', team(), '--json'], { env });
  expect(created.code, created.stderr).toBe(0);
}, 60_000);

afterAll(async () => {
  if (base) await rm(base, { recursive: true, force: true });
});

describe('deploy kubernetes (manifests)', () => {
  it('writes a Deployment or StatefulSet and a Service per compose service, probes on the health endpoints, Redis with a claim, HPA and PDB for agents', async () => {
    const output = await deploy(['--namespace', 'agents', '--out', out()]);
    const objects = await manifests(output.manifests);
    const byKey = new Map(objects.map((o) => [key(o), o]));
    expect(objects.map(key).sort()).toEqual(output.objects.slice().sort());
    expect(objects.every((o) => o.kind === 'Namespace' || o.metadata.namespace === 'agents')).toBe(true);

    const project = JSON.parse(await readFile(join(team(), '.framework', 'project.json'), 'utf8')) as {
      services: { name: string; port: number; healthPath: string }[];
    };
    for (const name of ['model', 'semantic-layer', 'kv']) expect(byKey.get(`StatefulSet/${name}`), name).toBeDefined();
    for (const name of ['policy', 'guardian', 'memory', 'orchestrator', 'planner', 'executor']) expect(byKey.get(`Deployment/${name}`), name).toBeDefined();
    for (const spec of project.services) {
      const workload = byKey.get(`Deployment/${spec.name}`) ?? byKey.get(`StatefulSet/${spec.name}`);
      const container = (workload!.spec!.template as { spec: { containers: Record<string, unknown>[] } }).spec.containers[0]!;
      expect(container.readinessProbe, spec.name).toMatchObject({ httpGet: { path: spec.healthPath, port: 'service' } });
      expect(container.livenessProbe, spec.name).toMatchObject({ httpGet: { path: spec.healthPath } });
      expect(container.ports).toEqual([{ name: 'service', containerPort: spec.port, protocol: 'TCP' }]);
      expect(container.resources).toMatchObject({ requests: { cpu: expect.any(String), memory: expect.any(String) }, limits: { memory: expect.any(String) } });
      expect(container.securityContext).toMatchObject({ runAsNonRoot: true, readOnlyRootFilesystem: true, allowPrivilegeEscalation: false });
      expect(byKey.get(`Service/${spec.name}`)?.spec).toMatchObject({ ports: [{ port: spec.port }] });
    }
    const kv = byKey.get('StatefulSet/kv')!.spec as {
      volumeClaimTemplates: { metadata: { name: string } }[];
      template: { spec: { containers: Record<string, unknown>[] } };
    };
    expect(kv.volumeClaimTemplates.map((c) => c.metadata.name)).toEqual(['kv-data']);
    expect(kv.template.spec.containers[0]!.readinessProbe).toMatchObject({ exec: { command: ['redis-cli', 'ping'] } });
    // Agents share sessions through Redis: two replicas, autoscaled, never all evicted at once.
    for (const agent of ['orchestrator', 'planner', 'executor']) {
      expect(byKey.get(`HorizontalPodAutoscaler/${agent}`)?.spec).toMatchObject({ scaleTargetRef: { kind: 'Deployment', name: agent }, minReplicas: 2 });
      expect(byKey.get(`PodDisruptionBudget/${agent}`)?.spec).toMatchObject({ minAvailable: 1 });
    }
    expect(output.singleReplicaAgents).toEqual([]);

    // Policies and cards are ConfigMaps; the cards name each agent by its Service.
    const cards = byKey.get('ConfigMap/team-agent-cards')!;
    expect(JSON.parse(cards.data!['planner.json']!).url).toBe('http://planner:8003/');
    const policies = byKey.get('ConfigMap/team-policies')!;
    expect(policies.data!['a2a_access.rego']).toBe(await readFile(join(team(), 'services/guardian/policies/a2a_access.rego'), 'utf8'));
  });

  it("keeps a plain project's agents at one replica without autoscaling: their sessions are in process memory", async () => {
    const solo = join(base, 'solo');
    expect((await runCli(['create', 'project', 'solo', '--dir', solo, '--json'], { env })).code).toBe(0);
    const added = await runCli(['add', 'agent', 'helper', '--description', 'Helps.', '--no-interactive', '--dir', solo, '--json'], { env });
    expect(added.code, added.stderr).toBe(0);
    const output = await deploy([], solo);
    expect(output.singleReplicaAgents).toEqual(['helper']);
    expect(output.objects).toContain('Deployment/helper');
    expect(output.objects.filter((o) => /^(HorizontalPodAutoscaler|PodDisruptionBudget|StatefulSet\/kv)/.test(o))).toEqual([]);
    const objects = await manifests(output.manifests.map((f) => join(solo, f)));
    expect(objects.find((o) => key(o) === 'Deployment/helper')?.spec).toMatchObject({ replicas: 1 });
    expect(objects.every((o) => o.metadata.namespace === undefined)).toBe(true);
    const text = await runCli(['deploy', 'kubernetes', '--dir', solo], { env, timeoutMs: 60_000 });
    expect(text.stdout).toContain('One replica, no autoscaling, for helper');
  });

  it('keeps the secrets in mode 0600 files only, never on standard output', async () => {
    const token = (await readFile(join(team(), '.framework/secrets/memory-token'), 'utf8')).trim();
    const result = await runCli(['deploy', 'kubernetes', '--dir', team(), '--out', out()], { env, timeoutMs: 60_000 });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain('mode 0600');
    for (const text of [result.stdout, result.stderr]) {
      expect(text).not.toContain(token);
      expect(text).not.toContain(Buffer.from(token).toString('base64').slice(0, 20));
    }
    const json = await deploy(['--out', out()]);
    expect(JSON.stringify(json)).not.toContain(token);
    for (const file of json.secretFiles) expect((await stat(file)).mode & 0o777, file).toBe(0o600);
    const secret = (await manifests([join(out(), 'kubernetes', 'secrets.yaml')]))[0]!;
    expect(Buffer.from(secret.data!.memory_token!, 'base64').toString()).toContain(token);
    expect(await readFile(join(out(), '.gitignore'), 'utf8')).toContain('kubernetes/secrets.yaml');
  });

  it('refuses bad input with the fix: a namespace, a registry, a service name Kubernetes cannot take, a missing secret file', async () => {
    const bad = await runCli(['deploy', 'kubernetes', '--dir', team(), '--namespace', 'Not_A_Namespace', '--json'], { env });
    expect(bad.code).toBe(2);
    expect(JSON.parse(bad.stdout).error.message).toMatch(/not a Kubernetes namespace name/);
    const registry = await runCli(['deploy', 'kubernetes', '--dir', team(), '--registry', 'https://x y', '--json'], { env });
    expect(registry.code).toBe(2);

    const copy = join(base, 'broken');
    const created = await runCli(['create', 'swarm', 'broken', '--dir', copy, '--json'], { env });
    expect(created.code, created.stderr).toBe(0);
    const compose = join(copy, 'compose.yaml');
    const original = await readFile(compose, 'utf8');
    await writeFile(compose, original.replace(/^ {2}executor:$/m, '  Executor_1:'));
    const name = await runCli(['deploy', 'kubernetes', '--dir', copy, '--json'], { env });
    expect(name.code).toBe(1);
    expect(JSON.parse(name.stdout).error).toMatchObject({ code: 'invalid_request', message: expect.stringMatching(/"Executor_1".*lower-case letters/) });

    await writeFile(compose, original);
    await rm(join(copy, '.framework/secrets/memory-token'));
    const missing = await runCli(['deploy', 'kubernetes', '--dir', copy, '--json'], { env });
    expect(missing.code).toBe(1);
    expect(JSON.parse(missing.stdout).error.message).toMatch(/secret memory_token .* is missing/);
  });
});

describe.skipIf(!python)('deploy kubernetes against the Kubernetes API schemas and Helm', () => {
  it('validates every object strictly for each Kubernetes version from 1.32 on, and the validator rejects a wrong field', async () => {
    const output = await deploy(['--namespace', 'agents', '--out', out()]);
    const report = check<{ versions: string[]; errors: string[]; count: number }>({ validate: { files: output.manifests } });
    console.log(`kubernetes-validate: ${report.count} objects × Kubernetes ${report.versions.join(', ')} (strict)`);
    expect(report.versions).toContain('1.32.0');
    expect(report.versions.length).toBeGreaterThanOrEqual(3);
    expect(report.errors).toEqual([]);
    expect(report.count).toBe(output.objects.length);

    // The same check fails on a field the API does not have and on a kind it does not know.
    const wrong = join(base, 'wrong.yaml');
    const planner = await readFile(join(out(), 'kubernetes', 'planner.yaml'), 'utf8');
    await writeFile(wrong, planner.replace('  replicas: 2\n', '  replica: 2\n').replace('kind: PodDisruptionBudget', 'kind: PodDisruptionBudgets'));
    const rejected = check<{ errors: string[] }>({ validate: { files: [wrong] } });
    expect(rejected.errors.some((e) => /Deployment\/planner.*replica/.test(e))).toBe(true);
    expect(rejected.errors.some((e) => /PodDisruptionBudgets/.test(e))).toBe(true);
  }, 300_000);

  it('renders the chart with Helm to exactly the objects of the manifests, which validate too; without the secrets file it says which', async () => {
    const output = await deploy(['--namespace', 'agents', '--out', out()]);
    const chart = join(out(), 'helm', 'team');
    const secrets = join(out(), 'helm', 'secrets.values.yaml');
    const rendered = check<{ manifests: Record<string, string>; lint: { errors: string[]; messages: { severity: number; error: string }[] }; helm: string }>({
      render: { chart, values_files: [secrets], namespace: 'agents', release: 'team' },
    });
    console.log(`helm ${rendered.helm}: rendered ${Object.keys(rendered.manifests).length} templates`);
    expect(rendered.lint.errors).toEqual([]);
    expect(rendered.lint.messages.filter((m) => m.severity >= 2)).toEqual([]);
    const fromHelm = Object.values(rendered.manifests).flatMap(objectsOf);
    const plain = (await manifests(output.manifests)).filter((o) => o.kind !== 'Namespace');
    const sorted = (list: KubeObject[]) => list.slice().sort((a, b) => key(a).localeCompare(key(b)));
    expect(sorted(fromHelm)).toEqual(sorted(plain));

    const renderedFiles = await Promise.all(
      Object.values(rendered.manifests).map(async (text, i) => {
        const file = join(base, `rendered-${i}.yaml`);
        await writeFile(file, text);
        return file;
      }),
    );
    const report = check<{ errors: string[]; count: number }>({ validate: { files: renderedFiles } });
    expect(report.errors).toEqual([]);
    expect(report.count).toBe(plain.length);

    // values.yaml tunes the objects: three planners, another image.
    const values = join(base, 'tuned.values.yaml');
    await writeFile(values, 'images:\n  toolkit: registry.example.com/team-toolkit:1.2.3\nservices:\n  planner:\n    replicas: 3\n');
    const tuned = check<{ manifests: Record<string, string> }>({ render: { chart, values_files: [secrets, values], namespace: 'agents' } });
    const deployment = objectsOf(tuned.manifests['team/templates/planner.yaml']!).find((o) => o.kind === 'Deployment')!;
    expect(deployment.spec).toMatchObject({ replicas: 3, template: { spec: { containers: [{ image: 'registry.example.com/team-toolkit:1.2.3' }] } } });

    const noSecrets = check<{ error?: string }>({ render: { chart, values_files: [], namespace: 'agents' } });
    expect(noSecrets.error).toMatch(/secrets\.(a2a_keys|memory_token) is not set: install with -f secrets.values.yaml/);
  }, 300_000);

  it('keeps a policy\'s own "{{" literal through Helm', async () => {
    const policy = join(team(), 'services/guardian/policies/braces.rego');
    const text = 'package braces\n\n# a template-looking comment: {{ .Values.secrets }}\nallow := true\n';
    await writeFile(policy, text);
    try {
      await deploy(['--namespace', 'agents', '--out', out()]);
      const rendered = check<{ manifests: Record<string, string> }>({
        render: { chart: join(out(), 'helm', 'team'), values_files: [join(out(), 'helm', 'secrets.values.yaml')], namespace: 'agents' },
      });
      const config = objectsOf(rendered.manifests['team/templates/config.yaml']!).find((o) => o.metadata.name === 'team-policies')!;
      expect(config.data!['braces.rego']).toBe(text);
    } finally {
      await rm(policy);
    }
  }, 300_000);
});
