import { JsonCommand } from '../../json-command.js';
import { formatTable } from '../../format-table.js';
import { failWithModelError, hostFlag, modelServerClient } from '../../model-server-command.js';
import type { PsResponse } from '../../../runtime/model/model-server-client.js';

export default class ModelPs extends JsonCommand {
  static override description = 'List the models the running model server has loaded (GET /api/ps), as `ollama ps` does, with when each unloads.';

  static override examples = ['<%= config.bin %> model ps', 'OLLAMA_HOST=127.0.0.1:11435 <%= config.bin %> model ps --json'];

  static override enableJsonFlag = true;

  static override flags = { host: hostFlag };

  async run(): Promise<PsResponse> {
    const { flags } = await this.parse(ModelPs);
    let ps: PsResponse;
    try {
      ps = await (await modelServerClient(flags.host)).ps();
    } catch (error) {
      failWithModelError(this, error);
    }
    const now = Date.now();
    this.log(
      formatTable({
        head: ['NAME', 'ID', 'SIZE', 'PROCESSOR', 'CONTEXT', 'UNTIL'],
        rows: ps.models.map((m) => [
          m.name,
          m.digest.slice(0, 12),
          `${(m.size / 1e6).toFixed(0)} MB`,
          '100% CPU',
          m.context_length ?? '',
          until(m.expires_at, now),
        ]),
      }),
    );
    return ps;
  }
}

/** `4 minutes from now`, `Forever` (a model kept loaded), or `Stopping...` once past. */
function until(expiresAt: string | undefined, now: number): string {
  const at = expiresAt ? Date.parse(expiresAt) : Number.NaN;
  if (Number.isNaN(at) || at - now > 100 * 365 * 24 * 3600 * 1000) return 'Forever';
  const seconds = Math.round((at - now) / 1000);
  if (seconds <= 0) return 'Stopping...';
  if (seconds < 120) return `${seconds} seconds from now`;
  if (seconds < 7200) return `${Math.round(seconds / 60)} minutes from now`;
  return `${Math.round(seconds / 3600)} hours from now`;
}
