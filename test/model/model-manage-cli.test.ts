import { spawn } from 'node:child_process';
import { mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { ModelStore, type StoredModel } from '../../runtime/model/model-store.js';
import { startModelServer, type RunningModelServer } from '../../runtime/model/start-model-server.js';
import { runCli, type CliResult } from '../support/cli.js';
import { freePort } from '../support/net.js';
import { CLI, REPO_ROOT } from '../support/processes.js';
import { linkedStore } from './support/linked-store.js';

// Real generation on two shared cores, through the built CLI as child processes.
vi.setConfig({ testTimeout: 180_000 });

let server: RunningModelServer;
let base: StoredModel;
let removeStore: () => Promise<void>;
let work: string;

beforeAll(async () => {
  const linked = await linkedStore();
  base = linked.model;
  removeStore = linked.remove;
  server = await startModelServer({ store: linked.store, host: '127.0.0.1', port: 0 });
  work = await mkdtemp(join(tmpdir(), 'modelfiles-'));
}, 300_000);

afterAll(async () => {
  await server?.close();
  await removeStore?.();
  if (work) await rm(work, { recursive: true, force: true });
});

const cli = (args: string[], host = server.url) => runCli(['model', ...args], { env: { OLLAMA_HOST: host }, timeoutMs: 170_000 });

/** oclif's error text without its line wrapping (` ›   ` at each line). */
const plain = (stderr: string) => stderr.replace(/\s*›\s+/g, ' ').trim();

/** The built CLI with `input` written to its standard input, as a person typing (or a pipe) would. */
function cliWithInput(args: string[], input: string): Promise<CliResult> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [CLI, 'model', ...args], {
      cwd: REPO_ROOT,
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', OLLAMA_HOST: server.url },
      shell: false,
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), 170_000);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
    child.stdin.end(input);
  });
}

