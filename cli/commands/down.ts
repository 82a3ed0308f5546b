import { resolve } from 'node:path';
import { Flags } from '@oclif/core';
import { JsonCommand } from '../json-command.js';
import { stopStack, type StopStackResult } from '../../runtime/supervisor/stop-stack.js';
import { failWith } from '../fail-with.js';

export default class Down extends JsonCommand {
  static override description =
    'Stop the stack started with up --detach (or an up running in another terminal): SIGTERM to its supervisor, which stops the services in reverse order; ' +
    'whatever is still alive after 30 s is killed. Saying so and exiting 0 when nothing runs.';

  static override examples = ['<%= config.bin %> down', '<%= config.bin %> down --dir projects/demo --json'];

  static override enableJsonFlag = true;

  static override flags = {
    dir: Flags.directory({ description: 'project root (default: the current directory)', exists: true }),
    timeout: Flags.integer({ description: 'seconds to wait for a clean stop before killing what is left', default: 30, min: 1 }),
  };

  async run(): Promise<StopStackResult> {
    const { flags } = await this.parse(Down);
    const root = resolve(flags.dir ?? process.cwd());
    let result: StopStackResult;
    try {
      result = await stopStack({ root, timeoutMs: flags.timeout * 1000 });
    } catch (error) {
      failWith(this, error);
    }
    if (!this.jsonEnabled()) {
      if (result.stopped.length === 0 && result.killed.length === 0) this.log(`Nothing is running in ${root}.`);
      else {
        this.log(`Stopped ${result.stopped.join(', ') || 'the supervisor'}.`);
        if (result.killed.length > 0) this.log(`Killed after the grace period: pid ${result.killed.join(', ')}.`);
      }
    }
    return result;
  }
}
