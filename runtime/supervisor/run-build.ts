import { execa } from 'execa';
import { FrameworkError } from '../core/framework-error.js';
import { serviceEnv } from './service-env.js';

/**
 * Runs a project's build command (argv, no shell) in `root` before its
 * services start; throws a `FrameworkError` (code `build_failed`) with the
 * end of its output when it fails.
 *
 * @example
 * if (project.build) await runBuild({ root, command: project.build });
 */
export async function runBuild(options: { root: string; command: readonly string[] }): Promise<void> {
  const [file, ...args] = options.command;
  if (file === undefined) return;
  const result = await execa(file, args, { cwd: options.root, env: serviceEnv({}), extendEnv: false, shell: false, reject: false, all: true, stdin: 'ignore' });
  if (result.failed) {
    const output = String(result.all ?? '')
      .split('\n')
      .slice(-20)
      .join('\n');
    throw new FrameworkError({
      code: 'build_failed',
      message: `The build (${options.command.join(' ')}) failed: ${result.shortMessage}${output ? `\n${output}` : ''}${/Cannot find module/.test(output) ? '\nRun `npm install` in the project first.' : ''}`,
    });
  }
}
