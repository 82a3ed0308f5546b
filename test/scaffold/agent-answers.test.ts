import { PassThrough, Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { FrameworkError } from '../../runtime/core/framework-error.js';
import { parseNamedPair, promptAgentAnswers } from '../../runtime/scaffold/agent-answers.js';

/**
 * A scripted terminal for @inquirer prompts: `next(pattern)` waits until the
 * screen shows `pattern` after what was already matched, `type(line)` types a
 * line. The output ignores `end()`: each prompt ends the stream it pipes to,
 * as a terminal would not be.
 */
class Screen extends Writable {
  text = '';
  override _write(chunk: Buffer, _encoding: BufferEncoding, done: () => void): void {
    this.text += chunk.toString();
    done();
  }
  override end(): this {
    return this;
  }
}

function terminal() {
  const input = new PassThrough();
  const output = new Screen();
  let offset = 0;
  return {
    input,
    output,
    screen: () => output.text,
    async next(pattern: RegExp): Promise<void> {
      const deadline = Date.now() + 5_000;
      for (;;) {
        const match = pattern.exec(output.text.slice(offset));
        if (match) {
          offset += match.index + match[0].length;
          return;
        }
        if (Date.now() > deadline) throw new Error(`the screen never showed ${String(pattern)}:\n${output.text.slice(offset)}`);
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
    },
    type(line: string): void {
      input.write(`${line}\n`);
    },
  };
}

async function converse(term: ReturnType<typeof terminal>, script: readonly [RegExp, string][]): Promise<void> {
  for (const [question, answer] of script) {
    await term.next(question);
    term.type(answer);
  }
}

describe('promptAgentAnswers', () => {
  it('asks for tasks then skills until an empty name', async () => {
    const term = terminal();
    const asked = promptAgentAnswers({ input: term.input, output: term.output });
    await converse(term, [
      [/Task name/, 'greet'],
      [/What does "greet" do\?/, 'Greets the user'],
      [/Another task name/, 'sum-up'],
      [/What does "sum-up" do\?/, 'Sums up a text'],
      [/Another task name/, ''],
      [/Skill for the agent card/, 'Greeting'],
      [/Describe the skill "Greeting"/, 'Says hello'],
      [/Another skill/, ''],
    ]);
    const answers = await asked;
    expect(answers).toEqual({
      tasks: [
        { name: 'greet', description: 'Greets the user' },
        { name: 'sum-up', description: 'Sums up a text' },
      ],
      skills: [{ name: 'Greeting', description: 'Says hello' }],
    });
    expect(term.screen()).toContain('Task name');
    expect(term.screen()).toContain('Skill for the agent card');
  });

  it('re-asks when a task name is not valid', async () => {
    const term = terminal();
    const asked = promptAgentAnswers({ input: term.input, output: term.output });
    await converse(term, [
      [/Task name/, 'Bad Name'],
      // Ctrl+U clears the rejected answer the prompt keeps on its line.
      [/is not valid/, '\u0015good'],
      [/What does "good" do\?/, 'Does good'],
      [/Another task name/, ''],
      [/Skill for the agent card/, ''],
    ]);
    const answers = await asked;
    expect(answers.tasks).toEqual([{ name: 'good', description: 'Does good' }]);
    expect(term.screen()).toMatch(/is not valid/);
  });

  it('ends with an aborted FrameworkError when cancelled', async () => {
    const controller = new AbortController();
    const input = new PassThrough();
    const output = new PassThrough();
    const asked = promptAgentAnswers({ input, output, signal: controller.signal });
    controller.abort();
    const error = await asked.catch((e: unknown) => e);
    expect(FrameworkError.isInstance(error) && error.code).toBe('aborted');
  });
});

describe('parseNamedPair', () => {
  it('splits at the first colon', () => {
    expect(parseNamedPair({ value: 'greet:Greets: the user', flag: '--task' })).toEqual({ name: 'greet', description: 'Greets: the user' });
    expect(parseNamedPair({ value: 'answer', flag: '--task' })).toEqual({ name: 'answer', description: 'answer' });
  });

  it('refuses a pair without a name', () => {
    expect(() => parseNamedPair({ value: ':x', flag: '--skill' })).toThrow(/--skill "<name>:<description>"/);
  });
});
