#!/usr/bin/env node
// Runs the official A2A TCK (github.com/a2aproject/a2a-tck) branch by branch
// against the agents users run and against the official Python SDK, and
// prints one table per branch: passed/failed/skipped per agent and binding.
//
//   A2A_TCK_REPO=<a2a-tck clone or git dir> A2A_TCK_PYTHON=<venv>/bin/python \
//   FRAMEWORK_A2A_PYTHON=<a2a-sdk 1.x venv>/bin/python A2A_TCK_PY03_PYTHON=<a2a-sdk 0.3.x venv>/bin/python \
//   npm run a2a:tck
//
// A2A_TCK_BRANCHES (default 1.0-dev,main,0.3.x) and A2A_TCK_AGENTS (default
// sut,hello,executor,planner,generated,python) narrow the run. Each branch is
// extracted with `git archive` into a temporary folder, so the commit run is
// the one printed. Agents:
//   sut        bench/a2a-tck/sut.ts, our endpoint acting out the TCK's scenarios
//   hello, executor, planner   `framework-cli serve agent --example <name> --a2a-only`
//   generated  `create project` + `add agent helper` in a temporary folder,
//              `npm install`, `npm run build`, `npm run cli -- serve agent --module ...`
//   python     the official Python SDK: test/a2a/fixtures/a2a_python_server.py ALL on
//              a2a-sdk 1.x for 1.0-dev and main, a2a_python03_server.py on a2a-sdk 0.3.x for 0.3.x
// Our agents run with validation off (the TCK does not sign), webhooks allowed to
// any host (the TCK registers example.com) and gRPC on a second port.
// 1.0-dev runs every test once (`run_tck.py --sut-host`); main and 0.3.x run
// `--category all --transports jsonrpc,grpc,rest` (each category per transport,
// then transport equivalence). Results, with every failed test's id, are written
// to A2A_TCK_OUT (default ./a2a-tck-results.json, rewritten as each run ends). A2A_TCK_JOBS
// (default 3) runs that many agents at once, each on its own ports and copy of the branch (main's runs one
// at a time beside the others: its webhook receiver binds the fixed localhost:8888). The TCK's venv needs its
// pyproject's dependencies (1.0-dev) and requirements.txt plus python-dotenv,
// aiohttp, pyOpenSSL (main, 0.3.x); pytest-json-report for the counts.
import { spawn, execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const env = process.env;
const AGENTS = ['sut', 'hello', 'executor', 'planner', 'generated', 'python'];
const BINDINGS = ['jsonrpc', 'http_json', 'grpc', 'other'];
const TCK_TIMEOUT_MS = 20 * 60_000;

function fail(message) {
  console.error(`a2a:tck: ${message}`);
  process.exit(2);
}

const repo = env.A2A_TCK_REPO ?? fail('set A2A_TCK_REPO to a clone (or git dir) of github.com/a2aproject/a2a-tck');
const tckPython = env.A2A_TCK_PYTHON ?? join(root, '.venv-tck', 'bin', 'python');
if (!existsSync(tckPython)) fail(`no TCK python at ${tckPython}: set A2A_TCK_PYTHON to a venv with the TCK's requirements`);
const branches = (env.A2A_TCK_BRANCHES ?? '1.0-dev,main,0.3.x').split(',').filter(Boolean);
const agents = (env.A2A_TCK_AGENTS ?? AGENTS.join(',')).split(',').filter(Boolean);
for (const a of agents) if (!AGENTS.includes(a)) fail(`unknown agent "${a}" in A2A_TCK_AGENTS (known: ${AGENTS.join(', ')})`);
const work = mkdtempSync(join(tmpdir(), 'a2a-tck-'));
const outFile = resolve(env.A2A_TCK_OUT ?? 'a2a-tck-results.json');

function git(...args) {
  return execFileSync('git', ['-C', repo, ...args], { encoding: 'utf8' }).trim();
}

/** The branch's commit: a local branch, or the remote's in an ordinary clone. */
function resolveBranch(branch) {
  for (const ref of [branch, `origin/${branch}`]) {
    try {
      return { ref, commit: git('rev-parse', '--verify', '--quiet', `${ref}^{commit}`) };
    } catch {
      // try the next form
    }
  }
  return fail(`branch ${branch} not found in ${repo}`);
}

const kinds = new Map();
/** The branch's kind (1.0, main, 0.3), from a first extraction. */
function extractKind(branch) {
  if (!kinds.has(branch)) kinds.set(branch, extract(branch, 'probe').kind);
  return kinds.get(branch);
}

function extract(branch, agent) {
  const { ref, commit } = resolveBranch(branch);
  const dir = join(work, `tck-${branch}-${agent}`);
  mkdirSync(dir, { recursive: true });
  const archive = execFileSync('git', ['-C', repo, 'archive', '--format=tar', ref], { maxBuffer: 512 * 1024 * 1024 });
  execFileSync('tar', ['-x', '-C', dir], { input: archive });
  const runner = readFileSync(join(dir, 'run_tck.py'), 'utf8');
  // main and 0.3.x take --sut-url and categories; 0.3.x's JSON-RPC client calls the v0.3 method names.
  const legacy = runner.includes('"--sut-url"');
  const jsonrpcClient = join(dir, 'tck', 'transport', 'jsonrpc_client.py');
  const v03 = legacy && existsSync(jsonrpcClient) && readFileSync(jsonrpcClient, 'utf8').includes('"message/send"');
  return { branch, commit, dir, kind: v03 ? '0.3' : legacy ? 'main' : '1.0' };
}

function freePort() {
  return new Promise((ok, ko) => {
    const server = createServer();
    server.once('error', ko);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => ok(port));
    });
  });
}

