import type { Hook } from '@oclif/core';
import { FrameworkError } from '../../runtime/core/framework-error.js';
import { startServiceTelemetry } from '../service-telemetry.js';

/**
 * Before a service command runs: OpenTelemetry from the standard OTEL_*
 * variables (see `startServiceTelemetry`); a variable that cannot be
 * honoured stops the service with a message naming it.
 */
const hook: Hook.Prerun = async function (options) {
  try {
    await startServiceTelemetry({ commandId: options.Command.id, env: process.env });
  } catch (error) {
    if (FrameworkError.isInstance(error)) this.error(error.message, { exit: 1, code: error.code });
    throw error;
  }
};

export default hook;
