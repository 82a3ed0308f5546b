import { input } from '@inquirer/prompts';
import { FrameworkError } from '../core/framework-error.js';
import type { TaskAnswer } from './add-agent.js';
import type { SkillAnswer } from './agent-card-file.js';
import { validateTaskName } from './scaffold-names.js';

/** Where the prompts read and write; default the process's terminal. */
export interface PromptStreams {
  input?: NodeJS.ReadableStream;
  output?: NodeJS.WritableStream;
  signal?: AbortSignal;
}

/**
 * Asks for the tasks, then the skills, of a new agent: a name and a
 * description each, repeated until an empty name.
 *
 * @example
 * const { tasks, skills } = await promptAgentAnswers({ input: process.stdin, output: process.stdout });
 */
export async function promptAgentAnswers(options: PromptStreams = {}): Promise<{ tasks: TaskAnswer[]; skills: SkillAnswer[] }> {
  try {
    return await ask(options);
  } catch (error) {
    // Ctrl+C (or a closed input) ends the questions: nothing has been written yet.
    if (error instanceof Error && (error.name === 'ExitPromptError' || error.name === 'AbortPromptError')) {
      throw new FrameworkError({ code: 'aborted', message: 'Stopped before the agent was created; nothing was written.', cause: error });
    }
    throw error;
  }
}

async function ask(options: PromptStreams): Promise<{ tasks: TaskAnswer[]; skills: SkillAnswer[] }> {
  const context = { ...options, clearPromptOnDone: false };
  const tasks: TaskAnswer[] = [];
  for (;;) {
    const name = (
      await input(
        {
          message: tasks.length === 0 ? 'Task name (lower case, e.g. answer; empty to finish):' : 'Another task name (empty to finish):',
          validate: (value) => validTaskName(value.trim(), tasks),
        },
        context,
      )
    ).trim();
    if (name === '') break;
    const description = (await input({ message: `What does "${name}" do?`, default: name }, context)).trim();
    tasks.push({ name, description });
  }
  const skills: SkillAnswer[] = [];
  for (;;) {
    const name = (
      await input({ message: skills.length === 0 ? 'Skill for the agent card (empty to finish):' : 'Another skill (empty to finish):' }, context)
    ).trim();
    if (name === '') break;
    const description = (await input({ message: `Describe the skill "${name}":`, default: name }, context)).trim();
    skills.push({ name, description });
  }
  return { tasks, skills };
}

function validTaskName(name: string, tasks: readonly TaskAnswer[]): true | string {
  if (name === '') return true;
  if (tasks.some((task) => task.name === name)) return `"${name}" is already a task; give another name.`;
  try {
    validateTaskName({ name });
    return true;
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  }
}

/**
 * Reads `name:description` as given to `--task` or `--skill` (the
 * description may itself hold colons; without one it is the name).
 *
 * @example
 * parseNamedPair({ value: 'greet:Greets the user', flag: '--task' }); // { name: 'greet', description: 'Greets the user' }
 */
export function parseNamedPair(options: { value: string; flag: string }): { name: string; description: string } {
  const at = options.value.indexOf(':');
  const name = (at < 0 ? options.value : options.value.slice(0, at)).trim();
  const description = (at < 0 ? '' : options.value.slice(at + 1)).trim();
  if (name === '') {
    throw new FrameworkError({
      code: 'invalid_request',
      message: `${options.flag} ${JSON.stringify(options.value)} has no name; write ${options.flag} "<name>:<description>".`,
    });
  }
  return { name, description: description || name };
}