describe('model commands against a running model server', () => {
  it('says how to start a server when none answers at OLLAMA_HOST', async () => {
    const nowhere = `127.0.0.1:${await freePort()}`;
    const ps = await cli(['ps'], nowhere);
    expect(ps.code).toBe(1);
    expect(plain(ps.stderr)).toMatch(/Cannot reach the model runtime at http:\/\/127\.0\.0\.1:\d+ \(ECONNREFUSED\)[\s\S]*framework-cli model serve/);
    const json = await cli(['show', 'smollm2', '--json'], nowhere);
    expect(json.code).toBe(1);
    expect(JSON.parse(json.stdout)).toMatchObject({ error: { code: 'model_runtime_unavailable', exit: 1 } });
  });

  it('creates a model from a Modelfile naming a model, and shows it', async () => {
    const modelfile = join(work, 'Modelfile');
    await writeFile(modelfile, '# a pirate\nFROM smollm2\nPARAMETER num_predict 4\nPARAMETER temperature 0\nSYSTEM """You are a pirate.\nAnswer briefly."""\n');
    const created = await cli(['create', 'pirate', '-f', modelfile]);
    expect(created.stderr).toBe('');
    expect(created.code).toBe(0);
    expect(created.stdout.trim().split('\n')).toEqual([`using existing layer sha256:${base.sha256}`, 'writing manifest', 'success']);

    const system = await cli(['show', 'pirate', '--system']);
    expect(system.stdout).toBe('You are a pirate.\nAnswer briefly.\n');
    const parameters = await cli(['show', 'pirate', '--parameters']);
    expect(parameters.stdout.trim().split('\n')).toEqual([`${'num_predict'.padEnd(30)} 4`, `${'temperature'.padEnd(30)} 0`]);
    const file = await cli(['show', 'pirate', '--modelfile']);
    expect(file.stdout).toContain('SYSTEM "You are a pirate.\nAnswer briefly."');
    const summary = await cli(['show', 'pirate']);
    expect(summary.stdout).toMatch(/Model\n\s+architecture\s+llama\n\s+parameters\s+135M\n\s+quantization\s+Q4_1\n\s+parent model\s+smollm2:latest/);
    expect(summary.stdout).toMatch(/Parameters\n\s+num_predict\s+4/);
    const json = await cli(['show', 'pirate', '--json']);
    expect(JSON.parse(json.stdout)).toMatchObject({ system: 'You are a pirate.\nAnswer briefly.', details: { parent_model: 'smollm2:latest' } });
    const both = await cli(['show', 'pirate', '--system', '--template']);
    expect(both.code).toBe(2);
  });

  it('refuses a bad Modelfile or name with the line at fault, and a missing Modelfile with the fix', async () => {
    const bad = join(work, 'Bad');
    await writeFile(bad, 'FROM smollm2\nPARAMETER temprature 1\n');
    const result = await cli(['create', 'x', '-f', bad, '--json']);
    expect(result.code).toBe(1);
    expect(JSON.parse(result.stdout).error.message).toBe("unknown parameter 'temprature'");
    const broken = join(work, 'Broken');
    await writeFile(broken, 'FROM smollm2\nSYTSEM hi\n');
    expect((await cli(['create', 'x', '-f', broken])).stderr).toMatch(/\(line 2\): command must be one of/);
    expect((await cli(['create', 'x', '-f', join(work, 'none')])).stderr).toMatch(/No Modelfile at .*none[\s\S]*-f <file>/);
    expect((await cli(['create', 'bad name', '-f', bad])).code).toBe(2);
    const quantize = await cli(['create', 'x', '-f', join(work, 'Modelfile'), '-q', 'q4_K_M']);
    expect(quantize.stderr).toMatch(/quantize is not supported/);
  });

  it('uploads a local GGUF named by FROM as a blob (once), as the ollama CLI does', async () => {
    // A server with an empty store of its own, so the weights must be uploaded.
    const dir = await mkdtemp(join(tmpdir(), 'models-empty-'));
    const empty = await startModelServer({ store: new ModelStore({ dir }), host: '127.0.0.1', port: 0 });
    try {
      await symlink(base.path, join(work, 'weights.gguf'));
      const modelfile = join(work, 'FromFile');
      await writeFile(modelfile, 'FROM ./weights.gguf\nSYSTEM Be brief.\n');
      const first = await cli(['create', 'local', '-f', modelfile, '--json'], empty.url);
      expect(first.code).toBe(0);
      const digest = `sha256:${base.sha256}`;
      expect(JSON.parse(first.stdout)).toEqual({
        model: 'local',
        files: { 'weights.gguf': digest },
        statuses: ['gathering model components', `copying file ${digest}`, 'parsing GGUF', `using existing layer ${digest}`, 'writing manifest', 'success'],
      });
      const again = await cli(['create', 'local2', '-f', modelfile], empty.url);
      expect(again.stdout).not.toContain('copying file');
      const list = await fetch(`${empty.url}/api/tags`).then((r) => r.json() as Promise<{ models: Array<{ name: string }> }>);
      expect(list.models.map((m) => m.name).sort()).toEqual(['local2:latest', 'local:latest']);
    } finally {
      await empty.close();
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('runs a prompt, streaming the answer, with the created model defaults; ps then lists it', async () => {
    const run = await cli(['run', 'pirate', 'Count', 'from', 'one', 'to', 'ten.']);
    expect(run.code).toBe(0);
    expect(run.stdout.trim().length).toBeGreaterThan(0);
    const json = await cli(['run', 'pirate', 'Count from one to ten.', '--json']);
    const reply = JSON.parse(json.stdout);
    expect(reply).toMatchObject({ model: 'pirate', done_reason: 'length', eval_count: 4 });
    expect(reply.response.length).toBeGreaterThan(0);
    const ps = await cli(['ps']);
    expect(ps.stdout).toMatch(/^NAME\s+ID\s+SIZE\s+PROCESSOR\s+CONTEXT\s+UNTIL\npirate:latest\s+b179c9523d0e\s+98 MB\s+100% CPU\s+2048\s+\d+ minutes from now/);
    const psJson = JSON.parse((await cli(['ps', '--json'])).stdout);
    expect(psJson.models.map((m: { name: string }) => m.name)).toEqual(['pirate:latest']);
    const missing = await cli(['run', 'nope', 'hi']);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/model 'nope' not found[\s\S]*model pull/);
  });

  it('chats interactively over standard input until /bye', async () => {
    const result = await cliWithInput(['run', 'pirate'], 'Hello there\n/clear\n/?\nWhat is two plus two?\n/nonsense\n/bye\nnever read\n');
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    const turns = result.stdout.split('>>> ');
    // A prompt before each line read, up to /bye.
    expect(turns).toHaveLength(7);
    expect(turns[1]!.trim().length).toBeGreaterThan(0);
    expect(turns[2]).toBe('Cleared session context\n');
    expect(turns[3]).toContain('/bye           Exit');
    expect(turns[4]!.trim().length).toBeGreaterThan(0);
    expect(turns[5]).toBe("Unknown command '/nonsense'. Type /? for help\n");
    expect(turns[6]).toBe('');
    // End of input ends the chat too.
    const eof = await cliWithInput(['run', 'pirate'], '');
    expect(eof.code).toBe(0);
    expect(eof.stdout).toBe('>>> \n');
    expect((await cliWithInput(['run', 'pirate', '--json'], '')).code).toBe(2);
  });

  it('takes a multi-line message between """, and /set, /show, /save and /load as ollama run does', async () => {
    const input = [
      '"""Say hello',
      'in two words."""',
      '/set parameter num_predict 3',
      '/set parameter num_predict lots',
      '/set parameter nope 1',
      '/set system "You are terse."',
      '/show system',
      '/show parameters',
      '/show info',
      '/show nonsense',
      'Hi',
      '/save pirate:session',
      '/load nope',
      '/load pirate:session',
      '/bye',
      '',
    ].join('\n');
    const result = await cliWithInput(['run', 'pirate'], input);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    const turns = result.stdout.split('>>> ');
    expect(turns).toHaveLength(15);
    // The two lines went as one message: one continuation prompt, then the answer.
    expect(turns[1]!.startsWith('... ')).toBe(true);
    expect(turns[1]!.slice(4).trim().length).toBeGreaterThan(0);
    expect(turns[2]).toBe("Set parameter 'num_predict' to '3'\n");
    expect(turns[3]).toBe("Couldn't set parameter: invalid int value [lots]\n");
    expect(turns[4]).toBe("Couldn't set parameter: unknown parameter 'nope'\n");
    expect(turns[5]).toBe('Set system message.\n');
    expect(turns[6]).toBe('You are terse.\n');
    expect(turns[7]).toContain('Model defined parameters:');
    expect(turns[7]).toMatch(/User defined parameters:\nnum_predict\s+3\n/);
    expect(turns[8]).toMatch(/^ {2}Model\n {4}architecture\s+llama\n/);
    expect(turns[9]).toContain('/show modelfile');
    expect(turns[10]!.trim().length).toBeGreaterThan(0);
    expect(turns[11]).toBe("Created new model 'pirate:session'\n");
    expect(turns[12]).toMatch(/^Loading model 'nope'\nerror: .*not found/);
    expect(turns[13]).toBe("Loading model 'pirate:session'\n");
    // The saved model carries the session: its system message, parameters and conversation.
    const saved = JSON.parse((await cli(['show', 'pirate:session', '--json'])).stdout) as {
      system: string;
      parameters: string;
      messages: Array<{ role: string; content: string }>;
    };
    expect(saved.system).toBe('You are terse.');
    expect(saved.parameters).toMatch(/num_predict\s+3/);
    expect(saved.messages.map((m) => m.role)).toEqual(['user', 'assistant', 'user', 'assistant']);
    expect(saved.messages[0]!.content).toBe('Say hello\nin two words.');
    expect((await cli(['rm', 'pirate:session'])).code).toBe(0);
  });

  it('copies and removes models', async () => {
    const cp = await cli(['cp', 'pirate', 'pirate:backup']);
    expect(cp.stdout.trim()).toBe("copied 'pirate' to 'pirate:backup'");
    expect(JSON.parse((await cli(['show', 'pirate:backup', '--json'])).stdout).system).toBe('You are a pirate.\nAnswer briefly.');
    const cpMissing = await cli(['cp', 'nope', 'x']);
    expect(cpMissing.code).toBe(1);
    expect(cpMissing.stderr).toMatch(/model "nope" not found/);
    const rmBoth = await cli(['rm', 'pirate', 'pirate:backup', '--json']);
    expect(JSON.parse(rmBoth.stdout)).toEqual({ deleted: ['pirate', 'pirate:backup'] });
    const again = await cli(['rm', 'pirate']);
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(/model 'pirate' not found/);
    const tags = await fetch(`${server.url}/api/tags`).then((r) => r.json() as Promise<{ models: Array<{ name: string }> }>);
    expect(tags.models.map((m) => m.name)).toEqual(['smollm2:latest']);
  });
});
