import { join, resolve } from 'node:path';
import { Flags } from '@oclif/core';
import { JsonCommand } from '../json-command.js';
import { ConfigError } from '../../runtime/core/errors/config-error.js';
import type { ServiceSpec } from '../../runtime/supervisor/project-file.js';
import type { SupervisorEvent } from '../../runtime/supervisor/supervisor-event.js';
import { SupervisorError } from '../../runtime/supervisor/supervisor-error.js';
import { stackToolChoiceHint } from '../../runtime/model/tool-choice-hint.js';
import { failWith } from '../fail-with.js';
import { formatTable } from '../format-table.js';
import { remoteText } from '../remote-text.js';
import { terminalJson } from '../../runtime/core/terminal-text.js';

/** One row of the table `up` prints (and of its JSON `services`). */
export interface UpService {
  name: string;
  port: number;
  url: string;
  state: string;
  pid: number | null;
}

export interface UpResult {
  services: UpService[];
  detached: boolean;
  containers?: boolean;
  stopped?: boolean;
}

export default class Up extends JsonCommand {
  static override description =
    'Start the services of the project (.framework/project.json) as child processes in dependency order, each once the ones before it answer GET /health; ' +
    'restart crashed ones with back-off, and stop everything in reverse order on Ctrl+C. With --detach the stack runs in the background ' +
    '(see status, logs, down); with --example tutorial it runs the tutorial (policy engine, Guardian, executor, planner, web interface) instead, with --example trading the trading example (policy engine, Guardian, trader).';

  static override examples = [
    '<%= config.bin %> up',
    '<%= config.bin %> up --detach --json',
    '<%= config.bin %> up --example tutorial --detach',
    '<%= config.bin %> up --example tutorial --port-offset 1000',
    '<%= config.bin %> up --example trading',
    '<%= config.bin %> up --containers --dir projects/demo',
    '<%= config.bin %> up --containers --detach --scale planner=2 --json',
  ];

  static override enableJsonFlag = true;

  /** Attached, one JSON line per event then the result: the whole output is NDJSON. */
  static override jsonLines = true;

  static override flags = {
    example: Flags.string({ description: "run a built-in stack instead of the project's", options: ['tutorial', 'trading'] }),
    containers: Flags.boolean({
      description: "run the project's compose.yaml with docker compose instead of child processes",
      default: false,
      exclusive: ['example'],
    }),
    scale: Flags.string({
      description: 'with --containers: run this many replicas of a service (service=n; repeatable); they share sessions through Redis',
      multiple: true,
      dependsOn: ['containers'],
    }),
    detach: Flags.boolean({ char: 'd', description: 'run the stack in the background and return once every service is healthy', default: false }),
    dir: Flags.directory({ description: 'project root (default: the current directory)', exists: true }),
    'port-offset': Flags.integer({
      description: 'shift every port of --example tutorial by this much (default: FRAMEWORK_PORT_OFFSET, else 0)',
      min: -8000,
      max: 50000,
      dependsOn: ['example'],
    }),
    'health-timeout': Flags.integer({
      description: 'seconds each service may take to answer its health check (default 60; 180 for the model runtime)',
      min: 1,
    }),
  };

