import { resolve } from 'node:path';
import { Args, Flags } from '@oclif/core';
import { JsonCommand } from '../json-command.js';
import { FrameworkError } from '../../runtime/core/framework-error.js';
import { failWith } from '../fail-with.js';
import { remoteText } from '../remote-text.js';
import { terminalJson } from '../../runtime/core/terminal-text.js';

/** One log line of one service. */
export interface LogLine {
  service: string;
  line: string;
}

export default class Logs extends JsonCommand {
  static override description =
    'Print the last lines of the logs of one or all services of the stack (.framework/run/logs/<service>.log), each prefixed with its service; --follow keeps printing new lines until Ctrl+C.';

  static override examples = [
    '<%= config.bin %> logs',
    '<%= config.bin %> logs planner --lines 100',
    '<%= config.bin %> logs --follow',
    '<%= config.bin %> logs guardian --json',
  ];

  static override enableJsonFlag = true;

  /** With --follow, --json streams one `{service, line}` per line; the final document is one line too. */
  static override jsonLines = true;

  static override args = {
    service: Args.string({ description: 'service whose log to print (default: all)', ignoreStdin: true }),
  };

  static override flags = {
    follow: Flags.boolean({ char: 'f', description: 'keep printing new lines until Ctrl+C (under --json: one JSON line each)', default: false }),
    lines: Flags.integer({ char: 'n', description: 'how many of the last lines to print per service', default: 50, min: 0 }),
    dir: Flags.directory({ description: 'project root (default: the current directory)', exists: true }),
  };

  async run(): Promise<{ lines: LogLine[] }> {
    const { args, flags } = await this.parse(Logs);
    const root = resolve(flags.dir ?? process.cwd());
    const { readContainerState } = await import('../../runtime/supervisor/container-state.js');
    const containers = readContainerState({ root });
    if (containers) return this.#containers({ project: containers.project, root, service: args.service, follow: flags.follow, lines: flags.lines });
    const [{ followFiles, lastLines }, { serviceLogs }] = await Promise.all([
      import('../../runtime/supervisor/log-tail.js'),
      import('../../runtime/supervisor/service-logs.js'),
    ]);
    let logs = serviceLogs({ root });
    try {
      if (args.service !== undefined) {
        const known = logs.map((l) => l.name);
        logs = logs.filter((l) => l.name === args.service);
        if (logs.length === 0) {
          throw new FrameworkError({
            code: 'unknown_service',
            message: `No service "${args.service}" in ${root}; ${known.length > 0 ? `known services: ${known.join(', ')}` : 'no service has a log there yet (start the stack with framework-cli up)'}.`,
          });
        }
      }
    } catch (error) {
      failWith(this, error);
    }
    const width = Math.max(0, ...logs.map((l) => l.name.length));
    const print = logPrinter({ command: this, width, follow: flags.follow });
    const lines: LogLine[] = [];
    for (const log of logs) {
      for (const line of lastLines({ file: log.file, lines: flags.lines })) {
        lines.push({ service: log.name, line });
        print(log.name, line);
      }
    }
    if (logs.length === 0 && !this.jsonEnabled()) this.log(`No logs in ${root} yet; start the stack with: framework-cli up`);
    if (flags.follow) {
      const controller = new AbortController();
      const stop = () => controller.abort();
      process.once('SIGINT', stop);
      process.once('SIGTERM', stop);
      await followFiles({ files: logs, signal: controller.signal, onLine: (service, line) => print(service, line) });
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
    }
    return { lines };
  }

  /** `logs` of a stack of `up --containers`: `docker logs` of each container (a service's replicas as `planner`, `planner-2`). */
  async #containers(options: { project: string; root: string; service: string | undefined; follow: boolean; lines: number }): Promise<{ lines: LogLine[] }> {
    // Docker's helpers (and execa) are loaded only for a stack of containers.
    const { containerLabel, containerStatus, followContainers, lastContainerLines } = await import('../../runtime/supervisor/compose-stack.js');
    let containers: Awaited<ReturnType<typeof containerStatus>> = [];
    try {
      containers = await containerStatus({ project: options.project });
      if (options.service !== undefined) {
        const known = [...new Set(containers.map((c) => c.service))];
        containers = containers.filter((c) => c.service === options.service || containerLabel(c) === options.service);
        if (containers.length === 0) {
          throw new FrameworkError({
            code: 'unknown_service',
            message: `No container of a service "${options.service}" in ${options.root}; known services: ${known.join(', ') || 'none (start them with framework-cli up --containers)'}.`,
          });
        }
      }
    } catch (error) {
      failWith(this, error);
    }
    const width = Math.max(0, ...containers.map((c) => containerLabel(c).length));
    const print = logPrinter({ command: this, width, follow: options.follow });
    const lines: LogLine[] = [];
    for (const container of containers) {
      for (const line of await lastContainerLines({ id: container.id, lines: options.lines })) {
        lines.push({ service: containerLabel(container), line });
        print(containerLabel(container), line);
      }
    }
    if (options.follow) {
      const controller = new AbortController();
      const stop = () => controller.abort();
      process.once('SIGINT', stop);
      process.once('SIGTERM', stop);
      await followContainers({ containers, signal: controller.signal, onLine: print });
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
    }
    return { lines };
  }
}

/**
 * Prints one log line: `service | line`, or under --json with --follow one
 * `{service, line}` JSON line. Logs hold what agents and models wrote, so the
 * line is shown, never interpreted: controls, escape sequences and bidi
 * controls as visible escapes (`\uXXXX` in JSON), each line on its own line.
 */
function logPrinter(options: { command: JsonCommand; width: number; follow: boolean }): (service: string, line: string) => void {
  const { command, width, follow } = options;
  return (service, line) => {
    if (command.jsonEnabled()) {
      if (follow) process.stdout.write(`${terminalJson({ service, line })}\n`);
    } else command.log(`${remoteText(service, { singleLine: true }).padEnd(width)} | ${remoteText(line, { singleLine: true })}`);
  };
}
