import { JsonCommand } from '../json-command.js';
import type { DoctorReport } from '../../runtime/doctor/run-doctor.js';

export default class Doctor extends JsonCommand {
  static override description =
    'Check that this machine can run the toolkit: Node, Redis (KV_URL / SESSION_KV_URL), the model runtime (OLLAMA_HOST) and model store, the policy engine (OPA_URL), ' +
    'the Guardian (GUARDIAN_URL), the Semantic Layer (SEMANTIC_LAYER_URL), the vector store, Docker, and whether the default ports are free. ' +
    'Exits 1 when a required check is missing.';

  static override examples = ['<%= config.bin %> doctor', 'OPA_URL=http://127.0.0.1:8181 OLLAMA_HOST=http://127.0.0.1:11434 <%= config.bin %> doctor --json'];

  static override enableJsonFlag = true;

  async run(): Promise<DoctorReport> {
    await this.parse(Doctor);
    // Loaded once the arguments are known good: a mistyped flag does not wait for it.
    const { runDoctor } = await import('../../runtime/doctor/run-doctor.js');
    const report = await runDoctor({ env: process.env });
    if (!this.jsonEnabled()) this.log((await import('../../runtime/doctor/format-report.js')).formatReport(report));
    // Not this.exit(1): under --json that would print a second JSON document.
    if (!report.ok) process.exitCode = 1;
    return report;
  }
}