  async run(): Promise<UpResult> {
    const { flags } = await this.parse(Up);
    const root = resolve(flags.dir ?? process.cwd());
    const cliPath = join(this.config.root, 'cli', 'bin', 'run.js');
    const healthTimeoutMs = flags['health-timeout'] ? flags['health-timeout'] * 1000 : undefined;
    try {
      const { ensureNoLiveStack } = await import('../../runtime/supervisor/run-state.js');
      ensureNoLiveStack({ root });
      if (flags.containers) return await this.#containers({ root, detach: flags.detach, scale: parseScale(flags.scale ?? []), healthTimeoutMs });
      const [
        { checkPorts },
        { loadProject },
        { runAttached },
        { requireAgents },
        { runBuild },
        { startDetached },
        { startOrder },
        { prepareTradingStack, prepareTutorialStack },
      ] = await Promise.all([
        import('../../runtime/supervisor/check-ports.js'),
        import('../../runtime/supervisor/load-project.js'),
        import('../../runtime/supervisor/run-attached.js'),
        import('../../runtime/supervisor/require-agents.js'),
        import('../../runtime/supervisor/run-build.js'),
        import('../../runtime/supervisor/start-detached.js'),
        import('../../runtime/supervisor/start-order.js'),
        import('../../runtime/supervisor/tutorial-stack.js'),
      ]);
      let services: ServiceSpec[];
      let toolHint: string | undefined;
      let build: string[] | undefined;
      let fix: string | undefined;
      if (flags.example === 'tutorial') {
        const portOffset = flags['port-offset'] ?? parseOffset(process.env.FRAMEWORK_PORT_OFFSET);
        services = prepareTutorialStack({ root, toolkitRoot: this.config.root, portOffset });
        fix = "shift the tutorial's ports with --port-offset <n> (or FRAMEWORK_PORT_OFFSET)";
      } else if (flags.example === 'trading') {
        const portOffset = flags['port-offset'] ?? parseOffset(process.env.FRAMEWORK_PORT_OFFSET);
        services = prepareTradingStack({ toolkitRoot: this.config.root, portOffset });
        fix = "shift the example's ports with --port-offset <n> (or FRAMEWORK_PORT_OFFSET)";
      } else {
        const project = loadProject({ root });
        requireAgents({ project, root });
        services = project.services;
        // A project's agents (each made with tools) on a model that never chooses a tool are told so once the stack is up.
        toolHint = stackToolChoiceHint(services);
        build = project.build;
      }
      startOrder({ services });
      await checkPorts({ services, ...(fix ? { fix } : {}) });
      if (build) await runBuild({ root, command: build });
      if (flags.detach) {
        const controller = new AbortController();
        const abort = () => controller.abort();
        process.once('SIGINT', abort);
        try {
          const state = await startDetached({ root, cliPath, services, signal: controller.signal, ...(healthTimeoutMs ? { healthTimeoutMs } : {}) });
          const rows = state.services.map((s) => ({ name: s.name, port: s.port, url: s.url, state: s.state, pid: s.pid }));
          if (!this.jsonEnabled()) {
            this.log(table(rows));
            this.log(
              `\nThe stack runs in the background (supervisor pid ${state.supervisorPid}). See it with: framework-cli status; stop it with: framework-cli down${toolHint ? `\n\nNote: ${toolHint}` : ''}`,
            );
          }
          return { services: rows, detached: true };
        } finally {
          process.off('SIGINT', abort);
        }
      }
      const width = Math.max(2, ...services.map((s) => s.name.length));
      const outcome = await runAttached({
        root,
        cliPath,
        services,
        ...(healthTimeoutMs ? { healthTimeoutMs } : {}),
        onEvent: (event) => this.#print(event, width),
        onReady: (ready) => {
          const rows = ready.map((s) => ({ name: s.name, port: s.port, url: s.url, state: s.state, pid: s.pid ?? null }));
          if (this.jsonEnabled()) process.stdout.write(`${terminalJson({ type: 'ready', services: rows })}\n`);
          else this.log(`\n${table(rows)}\n\nEvery service is healthy; Ctrl+C stops the stack.\n${toolHint ? `\nNote: ${toolHint}\n` : ''}`);
        },
      });
      if (outcome.reason === 'gave_up') {
        throw new SupervisorError({ code: 'service_gave_up', message: outcome.message, service: outcome.service, lastLines: outcome.lastLines });
      }
      const rows = outcome.services.map((s) => ({ name: s.name, port: s.port, url: s.url, state: s.state, pid: null }));
      return { services: rows, detached: false, stopped: true };
    } catch (error) {
      failWith(this, error);
    }
  }

