import { format } from 'node:util';
import type { Interfaces } from '@oclif/core';
import * as Flags from '@oclif/core/flags';
import { parse } from '@oclif/core/parser';
import { loadOclif } from './load-oclif.js';
import { loadOptions } from './load-options.js';
import type { ServeIo } from './serve-until-stopped.js';
import { startServiceTelemetry } from './service-telemetry.js';

/** A service command as its lean start runs it: its flags and arguments (the very objects its oclif command declares) and its body. */
export interface LeanService {
  flags: Interfaces.FlagInput;
  args?: Interfaces.ArgInput;
  /** The command's body once parsed (what its `run()` calls after `this.parse`). */
  run(io: ServeIo, parsed: { flags: Record<string, unknown>; args: Record<string, unknown> }): Promise<unknown>;
  /** The result's JSON line under --json, as the command's `logJson` writes it. */
  jsonLine?(json: unknown): Promise<string>;
}

/** The service commands with a lean start, each module imported only when chosen. */
const LEAN_SERVICES: Record<string, () => Promise<LeanService>> = {
  'serve:agent': async () => {
    const { agentFlags, serveAgent } = await import('./serve/agent.js');
    return { flags: agentFlags, run: (io, { flags }) => serveAgent(io, flags as Parameters<typeof serveAgent>[1]) };
  },
  'serve:guardian': async () => {
    const { guardianFlags, serveGuardian } = await import('./serve/guardian.js');
    return { flags: guardianFlags, run: (io, { flags }) => serveGuardian(io, flags as Parameters<typeof serveGuardian>[1]) };
  },
  'serve:memory': async () => {
    const { memoryFlags, serveMemory } = await import('./serve/memory.js');
    return { flags: memoryFlags, run: (io, { flags }) => serveMemory(io, flags as Parameters<typeof serveMemory>[1]) };
  },
  'serve:semantic-layer': async () => {
    const { semanticLayerFlags, serveSemanticLayer } = await import('./serve/semantic-layer.js');
    return { flags: semanticLayerFlags, run: (io, { flags }) => serveSemanticLayer(io, flags as Parameters<typeof serveSemanticLayer>[1]) };
  },
  'model:serve': async () => {
    const { modelServeFlags, serveModels } = await import('./serve/model.js');
    return { flags: modelServeFlags, run: (io, { flags }) => serveModels(io, flags as Parameters<typeof serveModels>[1]) };
  },
  'policy:serve': async () => {
    const { policyServeArgs, policyServeFlags, servePolicies } = await import('./serve/policy.js');
    return {
      flags: policyServeFlags,
      args: policyServeArgs,
      run: (io, parsed) => servePolicies(io, parsed as Parameters<typeof servePolicies>[1]),
      // PolicyCommand's logJson: big integers exact, terminal controls escaped.
      jsonLine: async (json) => {
        const [{ stringifyJson }, { escapeJsonText }] = await Promise.all([import('../runtime/core/json-text.js'), import('../runtime/core/terminal-text.js')]);
        return escapeJsonText(stringifyJson(json));
      },
    };
  },
};

/** oclif's `--json` flag of a command with `enableJsonFlag` (what its `aggregateFlags` adds). */
const JSON_FLAG = Flags.boolean({ description: 'Format output as json.', helpGroup: 'GLOBAL' });

/** Words that make oclif answer before any command runs (help, version), wherever they stand. */
const OCLIF_WORDS = new Set(['--help', '-h', '--version', '-v', 'help']);

/** Thrown by the lean `error()`: the message and options that oclif's `this.error` is then called with. */
class LeanCommandError extends Error {
  constructor(
    message: string,
    readonly options: { exit: number; code?: string },
  ) {
    super(message);
  }
}

/**
 * A service command (`serve guardian`, ...) run without loading oclif's
 * whole machinery: a service runs for days, and oclif's configuration,
 * help, plugins and their modules would stay in its memory the whole time
 * (about 7 MB of an idle service's resident set, issue 40). The command's
 * own flag definitions are parsed by oclif's own parser, and the command's
 * own body runs; whatever oclif would answer itself goes to oclif instead,
 * so its answers stay oclif's: help and version words, arguments the parser
 * refuses, oclif's environment variables (FRAMEWORK_CLI_*, DEBUG), and, when
 * the body stops with an error, the error's rendering (oclif is loaded then,
 * and the command's own `catch` prints it).
 *
 * Resolves false when the arguments are not a lean service start (then
 * nothing was done: the caller runs oclif); true once the command ran.
 */
