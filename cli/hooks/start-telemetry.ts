import type { Hook } from '@oclif/core';
import { FrameworkError } from '../../runtime/core/framework-error.js';

/** The commands that run a service, and the service name their spans carry unless OTEL_SERVICE_NAME says otherwise. */
const SERVICES: Record<string, string> = {
  'serve:agent': 'agent',
  'serve:guardian': 'guardian',
  'serve:memory': 'memory',
  'serve:semantic-layer': 'semantic-layer',
  'policy:serve': 'policy',
  'model:serve': 'model',
};

/**
 * Before a service command runs: OpenTelemetry from the standard OTEL_*
 * variables (and the stack's local receiver under `up`). Nothing is loaded
 * when neither is set; a variable that cannot be honoured stops the service
 * with a message naming it. Spans are flushed by `serveUntilStopped`.
 * Imported only for a service command: the module brings the OpenTelemetry
 * API (about 80 modules), which no other command's start should pay for.
 */
const hook: Hook.Prerun = async function (options) {
  const service = SERVICES[options.Command.id];
  if (service === undefined || !mayExport(process.env)) return;
  try {
    const { startTelemetry } = await import('../../runtime/telemetry/start-telemetry.js');
    await startTelemetry({ env: process.env, defaultServiceName: service });
  } catch (error) {
    if (FrameworkError.isInstance(error)) this.error(error.message, { exit: 1, code: error.code });
    throw error;
  }
};

/**
 * Whether any variable that can turn telemetry on (or be wrong) is set: with
 * none, startTelemetry would load its module only to return undefined, so
 * the hook skips it (about 50 modules of the OpenTelemetry API before the
 * command has even parsed its flags).
 */
function mayExport(env: NodeJS.ProcessEnv): boolean {
  return Object.keys(env).some((name) => name.startsWith('OTEL_') || name === 'FRAMEWORK_TRACES_URL');
}

export default hook;
