import { FrameworkError } from '../core/framework-error.js';

/** Project names: what `.framework/project.json`, npm and Compose accept. */
const PROJECT_NAME = /^[a-z0-9][a-z0-9._-]{0,63}$/;
/** Agent names: a folder, a card name, a policy name and (in PascalCase) a class name. */
const AGENT_NAME = /^[a-z][a-z0-9_-]{0,63}$/;
/** Task names: registered as given, called in code through a camelCase function. */
const TASK_NAME = /^[a-z][a-z0-9_-]{0,63}$/;

function refuse(message: string): never {
  throw new FrameworkError({ code: 'invalid_request', message });
}

function checkCommon(name: unknown, what: string): string {
  if (typeof name !== 'string' || name.trim() === '') refuse(`The ${what} name is empty; give one such as "demo".`);
  if (name === '.' || name === '..') refuse(`"${name}" is not a ${what} name; give a plain name such as "demo".`);
  if (/[\\/]/.test(name)) refuse(`The ${what} name "${name}" contains a path separator; give a plain name (use --dir to choose where it goes).`);
  return name;
}

/**
 * Checks a project name: lower case letters, digits, ".", "_", "-", starting
 * with a letter or digit, at most 64 characters. Throws `FrameworkError`
 * (`invalid_request`) saying how to fix it.
 *
 * @example
 * validateProjectName({ name: 'demo' }); // 'demo'
 */
export function validateProjectName(options: { name: unknown }): string {
  const name = checkCommon(options.name, 'project');
  if (!PROJECT_NAME.test(name)) {
    refuse(
      `The project name "${name}" is not valid: use lower-case letters, digits, ".", "_" or "-", starting with a letter or digit (for example "${suggest(name) || 'demo'}").`,
    );
  }
  return name;
}

/**
 * Checks an agent name: lower case letters, digits, "_", "-", starting with a
 * letter, at most 64 characters.
 *
 * @example
 * validateAgentName({ name: 'planner' }); // 'planner'
 */
export function validateAgentName(options: { name: unknown }): string {
  const name = checkCommon(options.name, 'agent');
  // A folder the TypeScript build leaves out (tsc skips node_modules): the agent would never be compiled.
  if (name === 'node_modules')
    refuse('The agent name "node_modules" is not usable: the build skips folders of that name, so the agent would never be compiled. Choose another name.');
  if (!AGENT_NAME.test(name)) {
    refuse(
      `The agent name "${name}" is not valid: use lower-case letters, digits, "_" or "-", starting with a letter (for example "${suggest(name) || 'helper'}").`,
    );
  }
  return name;
}

/**
 * Checks a task name like an agent name; `route_to_task` is reserved for the generated router.
 *
 * @example
 * validateTaskName({ name: 'greet' }); // 'greet'
 */
export function validateTaskName(options: { name: unknown }): string {
  const name = checkCommon(options.name, 'task');
  if (name === 'route_to_task') refuse('The task name "route_to_task" is reserved for the router every agent gets; choose another name.');
  if (!TASK_NAME.test(name)) {
    refuse(
      `The task name "${name}" is not valid: use lower-case letters, digits, "_" or "-", starting with a letter (for example "${suggest(name) || 'answer'}").`,
    );
  }
  return name;
}

/** A lower-case version of `name` that would pass, for the error message. */
function suggest(name: string): string {
  return name
    .toLowerCase()
    .replace(/[^a-z0-9_-]+/g, '-')
    .replace(/^[^a-z]+/, '')
    .replace(/-+$/, '')
    .slice(0, 64);
}

/** `greet-user` → `greetUser`. */
export function camelCase(name: string): string {
  return name.replace(/[-_.]+([a-z0-9])/g, (_, c: string) => c.toUpperCase());
}

/** `greet-user` → `GreetUser`. */
export function pascalCase(name: string): string {
  const camel = camelCase(name);
  return camel.charAt(0).toUpperCase() + camel.slice(1);
}