export async function serveLean(options: { args: readonly string[]; binUrl: string; env?: NodeJS.ProcessEnv }): Promise<boolean> {
  const env = options.env ?? process.env;
  const id = leanServiceId(options.args);
  if (id === undefined || options.args.some((arg) => OCLIF_WORDS.has(arg))) return false;
  if (Object.keys(env).some((name) => name.startsWith('FRAMEWORK_CLI_') || name === 'DEBUG' || name.startsWith('OCLIF_'))) return false;
  const argv = options.args.slice(2);
  const service = await LEAN_SERVICES[id]!();
  let parsed;
  try {
    parsed = await parse([...argv], { flags: { json: JSON_FLAG, ...service.flags }, args: service.args ?? {}, strict: true, context: undefined });
    // The prerun hook's work; a variable it refuses gets oclif's answer from the hook.
    await startServiceTelemetry({ commandId: id, env });
  } catch {
    return false;
  }
  const io = leanIo(argv);
  let result;
  try {
    result = await service.run(io, { flags: parsed.flags, args: parsed.args });
  } catch (error) {
    await renderWithOclif({ id, argv, binUrl: options.binUrl, args: options.args, error });
    return true;
  }
  if (result && io.jsonEnabled()) {
    const line = service.jsonLine ? await service.jsonLine(result) : (await import('../runtime/core/terminal-text.js')).terminalJson(result);
    console.log(format(line));
  }
  return true;
}

/** `serve guardian ...` → `serve:guardian` when it is a service with a lean start (its words first, as they are typed). */
function leanServiceId(args: readonly string[]): string | undefined {
  const id = `${args[0]}:${args[1]}`;
  return Object.hasOwn(LEAN_SERVICES, id) ? id : undefined;
}

/** What the command's body gets in place of the oclif command: oclif's own behaviour for each. */
function leanIo(argv: readonly string[]): ServeIo {
  return {
    // oclif's jsonEnabled: --json before any `--` (FRAMEWORK_CLI_CONTENT_TYPE sends the start to oclif).
    jsonEnabled: () => {
      const json = argv.indexOf('--json');
      const passThrough = argv.indexOf('--');
      return json !== -1 && (passThrough === -1 || json < passThrough);
    },
    // oclif's log and logToStderr write through ux.stdout / ux.stderr: console.log(format(message)).
    log(message) {
      if (!this.jsonEnabled()) console.log(format(message));
    },
    logToStderr: (message) => console.error(format(message)),
    error: (message, errorOptions) => {
      throw new LeanCommandError(message, errorOptions);
    },
  };
}

/**
 * The body stopped with `error`: oclif answers as it would have, with the
 * command's own instance: `this.error` makes the error oclif's (for a
 * LeanCommandError), the command's `catch` prints it (one JSON document under
 * --json) or rethrows it to oclif's `handle`, which prints and exits.
 */
async function renderWithOclif(options: { id: string; argv: string[]; args: readonly string[]; binUrl: string; error: unknown }): Promise<void> {
  const { Config, flush, handle } = await loadOclif();
  const config = await Config.load(loadOptions({ binUrl: options.binUrl, args: options.args }));
  const CommandClass = await config.findCommand(options.id)!.load();
  const command = new (CommandClass as unknown as new (argv: string[], config: unknown) => OclifCommandInstance)(options.argv, config);
  let error = options.error;
  if (error instanceof LeanCommandError) {
    try {
      command.error(error.message, error.options);
    } catch (thrown) {
      error = thrown;
    }
  }
  try {
    await command.catch(error);
  } catch (thrown) {
    await command.finally(error);
    await handle(thrown as Error);
    return;
  }
  await command.finally(error);
  void flush(); // as oclif's execute: not awaited
}

/** The members of an oclif command instance the error path calls (`catch` and `finally` are protected in its type). */
interface OclifCommandInstance {
  error(message: string, options: { exit: number; code?: string }): never;
  catch(error: unknown): Promise<unknown>;
  finally(error: unknown): Promise<unknown>;
}
