import { JsonCommand } from '../../json-command.js';
import { guardianFlags, serveGuardian } from '../../serve/guardian.js';

export default class ServeGuardian extends JsonCommand {
  static override description =
    'Run the Guardian (POST /v1/a2a/validate, POST /v1/policies/<package>/evaluate, GET /v1/audit, GET /health) in front of a policy engine until interrupted. ' +
    'Flags win over OPA_URL, GUARDIAN_HOST and GUARDIAN_PORT; A2A_ENABLE_AUDIT_LOG=true also writes each audit event to standard error. ' +
    'Policy bundles (GET /v1/bundles/a2a) are signed with the key of the agent "guardian" in A2A_KEYS_FILE or A2A_KEYS (GUARDIAN_KEY_ID picks one); agents ship their in-process decisions to POST /v1/logs.';

  static override examples = [
    '<%= config.bin %> serve guardian',
    '<%= config.bin %> serve guardian --addr 127.0.0.1:11438 --opa-url http://127.0.0.1:8181',
    '<%= config.bin %> serve guardian --addr 0.0.0.0:11438 --allow-remote',
    'OPA_URL=http://opa:8181 GUARDIAN_PORT=11438 A2A_ENABLE_AUDIT_LOG=true <%= config.bin %> serve guardian --json',
  ];

  static override enableJsonFlag = true;

  /** `{"event":"listening"}` first, the result when stopped: one JSON document per line. */
  static override jsonLines = true;

  static override flags = guardianFlags;

  async run(): Promise<{ url: string; stopped: true }> {
    const { flags } = await this.parse(ServeGuardian);
    return serveGuardian(this, flags);
  }
}
