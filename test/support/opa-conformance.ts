import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** Where the OPA conformance cases live in our development layout: `shared/opa-conformance` beside the clone. */
export const OPA_CONFORMANCE_DIR = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..', 'shared', 'opa-conformance');

/** How a user gets the cases, for the skip message and the CI error. */
export const OPA_CONFORMANCE_SOURCE =
  "copy OPA's v1 conformance cases (github.com/open-policy-agent/opa, v1/test/cases/testdata/v1/, one folder per category) to ../shared/opa-conformance beside this clone";

/**
 * The OPA conformance folder when it is there. On a user's clone it is not
 * (it lives beside the clone in our development layout), so the tests that
 * need it are skipped with a message saying where to get it; in CI
 * (`CI=true`, or `FRAMEWORK_REQUIRE_CONFORMANCE=1`) a missing folder is an
 * error at load, so those tests fail instead of being skipped.
 */
export function opaConformanceDir(options: { env?: NodeJS.ProcessEnv; dir?: string } = {}): string | undefined {
  const env = options.env ?? process.env;
  const dir = options.dir ?? OPA_CONFORMANCE_DIR;
  if (existsSync(dir)) return dir;
  if (env.CI === 'true' || env.FRAMEWORK_REQUIRE_CONFORMANCE === '1') {
    throw new Error(
      `The OPA conformance cases are missing at ${dir}: ${OPA_CONFORMANCE_SOURCE} (required because CI=true or FRAMEWORK_REQUIRE_CONFORMANCE=1).`,
    );
  }
  console.warn(`skipped: the OPA conformance cases are not at ${dir}; to run these tests, ${OPA_CONFORMANCE_SOURCE}.`);
  return undefined;
}
