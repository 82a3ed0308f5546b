import { PolicyCommand } from '../../policy-command.js';
import { existingPaths, policyPathArg } from '../../policy-paths.js';
import { Flags } from '@oclif/core';
import { PolicyError } from '../../../runtime/policy/errors.js';
import { PolicyLoadError } from '../../../runtime/policy/server/policy-problem.js';
import type { PolicyTestReport, TestTraceFilter } from '../../../runtime/policy/tools/run-policy-tests.js';
import { EXPLAIN_MODES, type ExplainMode, explainEvents, failsAndNotes } from '../../../runtime/policy/trace/lineage.js';
import { remoteText } from '../../remote-text.js';
import { terminalJson } from '../../../runtime/core/terminal-text.js';

export default class PolicyTest extends PolicyCommand {
  static override description =
    'Run every test_* rule in policy directories and files, like `opa test`: a test passes when it is true; todo_test_* rules are skipped, ' +
    'a name defined twice runs twice (the second as test_x#01), test_x[case] rules list each case. Exits 2 when a test does not pass.';

  static override examples = [
    '<%= config.bin %> policy test policies',
    '<%= config.bin %> policy test policies -v --run trading',
    '<%= config.bin %> policy test policies/authz.rego policies/authz_test.rego data.json',
    '<%= config.bin %> policy test policies --explain=notes',
    '<%= config.bin %> policy test policies --format json',
    '<%= config.bin %> policy test policies --json',
    '<%= config.bin %> policy test policies --coverage',
  ];

  // Several paths, as `opa test`: the rest of argv (each checked by policyPathArg's parse).
  static override strict = false;

  static override args = {
    paths: policyPathArg({
      description: 'policy directories (modules, their tests and data) or .rego/data files, as many as wanted: their modules and data are loaded together',
      required: true,
    }),
  };

  static override flags = {
    'v0-compatible': Flags.boolean({
      description:
        "read the policies as Rego v0 (OPA's --v0-compatible: rule bodies without `if`, `p[x] { ... }` partial sets, future keywords only when imported)",
      default: false,
    }),
    schema: Flags.string({
      char: 's',
      description:
        "JSON schema of the input (a file), or a directory of schemas that `# METADATA` `schemas:` annotations name as schema.<path> (OPA's --schema); rule bodies are type-checked against their annotations, as `opa test` does",
    }),
    verbose: Flags.boolean({
      char: 'v',
      description: 'list every test with its time, then each failed test with the trace of its failed expressions and notes (FAILURES)',
      default: false,
    }),
    explain: Flags.string({
      description:
        "which events of a failed test's trace -v shows, as `opa test --explain`: fails (failed expressions), notes (trace() notes), " +
        'full or debug (every event); implies -v',
      options: [...EXPLAIN_MODES],
    }),
    coverage: Flags.boolean({ char: 'c', description: "report test coverage (OPA's JSON coverage report) instead of the test list", default: false }),
    run: Flags.string({ char: 'r', description: 'only tests whose full name (data.pkg.test_x) matches this regular expression' }),
    format: Flags.string({ char: 'f', description: "output format: pretty, or json (OPA's JSON test report)", options: ['pretty', 'json'], default: 'pretty' }),
    'exit-zero-on-skipped': Flags.boolean({ char: 'z', description: 'skipped (todo_test_*) tests do not make the exit status 2', default: false }),
    'fail-on-empty': Flags.boolean({ description: 'exit 1 when no test ran', default: false }),
  };

  async run(): Promise<PolicyTestReport> {
    const { argv, flags } = await this.parse(PolicyTest);
    const paths = await existingPaths(argv as string[]);
    let filter: RegExp | undefined;
    if (flags.run !== undefined) {
      try {
        filter = new RegExp(flags.run);
      } catch (error) {
        this.error(`--run is not a valid regular expression: ${(error as Error).message}`, { exit: 1 });
      }
    }
    const [{ loadPolicySet }, { runPolicyTests }, { jsonReport, prettyReport }] = await Promise.all([
      import('../../../runtime/policy/tools/load-policies.js'),
      import('../../../runtime/policy/tools/run-policy-tests.js'),
      import('../../../runtime/policy/tools/test-report.js'),
    ]);
    // As `opa test`: --explain turns on -v, and coverage turns tracing off. The text report and --json show failed
    // tests' traces; OPA's JSON report (--format json) carries every test's events, passing ones included.
    const mode = EXPLAIN_MODES.find((m) => m === flags.explain);
    const verbose = flags.verbose || mode !== undefined;
    const traced = verbose && !flags.coverage;
    const explain = traced ? traceFilter(mode) : undefined;
    const traceAll = traced && flags.format === 'json' && !this.jsonEnabled();
    let report: PolicyTestReport;
    try {
      const loadOptions = { v0Compatible: flags['v0-compatible'], typeCheckAnnotations: true, ...(flags.schema === undefined ? {} : { schema: flags.schema }) };
      report = runPolicyTests(await loadPolicySet(paths, loadOptions), {
        ...(filter ? { filter } : {}),
        coverage: flags.coverage,
        ...(explain === undefined ? {} : { explain }),
        traceAll,
      });
    } catch (error) {
      if (PolicyError.isInstance(error)) this.error(error.message, { exit: 1, code: 'policy_compile_error' });
      if (!PolicyLoadError.isInstance(error)) throw error;
      this.failToCompile(error, 'the policies do not compile; fix the errors above (see `framework-cli policy check`).');
    }
    const total = report.results.length;
    if (!this.jsonEnabled() && report.coverage) {
      // As `opa test --coverage`: the coverage report is the output.
      this.log(terminalJson(report.coverage, 2));
    } else if (!this.jsonEnabled() && flags.format === 'json') {
      this.log(terminalJson(jsonReport(report), 2));
    } else if (!this.jsonEnabled()) {
      if (total === 0) this.log('no tests found (test rules are named test_*)');
      else for (const line of prettyReport(report, { verbose, clean: (text) => remoteText(text) })) this.log(line);
    }
    // As `opa test`: 2 when a test failed, errored or (without -z) was skipped; 1 when none ran and --fail-on-empty.
    const skippedFail = report.skipped > 0 && !flags['exit-zero-on-skipped'];
    if (report.failed + report.errors > 0 || skippedFail) process.exitCode = 2;
    else if (total === 0 && flags['fail-on-empty']) {
      this.logToStderr('no tests were run');
      process.exitCode = 1;
    }
    // --json's document: the events (AST nodes) were for OPA's JSON report only; its lines are in `trace`.
    return { ...report, results: report.results.map(({ traceEvents: _events, ...r }) => r) };
  }
}

/** The events of a failed test's trace shown: `opa test -v` keeps the failed expressions and the notes, `--explain` picks its mode's. */
function traceFilter(mode: ExplainMode | undefined): TestTraceFilter {
  return mode === undefined ? failsAndNotes : (events) => explainEvents({ events, mode });
}
