import { Flags, type Command } from '@oclif/core';
import { FrameworkError } from '../runtime/core/framework-error.js';
import type { ModelServerClient } from '../runtime/model/model-server-client.js';

/** `--host` of the `model` commands that talk to a running model server. */
export const hostFlag = Flags.string({
  description: 'model server address (default: OLLAMA_HOST, then http://127.0.0.1:11434); start one with framework-cli model serve',
});

/**
 * The client of the model server the command talks to: `--host`, then
 * `OLLAMA_HOST`, then 127.0.0.1:11434. Its module (and zod) is loaded here,
 * after the command parsed its arguments.
 */
export async function modelServerClient(host: string | undefined): Promise<ModelServerClient> {
  const { ModelServerClient } = await import('../runtime/model/model-server-client.js');
  return new ModelServerClient(host ? { host } : {});
}

/**
 * Ends a `model` command with the server's error, plus the fix a person
 * needs for a missing model. Under --json the error is one JSON document.
 */
export function failWithModelError(command: Command, error: unknown): never {
  if (!FrameworkError.isInstance(error)) throw error;
  const hint = error.code === 'model_not_found' ? ' (framework-cli model list shows the models in the store; framework-cli model pull <name> fetches one)' : '';
  if (command.jsonEnabled()) throw Object.assign(error, { message: `${error.message}${hint}` });
  command.error(`${error.message}${hint}`, { exit: 1, code: error.code });
}
