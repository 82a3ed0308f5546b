/**
 * Variables a child service inherits from the supervisor's environment; nothing else is passed on.
 * The last three say where `runtime install` put the native parts (node-llama-cpp, LanceDB) and which llama.cpp build to use.
 */
export const BASE_ENV_NAMES = [
  'PATH',
  'HOME',
  'LANG',
  'LC_ALL',
  'TZ',
  'TMPDIR',
  'NODE_OPTIONS',
  'LOG_LEVEL',
  'NO_COLOR',
  'SYSTEMROOT',
  'XDG_CACHE_HOME',
  'FRAMEWORK_RUNTIMES_DIR',
  'FRAMEWORK_LLAMA_GPU',
] as const;

/**
 * The environment of a child service: the few `BASE_ENV_NAMES` present in
 * `base` (default `process.env`) and the OpenTelemetry variables (`OTEL_*`:
 * where the user sends traces, with the headers their backend needs), then
 * the service's own `env` on top. Other secrets of the supervisor's
 * environment (API keys, tokens) are not passed on.
 *
 * @example
 * serviceEnv({ env: { AGENT_CARD: 'agent_cards/planner.json' } }); // { PATH: '…', HOME: '…', AGENT_CARD: '…' }
 */
export function serviceEnv(options: { env?: Readonly<Record<string, string>>; base?: Readonly<Record<string, string | undefined>> }): Record<string, string> {
  const base = options.base ?? process.env;
  const result: Record<string, string> = {};
  for (const name of BASE_ENV_NAMES) {
    const value = base[name];
    if (value !== undefined) result[name] = value;
  }
  for (const [name, value] of Object.entries(base)) {
    if (name.startsWith('OTEL_') && value !== undefined) result[name] = value;
  }
  return { ...result, ...options.env };
}
