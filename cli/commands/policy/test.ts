import { PolicyCommand } from '../../policy-command.js';
import { Args, Flags } from '@oclif/core';
import { PolicyLoadError } from '../../../runtime/policy/server/policy-set.js';
import { loadPolicySet } from '../../../runtime/policy/tools/load-policies.js';
import { runPolicyTests, type PolicyTestReport } from '../../../runtime/policy/tools/run-policy-tests.js';
import { remoteText } from '../../remote-text.js';
import { terminalJson } from '../../../runtime/core/terminal-text.js';

export default class PolicyTest extends PolicyCommand {
  static override description = 'Run every test_* rule in a policy directory, like `opa test`: a test passes when it is true.';

  static override examples = [
    '<%= config.bin %> policy test policies',
    '<%= config.bin %> policy test policies -v --run trading',
    '<%= config.bin %> policy test policies --json',
    '<%= config.bin %> policy test policies --coverage',
  ];

  static override args = {
    dir: Args.directory({ description: 'policy directory (modules and their tests)', required: true, exists: true }),
  };

  static override flags = {
    'v0-compatible': Flags.boolean({
      description:
        "read the policies as Rego v0 (OPA's --v0-compatible: rule bodies without `if`, `p[x] { ... }` partial sets, future keywords only when imported)",
      default: false,
    }),
    verbose: Flags.boolean({ char: 'v', description: 'list every test with its time', default: false }),
    coverage: Flags.boolean({ char: 'c', description: "report test coverage (OPA's JSON coverage report) instead of the test list", default: false }),
    run: Flags.string({ char: 'r', description: 'only tests whose full name (data.pkg.test_x) matches this regular expression' }),
  };

  async run(): Promise<PolicyTestReport> {
    const { args, flags } = await this.parse(PolicyTest);
    let filter: RegExp | undefined;
    if (flags.run !== undefined) {
      try {
        filter = new RegExp(flags.run);
      } catch (error) {
        this.error(`--run is not a valid regular expression: ${(error as Error).message}`, { exit: 2 });
      }
    }
    let report: PolicyTestReport;
    try {
      report = runPolicyTests(await loadPolicySet([args.dir], { v0Compatible: flags['v0-compatible'] }), {
        ...(filter ? { filter } : {}),
        coverage: flags.coverage,
      });
    } catch (error) {
      if (!(error instanceof PolicyLoadError)) throw error;
      this.failToCompile(error, 'the policies do not compile; fix the errors above (see `framework-cli policy check`).');
    }
    const total = report.results.length;
    if (!this.jsonEnabled() && report.coverage) {
      // As `opa test --coverage`: the coverage report is the output.
      this.log(terminalJson(report.coverage, 2));
    } else if (!this.jsonEnabled()) {
      let file = '';
      for (const r of report.results) {
        if (!flags.verbose && r.outcome === 'pass') continue;
        if (r.file !== file) {
          file = r.file;
          this.log(`${file}:`);
        }
        const time = `(${(r.durationNs / 1e6).toFixed(3)}ms)`;
        const detail = r.detail ? `\n    ${r.outcome === 'fail' ? 'got' : ''}${r.outcome === 'fail' ? ' ' : ''}${remoteText(r.detail)}` : '';
        this.log(`${r.name}: ${r.outcome.toUpperCase()} ${time}${detail}`);
      }
      if (total === 0) this.log('no tests found (test rules are named test_*)');
      else if (report.failed + report.errors === 0) this.log(`PASS: ${report.passed}/${total}`);
      else {
        this.log(`PASS: ${report.passed}/${total}`);
        if (report.failed) this.log(`FAIL: ${report.failed}/${total}`);
        if (report.errors) this.log(`ERROR: ${report.errors}/${total}`);
      }
    }
    if (report.failed + report.errors > 0) process.exitCode = 1;
    return report;
  }
}
