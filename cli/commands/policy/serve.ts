import { PolicyCommand } from '../../policy-command.js';
import { policyServeArgs, policyServeFlags, servePolicies } from '../../serve/policy.js';

export default class PolicyServe extends PolicyCommand {
  static override description =
    "Serve a policy directory over OPA's REST API (POST /v1/data/<path>, POST /, /v1/query, /v0/data, /health, /v1/policies, /v1/status, /metrics), reloading when files change.";

  static override examples = [
    '<%= config.bin %> policy serve policies',
    '<%= config.bin %> policy serve services/guardian/opa/policies --addr 127.0.0.1:8181 --decision-log decisions.log --mask /input/password',
    '<%= config.bin %> policy serve policies --addr 0.0.0.0:8181 --allow-remote',
  ];

  /** `{"event":"listening"}` first, the result when stopped: one JSON document per line. */
  static override jsonLines = true;

  static override args = policyServeArgs;

  static override flags = policyServeFlags;

  async run(): Promise<{ url: string; stopped: true }> {
    const { args, flags } = await this.parse(PolicyServe);
    return servePolicies(this, { args, flags });
  }
}