function run(cmd, args, options = {}) {
  return new Promise((ok, ko) => {
    const child = spawn(cmd, args, { stdio: ['ignore', 'pipe', 'pipe'], ...options });
    let output = '';
    child.stdout.on('data', (d) => (output += d));
    child.stderr.on('data', (d) => (output += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? TCK_TIMEOUT_MS);
    child.on('error', ko);
    child.on('close', (code) => {
      clearTimeout(timer);
      ok({ code, output });
    });
  });
}

async function must(cmd, args, options) {
  const { code, output } = await run(cmd, args, options);
  if (code !== 0) fail(`${cmd} ${args.join(' ')} exited ${code}:\n${output.slice(-2000)}`);
  return output;
}

/** A project made as a user makes one: create project, add agent, npm install, npm run build. */
async function generateProject() {
  const base = join(work, 'generated');
  mkdirSync(base);
  const cli = join(root, 'cli', 'bin', 'run.js');
  await must('node', [cli, 'create', 'project', 'tckgen'], { cwd: base });
  const project = join(base, 'tckgen');
  await must('node', [cli, 'add', 'agent', 'helper', '--description', 'Answers questions', '--no-interactive'], { cwd: project });
  await must('npm', ['install', '--no-audit', '--no-fund'], { cwd: project });
  await must('npm', ['run', 'build'], { cwd: project });
  return project;
}

async function startAgent(agent, tck, project) {
  const port = await freePort();
  const grpcPort = agent === 'sut' ? port + 1 : await freePort();
  const ours = {
    ...env,
    A2A_VALIDATION_MODE: 'disabled',
    A2A_PUSH_ALLOWED_HOSTS: '*',
    A2A_GRPC_PORT: String(grpcPort),
    LOG_LEVEL: 'error',
  };
  let cmd;
  let args;
  let options = {};
  if (agent === 'sut') {
    cmd = 'node';
    args = [join(root, 'dist', 'bench', 'a2a-tck', 'sut.js'), String(port)];
    options = { env: { ...env, A2A_TCK_SUT: tck.kind === '1.0' ? '' : tck.kind } };
  } else if (agent === 'generated') {
    cmd = 'npm';
    args = ['run', '-s', 'cli', '--', 'serve', 'agent', '--module', 'dist/agents/helper/app.js', '--a2a-only', '--port', String(port)];
    options = { cwd: project, env: ours };
  } else if (agent === 'python') {
    const python = tck.kind === '0.3' ? env.A2A_TCK_PY03_PYTHON : env.FRAMEWORK_A2A_PYTHON;
    if (!python)
      return { skipped: `set ${tck.kind === '0.3' ? 'A2A_TCK_PY03_PYTHON (a2a-sdk[http-server,grpc] 0.3.x)' : 'FRAMEWORK_A2A_PYTHON (a2a-sdk 1.x)'}` };
    cmd = python;
    args =
      tck.kind === '0.3'
        ? [join(root, 'test', 'a2a', 'fixtures', 'a2a_python03_server.py'), String(port), String(grpcPort)]
        : [join(root, 'test', 'a2a', 'fixtures', 'a2a_python_server.py'), 'ALL', String(port), String(grpcPort)];
  } else {
    cmd = 'node';
    args = [join(root, 'cli', 'bin', 'run.js'), 'serve', 'agent', '--example', agent, '--a2a-only', '--port', String(port)];
    options = { env: ours };
  }
  // Its own process group, so `npm run` and what it starts stop together.
  const child = spawn(cmd, args, { cwd: root, stdio: ['ignore', 'ignore', 'pipe'], detached: true, ...options });
  let stderr = '';
  child.stderr.on('data', (d) => (stderr = (stderr + d).slice(-4000)));
  const stop = () => {
    try {
      process.kill(-child.pid, 'SIGTERM');
    } catch {
      // already gone
    }
  };
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline && child.exitCode === null) {
    try {
      const res = await fetch(`http://127.0.0.1:${port}/.well-known/agent-card.json`);
      if (res.ok) return { port, stop };
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  stop();
  return { skipped: `did not come up: ${stderr.trim().split('\n').slice(-3).join(' | ') || 'no output'}` };
}

/** pytest-json-report files → counts per binding and the ids of failed tests. */
function tally(reports) {
  const counts = Object.fromEntries([...BINDINGS, 'equivalence', 'total'].map((b) => [b, { passed: 0, failed: 0, skipped: 0 }]));
  const failed = [];
  for (const { file, binding } of reports) {
    if (!existsSync(file)) continue;
    for (const test of JSON.parse(readFileSync(file, 'utf8')).tests ?? []) {
      const outcome = { passed: 'passed', xpassed: 'passed', failed: 'failed', error: 'failed', skipped: 'skipped', xfailed: 'skipped' }[test.outcome];
      if (!outcome) continue;
      const b = binding ?? bindingOf(test.nodeid);
      counts[b][outcome] += 1;
      counts.total[outcome] += 1;
      if (outcome === 'failed') failed.push(binding ? `${binding}: ${test.nodeid}` : test.nodeid);
    }
  }
  return { counts, failed };
}

/** 1.0-dev parametrizes a test per transport ("[CORE-SEND-001-grpc]", "[jsonrpc]") or keeps it in a transport's folder. */
function bindingOf(nodeid) {
  const param = /[[-](grpc|jsonrpc|http_json)\]$/.exec(nodeid);
  if (param) return param[1];
  const folder = /tests\/compatibility\/(grpc|jsonrpc|http_json)\//.exec(nodeid);
  return folder ? folder[1] : 'other';
}

async function runTck(tck, port) {
  if (tck.kind === '1.0') {
    const file = join(work, `report-${tck.branch}-${port}.json`);
    const { code, output } = await run(
      tckPython,
      ['run_tck.py', '--sut-host', `http://127.0.0.1:${port}`, '--', '--json-report', `--json-report-file=${file}`],
      { cwd: tck.dir },
    );
    return { code, output, reports: [{ file }] };
  }
  const reportsDir = join(tck.dir, 'reports');
  if (existsSync(reportsDir)) for (const f of readdirSync(reportsDir)) if (f.endsWith('_results.json')) rmSync(join(reportsDir, f));
  // localhost, not 127.0.0.1: the main branch's card check flags 127.0.0.1 as an internal address.
  const { code, output } = await run(
    tckPython,
    ['run_tck.py', '--sut-url', `http://localhost:${port}`, '--category', 'all', '--transports', 'jsonrpc,grpc,rest'],
    { cwd: tck.dir },
  );
  const reports = [];
  for (const category of ['mandatory', 'capabilities', 'quality', 'features']) {
    for (const [tr, binding] of [
      ['jsonrpc', 'jsonrpc'],
      ['rest', 'http_json'],
      ['grpc', 'grpc'],
    ]) {
      reports.push({ file: join(reportsDir, `${category}_${tr}_results.json`), binding });
    }
  }
  reports.push({ file: join(reportsDir, 'transport-equivalence_results.json'), binding: 'equivalence' });
  return { code, output, reports };
}

const cell = (c) => `${c.passed}/${c.failed}/${c.skipped}`;

function table(tck, rows) {
  const legacy = tck.kind !== '1.0';
  const cols = legacy ? ['jsonrpc', 'http_json', 'grpc', 'equivalence'] : ['jsonrpc', 'http_json', 'grpc', 'other'];
  const names = { jsonrpc: 'JSON-RPC', http_json: 'HTTP+JSON', grpc: 'gRPC', other: 'card/other', equivalence: 'equivalence' };
  const lines = [
    `TCK ${tck.branch} (${tck.commit.slice(0, 7)}), passed/failed/skipped${legacy ? ', --category all per transport' : ''}`,
    `| agent | total | ${cols.map((c) => names[c]).join(' | ')} |`,
    `|---|---|${cols.map(() => '---').join('|')}|`,
  ];
  for (const row of rows) {
    lines.push(
      row.skipped
        ? `| ${row.agent} | not run: ${row.skipped} |`
        : `| ${row.agent} | ${cell(row.counts.total)} | ${cols.map((c) => cell(row.counts[c])).join(' | ')} |`,
    );
  }
  return lines.join('\n');
}

/** Runs `work` over `items`, at most `limit` at a time. */
async function pool(items, limit, work) {
  let next = 0;
  const lanes = Array.from({ length: Math.min(limit, items.length) }, async () => {
    while (next < items.length) await work(items[next++]);
  });
  await Promise.all(lanes);
}

if (!existsSync(join(root, 'dist', 'bench', 'a2a-tck', 'sut.js'))) fail('build first: npm run build');
const jobs = Number(env.A2A_TCK_JOBS ?? 3);
if (!Number.isInteger(jobs) || jobs < 1) fail(`A2A_TCK_JOBS must be a whole number ≥ 1, not "${env.A2A_TCK_JOBS}"`);
const running = new Set();
for (const signal of ['SIGINT', 'SIGTERM']) {
  process.on(signal, () => {
    for (const stop of running) stop();
    process.exit(130);
  });
}
let project;
if (agents.includes('generated')) {
  console.error('a2a:tck: generating a project (create project, add agent, npm install, npm run build)...');
  project = await generateProject();
}
// Every run gets its own copy of the branch: main and 0.3.x write their reports inside the checkout.
// The main branch's push-notification tests start their webhook receiver on the fixed localhost:8888, so two
// main runs at once would take each other's notifications: they get a lane of their own, one at a time.
const runs = branches.flatMap((branch) => agents.map((agent) => ({ branch, agent })));
const mainRuns = runs.filter(({ branch }) => extractKind(branch) === 'main');
const otherRuns = runs.filter((run) => !mainRuns.includes(run));
const done = new Map();
const results = () =>
  branches.map((branch) => ({
    branch,
    commit: done.get(`${branch} ${agents[0]}`)?.commit,
    rows: agents.filter((agent) => done.has(`${branch} ${agent}`)).map((agent) => done.get(`${branch} ${agent}`).row),
  }));
let problems = 0;
const runOne = async ({ branch, agent }) => {
  const tck = extract(branch, agent);
  console.error(`a2a:tck: ${branch} × ${agent}...`);
  const started = await startAgent(agent, tck, project);
  let row;
  if (started.skipped) {
    problems += 1;
    row = { agent, skipped: started.skipped };
  } else {
    running.add(started.stop);
    const t0 = Date.now();
    try {
      const { code, output, reports } = await runTck(tck, started.port);
      const { counts, failed } = tally(reports);
      if (counts.total.passed + counts.total.failed + counts.total.skipped === 0) {
        problems += 1;
        row = { agent, skipped: `the TCK ran no test (exit ${code}): ${output.trim().split('\n').slice(-2).join(' | ')}` };
      } else {
        row = { agent, counts, failed, seconds: Math.round((Date.now() - t0) / 1000) };
      }
    } finally {
      started.stop();
      running.delete(started.stop);
    }
  }
  done.set(`${branch} ${agent}`, { commit: tck.commit, kind: tck.kind, row });
  console.error(`a2a:tck: ${branch} × ${agent} done${row.counts ? `: ${cell(row.counts.total)} in ${row.seconds} s` : `, ${row.skipped}`}`);
  writeFileSync(outFile, `${JSON.stringify(results(), null, 2)}\n`);
};
await Promise.all([pool(mainRuns, 1, runOne), pool(otherRuns, Math.max(1, jobs - (mainRuns.length > 0 ? 1 : 0)), runOne)]);
for (const branch of branches) {
  const first = done.get(`${branch} ${agents[0]}`);
  console.log(
    `\n${table(
      { branch, commit: first.commit, kind: first.kind },
      agents.map((agent) => done.get(`${branch} ${agent}`).row),
    )}`,
  );
}
console.log(`\nEvery failed test, per branch and agent: ${outFile}`);
rmSync(work, { recursive: true, force: true });
process.exit(problems ? 1 : 0);
