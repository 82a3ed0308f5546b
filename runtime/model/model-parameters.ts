import { ModelRequestError } from './model-request-error.js';

/** The type of each of Ollama's options (its `api.Options`), as a Modelfile's PARAMETER line gives it. */
export const PARAMETER_TYPES = {
  num_keep: 'int',
  seed: 'int',
  num_predict: 'int',
  top_k: 'int',
  top_p: 'float',
  min_p: 'float',
  typical_p: 'float',
  repeat_last_n: 'int',
  temperature: 'float',
  repeat_penalty: 'float',
  presence_penalty: 'float',
  frequency_penalty: 'float',
  stop: 'strings',
  num_ctx: 'int',
  num_batch: 'int',
  num_gpu: 'int',
  main_gpu: 'int',
  use_mmap: 'bool',
  num_thread: 'int',
} as const satisfies Record<string, 'int' | 'float' | 'bool' | 'strings'>;

/** Options Ollama's CLI drops from a Modelfile with a warning. */
export const DEPRECATED_PARAMETERS: readonly string[] = [
  'penalize_newline',
  'low_vram',
  'f16_kv',
  'logits_all',
  'vocab_only',
  'use_mlock',
  'mirostat',
  'mirostat_tau',
  'mirostat_eta',
];

type ParameterName = keyof typeof PARAMETER_TYPES;

function isParameterName(name: string): name is ParameterName {
  return Object.hasOwn(PARAMETER_TYPES, name);
}

/**
 * One PARAMETER line's value typed as Ollama's `api.FormatParams` types it:
 * `"0.2"` → 0.2 for a float, `"true"` → true, `stop` → a list. Throws with
 * Ollama's wording ("unknown parameter 'x'", "invalid float value [x]").
 */
export function parameterValue(name: string, text: string): number | boolean | string[] {
  if (!isParameterName(name)) throw new Error(`unknown parameter '${name}'`);
  const type = PARAMETER_TYPES[name];
  const value = text.trim();
  switch (type) {
    case 'int':
      if (!/^[+-]?\d+$/.test(value)) throw new Error(`invalid int value [${text}]`);
      return Number.parseInt(value, 10);
    case 'float': {
      const number = Number(value);
      if (value === '' || !Number.isFinite(number)) throw new Error(`invalid float value [${text}]`);
      return number;
    }
    case 'bool':
      if (!/^(1|t|T|TRUE|true|True|0|f|F|FALSE|false|False)$/.test(value)) throw new Error(`invalid bool value [${text}]`);
      return /^(1|t|T|TRUE|true|True)$/.test(value);
    case 'strings':
      return [text];
  }
}

/**
 * The `parameters` of a create request checked against Ollama's option types
 * (a number given as a string is read as a Modelfile would read it; `stop`
 * may be a string or a list). Anything else is a 400 naming the parameter.
 */
export function checkParameters(parameters: Record<string, unknown>): Record<string, number | boolean | string[]> {
  const checked: Record<string, number | boolean | string[]> = {};
  const refuse = (message: string) => new ModelRequestError({ status: 400, message, param: 'parameters' });
  for (const [name, raw] of Object.entries(parameters)) {
    if (!isParameterName(name)) throw refuse(`unknown parameter '${name}'`);
    const type = PARAMETER_TYPES[name];
    if (type === 'strings') {
      const list = typeof raw === 'string' ? [raw] : raw;
      if (!Array.isArray(list) || !list.every((s) => typeof s === 'string')) throw refuse(`parameter '${name}' must be a string or a list of strings`);
      checked[name] = list;
    } else if (typeof raw === 'string') {
      try {
        checked[name] = parameterValue(name, raw);
      } catch (error) {
        throw refuse(`parameter '${name}': ${(error as Error).message}`);
      }
    } else if (type === 'bool' ? typeof raw === 'boolean' : typeof raw === 'number' && Number.isFinite(raw)) {
      checked[name] = type === 'int' ? Math.trunc(raw as number) : (raw as number | boolean);
    } else {
      throw refuse(`parameter '${name}' must be ${type === 'bool' ? 'a boolean' : 'a number'}`);
    }
  }
  return checked;
}

/** Ollama's `/api/show` `parameters` text: one `name value` line per value, the name padded to 30, strings quoted. */
export function parametersText(parameters: Record<string, unknown> | undefined): string {
  const lines: string[] = [];
  for (const [name, value] of Object.entries(parameters ?? {})) {
    for (const item of Array.isArray(value) ? value : [value]) lines.push(`${name.padEnd(30)} ${JSON.stringify(item)}`);
  }
  return lines.join('\n');
}
