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
 * when neither is set, or when the command runs no service; a variable that
 * cannot be honoured rejects with a `FrameworkError` naming it. Spans are
 * flushed by `serveUntilStopped`. Run by the prerun hook and by the lean
 * start of a service (`cli/serve-lean.ts`).
 */
export async function startServiceTelemetry(options: { commandId: string; env: NodeJS.ProcessEnv }): Promise<void> {
  const service = SERVICES[options.commandId];
  if (service === undefined || !mayExport(options.env)) return;
  // The module brings the OpenTelemetry API (about 80 modules), which no other command's start should pay for.
  const { startTelemetry } = await import('../runtime/telemetry/start-telemetry.js');
  await startTelemetry({ env: options.env, defaultServiceName: service });
}

/**
 * Whether any variable that can turn telemetry on (or be wrong) is set: with
 * none, startTelemetry would load its module only to return undefined, so
 * it is skipped (about 50 modules of the OpenTelemetry API before the
 * command has even parsed its flags).
 */
function mayExport(env: NodeJS.ProcessEnv): boolean {
  return Object.keys(env).some((name) => name.startsWith('OTEL_') || name === 'FRAMEWORK_TRACES_URL');
}
