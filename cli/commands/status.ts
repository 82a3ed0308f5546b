import { resolve } from 'node:path';
import { Flags } from '@oclif/core';
import { JsonCommand } from '../json-command.js';
import type { StackStatus } from '../../runtime/supervisor/stack-status.js';
import { failWith } from '../fail-with.js';
import { formatTable } from '../format-table.js';
import { remoteText } from '../remote-text.js';
import { terminalText } from '../../runtime/core/terminal-text.js';

export default class Status extends JsonCommand {
  static override description = "Show the stack of a project: each service's pid, port, health (GET /health asked now) and uptime.";

  static override examples = ['<%= config.bin %> status', '<%= config.bin %> status --dir projects/demo --json'];

  static override enableJsonFlag = true;

  static override flags = {
    dir: Flags.directory({ description: 'project root (default: the current directory)', exists: true }),
  };

  async run(): Promise<StackStatus> {
    const { flags } = await this.parse(Status);
    const root = resolve(flags.dir ?? process.cwd());
    let status: StackStatus;
    try {
      const { readContainerState, stackStatus } = await import('../stack-state.js');
      const containers = readContainerState({ root });
      // Docker's helpers (and execa) are loaded only for a stack of containers.
      status = containers
        ? await (await import('../../runtime/supervisor/compose-stack.js')).composeStatus({ root, state: containers })
        : await stackStatus({ root });
    } catch (error) {
      failWith(this, error);
    }
    if (!this.jsonEnabled()) {
      if (status.services.length === 0) {
        this.log(`Nothing is running in ${root}. Start the stack with: framework-cli up`);
      } else {
        // Names and URLs come from files a service may have written: shown, never interpreted (plain escapes keep the columns aligned).
        const cell = (text: string) => terminalText(text, { singleLine: true });
        const rows = status.services.map((s) => [
          cell(s.name),
          s.pid ?? '-',
          s.port,
          cell(s.url),
          cell(s.health),
          s.uptimeSeconds === null ? '-' : formatUptime(s.uptimeSeconds),
          s.restarts,
        ]);
        this.log(formatTable({ head: ['SERVICE', 'PID', 'PORT', 'URL', 'HEALTH', 'UPTIME', 'RESTARTS'], rows }));
        this.log(
          `\n${status.running ? (status.supervisorPid === null ? `Running in containers (${status.status}).` : `Running (supervisor pid ${String(status.supervisorPid)}, ${status.status}).`) : `Not running (${status.status}).`}`,
        );
        if (status.error) this.log(`Error: ${remoteText(status.error.message)}`);
      }
    }
    return status;
  }
}

function formatUptime(seconds: number): string {
  if (seconds < 60) return `${seconds}s`;
  if (seconds < 3600) return `${Math.floor(seconds / 60)}m${String(seconds % 60).padStart(2, '0')}s`;
  return `${Math.floor(seconds / 3600)}h${String(Math.floor((seconds % 3600) / 60)).padStart(2, '0')}m`;
}
