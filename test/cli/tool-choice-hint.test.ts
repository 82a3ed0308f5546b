import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stackToolChoiceHint, toolChoiceHint } from '../../runtime/model/tool-choice-hint.js';
import { runCliInProcess } from '../support/cli.js';

// SmolLM2-135M called no tool on its own (bench/model-tools.ts): a new agent's tools were silently never called.
describe('the hint that the default model never chooses a tool (issue 34)', () => {
  let base: string;
  let root: string;

  beforeAll(async () => {
    base = await mkdtemp(join(tmpdir(), 'fc-tool-hint-'));
    await runCliInProcess(['create', 'project', 'demo', '--json'], { cwd: base });
    root = join(base, 'demo');
  }, 60_000);

  afterAll(async () => {
    await rm(base, { recursive: true, force: true });
  });

  it('names the default model and the fix, and says nothing for other models', () => {
    const hint = toolChoiceHint({ model: 'smollm2:latest', agent: 'helper' })!;
    expect(hint).toMatch(
      /smollm2 \(SmolLM2-135M\) is too small to choose tools reliably \(the right tool for 5 of 10 prompts that need one\): with it, agent "helper" often answers in text/,
    );
    expect(hint).toMatch(/tool-capable model served by Ollama/);
    expect(hint).toMatch(/framework-cli model create <name> -f Modelfile/);
    expect(toolChoiceHint({ model: 'qwen2.5:0.5b' })).toBeUndefined();
    expect(toolChoiceHint({ model: undefined })).toBeUndefined();
    const services = [
      { name: 'model', kind: 'model' },
      { name: 'a', kind: 'agent', env: { MODEL_NAME: 'smollm2' } },
      { name: 'b', kind: 'agent', env: { MODEL_NAME: 'llama3.2' } },
    ];
    expect(stackToolChoiceHint(services)).toMatch(/with it, agent "a" often answers in text/);
    expect(stackToolChoiceHint(services.slice(2))).toBeUndefined();
  });

  it('add agent says so where the agent is made', async () => {
    const added = await runCliInProcess(['add', 'agent', 'helper', '--description', 'Helps people', '--no-interactive'], { cwd: root });
    expect(added.code ?? 0).toBe(0);
    expect(added.stdout).toMatch(
      /Note: The model smollm2 \(SmolLM2-135M\) is too small to choose tools reliably \(the right tool for 5 of 10 prompts that need one\): with it, agent "helper" often answers in text/,
    );
  });

  it("chat says so on the first turn with a project's agent", async () => {
    // Nothing listens on the agent's port: the hint comes before the message is sent.
    const chat = await runCliInProcess(['chat', 'helper', '--message', 'What is the weather in Paris?'], { cwd: root });
    expect(chat.stderr).toMatch(
      /is too small to choose tools reliably \(the right tool for 5 of 10 prompts that need one\): with it, agent "helper" often answers in text/,
    );
  });
});