  /**
   * `up --containers`: packs the toolkit into vendor/, builds the images,
   * starts the containers in health order; detached, waits until all are
   * healthy and answers the same rows as for processes (pid null).
   */
  async #containers(options: { root: string; detach: boolean; scale: Record<string, number>; healthTimeoutMs: number | undefined }): Promise<UpResult> {
    const { root, detach } = options;
    const [
      { findCompose },
      { composeStatus, containerStatus },
      { checkDocker, composeUp, findComposeFile },
      { readContainerState },
      { packToolkit },
      { loadProject },
      { requireAgents },
    ] = await Promise.all([
      import('../../runtime/supervisor/compose-command.js'),
      import('../../runtime/supervisor/compose-stack.js'),
      import('../../runtime/supervisor/compose-up.js'),
      import('../../runtime/supervisor/container-state.js'),
      import('../../runtime/supervisor/pack-toolkit.js'),
      import('../../runtime/supervisor/load-project.js'),
      import('../../runtime/supervisor/require-agents.js'),
    ]);
    const previous = readContainerState({ root });
    if (previous && (await containerStatus({ project: previous.project })).some((c) => c.state === 'running')) {
      throw new SupervisorError({
        code: 'supervisor_failed',
        message: `The containers of ${root} are already up (see framework-cli status); stop them with framework-cli down first.`,
      });
    }
    const loaded = loadProject({ root });
    requireAgents({ project: loaded, root });
    await checkDocker();
    const file = findComposeFile({ root });
    const compose = await findCompose();
    const project = loaded.name;
    await packToolkit({ toolkitRoot: this.config.root, projectRoot: root });
    const state = await composeUp({
      root,
      file,
      compose,
      project,
      detach,
      scale: options.scale,
      output: this.jsonEnabled() ? 'stderr' : 'inherit',
      ...(options.healthTimeoutMs ? { healthTimeoutMs: options.healthTimeoutMs } : {}),
    });
    if (!detach) return { services: [], detached: false, containers: true, stopped: true };
    const status = await composeStatus({ root, state });
    const rows = status.services.map((s) => ({ name: s.name, port: s.port, url: s.url, state: s.health === 'ok' ? 'healthy' : s.health, pid: null }));
    if (!this.jsonEnabled()) {
      this.log(table(rows));
      this.log(`\nThe containers run in the background (Compose project ${project}). See them with: framework-cli status; stop them with: framework-cli down`);
    }
    return { services: rows, detached: true, containers: true };
  }

  /** Under --json one NDJSON line per event; otherwise service lines prefixed with the service's name. */
  #print(event: SupervisorEvent, width: number): void {
    if (this.jsonEnabled()) {
      process.stdout.write(`${terminalJson(event)}\n`);
      return;
    }
    const say = (text: string) => this.log(`${'up'.padEnd(width)} | ${text}`);
    switch (event.type) {
      case 'log':
        // A service's output holds what agents and models wrote: shown, never interpreted.
        this.log(`${event.service.padEnd(width)} | ${remoteText(event.line, { singleLine: true })}`);
        break;
      case 'starting':
        if (event.attempt === 1) say(`starting ${event.service} on port ${event.port}`);
        break;
      case 'healthy':
        say(`${event.service} is healthy at ${event.url}`);
        break;
      case 'crashed':
        say(
          `${event.service} stopped unexpectedly (${event.signal ? `signal ${event.signal}` : `exit code ${String(event.exitCode)}`}; ${event.crashes} crash(es) within a minute)`,
        );
        break;
      case 'restarted':
        say(`${event.service} restarted after ${event.delayMs} ms (pid ${String(event.pid)})`);
        break;
      case 'gave_up':
        say(`giving up on ${event.service}: ${event.reason}; stopping the stack`);
        break;
      case 'stopped':
        say(`${event.service} stopped`);
        break;
      default: {
        const unknown: never = event;
        throw new Error(`unknown supervisor event ${JSON.stringify(unknown)}`);
      }
    }
  }
}

function table(rows: readonly UpService[]): string {
  return formatTable({ head: ['SERVICE', 'PORT', 'URL', 'STATE'], rows: rows.map((r) => [r.name, r.port, r.url, r.state]) });
}

/** `--scale planner=2` flags as a map; a bad one is a ConfigError naming it. */
function parseScale(values: readonly string[]): Record<string, number> {
  const scale: Record<string, number> = {};
  for (const value of values) {
    const match = /^([a-z0-9][a-z0-9._-]*)=(\d{1,2})$/.exec(value);
    if (!match || Number(match[2]) < 1) {
      throw new ConfigError({
        issues: [{ variable: '--scale', message: `${JSON.stringify(value)} is not service=n (n from 1 to 99), for example planner=2` }],
      });
    }
    scale[match[1]!] = Number(match[2]);
  }
  return scale;
}

function parseOffset(value: string | undefined): number {
  if (value === undefined || value.trim() === '') return 0;
  const offset = Number(value);
  if (!Number.isInteger(offset) || offset < -8000 || offset > 50000) {
    throw new ConfigError({
      issues: [{ variable: 'FRAMEWORK_PORT_OFFSET', message: `${JSON.stringify(value)} is not a whole number between -8000 and 50000 (or use --port-offset)` }],
    });
  }
  return offset;
}
