/**
 * The python of a venv holding an official client, named by an environment
 * variable that `.ci/run` sets. Outside CI a missing venv skips the test that
 * needs it (the caller's `describe.skipIf(!python)`); in CI (`CI=true`) it is
 * an error at load, so the test file fails with the fix instead of being
 * skipped.
 */
export function venvPython(options: { env: string; setup: string }): string | undefined {
  const python = process.env[options.env];
  if (!python && process.env.CI === 'true') {
    throw new Error(`${options.env} is not set: ${options.setup} (.ci/run does it and sets ${options.env})`);
  }
  if (!python) console.warn(`skipped: set ${options.env} to the python of a venv where ${options.setup}`);
  return python;
}
