import { resolve } from 'node:path';
import { Flags } from '@oclif/core';
import { JsonCommand } from '../json-command.js';
import type { StopStackResult } from '../../runtime/supervisor/stop-stack.js';
import { failWith } from '../fail-with.js';

export default class Down extends JsonCommand {
  static override description =
    'Stop the stack started with up --detach (or an up running in another terminal): SIGTERM to its supervisor, which stops the services in reverse order; ' +
    'whatever is still alive after 30 s is killed. Saying so and exiting 0 when nothing runs. For a stack of up --containers: docker compose down ' +
    '(containers and network go; named volumes with models, vectors and Redis data stay unless --volumes).';

  static override examples = ['<%= config.bin %> down', '<%= config.bin %> down --dir projects/demo --json'];

  static override enableJsonFlag = true;

  static override flags = {
    dir: Flags.directory({ description: 'project root (default: the current directory)', exists: true }),
    volumes: Flags.boolean({ description: 'containers only: also remove the named volumes (model cache, vector store, Redis data)', default: false }),
    timeout: Flags.integer({ description: 'seconds to wait for a clean stop before killing what is left', default: 30, min: 1 }),
  };

  async run(): Promise<StopStackResult> {
    const { flags } = await this.parse(Down);
    const root = resolve(flags.dir ?? process.cwd());
    let result: StopStackResult;
    try {
      const { readContainerState } = await import('../../runtime/supervisor/container-state.js');
      const containers = readContainerState({ root });
      result = containers
        ? // Docker's helpers (and execa) are loaded only for a stack of containers.
          await (
            await import('../../runtime/supervisor/compose-stack.js')
          ).composeDown({ root, state: containers, volumes: flags.volumes, timeoutSeconds: flags.timeout })
        : await (await import('../../runtime/supervisor/stop-stack.js')).stopStack({ root, timeoutMs: flags.timeout * 1000 });
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
