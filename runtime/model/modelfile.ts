import { FrameworkError } from '../core/framework-error.js';
import { DEPRECATED_PARAMETERS, parameterValue } from './model-parameters.js';

/**
 * One instruction of a Modelfile, as Ollama's parser gives it: `model` for
 * FROM, the option's name for PARAMETER, `message` with `role: content` args.
 */
export interface ModelfileCommand {
  name: string;
  args: string;
}

/** What `model create` sends to `POST /api/create` (besides the model name) for a Modelfile. */
export interface ModelfileRequest {
  /** FROM: a model name or a path, as written (the caller decides which it is). */
  from: string;
  system?: string;
  template?: string;
  license?: string[];
  parameters?: Record<string, number | boolean | string[]>;
  messages?: Array<{ role: 'system' | 'user' | 'assistant'; content: string }>;
  /** Parameters Ollama deprecated, dropped (the CLI warns about them). */
  dropped: string[];
}

const COMMANDS = ['from', 'license', 'template', 'system', 'adapter', 'draft', 'renderer', 'parser', 'parameter', 'message', 'requires'];
const ROLES = ['system', 'user', 'assistant'];

/** A Modelfile that cannot be read, with the line at fault as Ollama reports it (`(line 3): ...`). */
export class ModelfileError extends FrameworkError {
  readonly line: number | undefined;

  constructor(options: { message: string; line?: number }) {
    super({ code: 'invalid_arguments', message: options.line ? `(line ${options.line}): ${options.message}` : options.message });
    this.line = options.line;
  }
}

/**
 * Parses a Modelfile as Ollama does: one instruction per line (case-insensitive
 * name), `#` comments, values to the end of the line or in `"..."` / `"""..."""`
 * quotes that may span lines. Requires a FROM line.
 *
 * @example
 * parseModelfile('FROM smollm2\nPARAMETER temperature 0.2\nSYSTEM """You are terse."""');
 */
export function parseModelfile(text: string): ModelfileCommand[] {
  const source = text.replace(/^\uFEFF/, '');
  const commands: ModelfileCommand[] = [];
  let at = 0;
  let line = 1;
  const fail = (message: string): never => {
    throw new ModelfileError({ message, line });
  };
  const skip = (pattern: RegExp) => {
    const match = pattern.exec(source.slice(at));
    const taken = match?.[0] ?? '';
    line += (taken.match(/\r\n|\r|\n/g) ?? []).length;
    at += taken.length;
    return taken;
  };
  while (at < source.length) {
    skip(/^[ \t\r\n]*/);
    if (at >= source.length) break;
    if (source[at] === '#') {
      skip(/^[^\r\n]*/);
      continue;
    }
    const word = skip(/^[A-Za-z]*/);
    if (!word || !/^[ \t]/.test(source[at] ?? '') || !COMMANDS.includes(word.toLowerCase())) {
      fail(`command must be one of ${COMMANDS.map((c) => `"${c}"`).join(', ')}`);
    }
    skip(/^[ \t]+/);
    let name = word.toLowerCase();
    let role: string | undefined;
    if (name === 'parameter') {
      name = skip(/^[A-Za-z0-9_]*/);
      if (!name || !/^[ \t]/.test(source[at] ?? '')) throw new ModelfileError({ message: 'unexpected EOF: a PARAMETER line needs a name and a value' });
      skip(/^[ \t]+/);
    } else if (name === 'message') {
      role = skip(/^[A-Za-z]*/);
      if (!ROLES.includes(role)) fail('message role must be one of "system", "user", or "assistant"');
      skip(/^[ \t]+/);
    } else if (name === 'from') {
      name = 'model';
    }
    const args = readValue();
    commands.push({ name, args: role ? `${role}: ${args}` : args });
  }
  if (!commands.some((c) => c.name === 'model')) throw new ModelfileError({ message: 'no FROM line' });
  return commands;

  /** A value: `"""..."""`, `"..."` (both may span lines) or the rest of the line, trimmed. */
  function readValue(): string {
    for (const quote of ['"""', '"']) {
      if (!source.startsWith(quote, at)) continue;
      const end = source.indexOf(quote, at + quote.length);
      if (end < 0) throw new ModelfileError({ message: `unexpected EOF: ${quote} is never closed (from line ${line})` });
      const value = source.slice(at + quote.length, end);
      skip(new RegExp(`^[\\s\\S]{${end + quote.length - at}}`));
      const rest = skip(/^[^\r\n]*/);
      if (rest.trim() !== '') fail(`unexpected text after the closing quote: ${rest.trim()}`);
      return value;
    }
    return skip(/^[^\r\n]*/).trim();
  }
}

/**
 * The create request a Modelfile makes, as Ollama's CLI builds it: FROM,
 * SYSTEM, TEMPLATE, LICENSE (each a license), MESSAGE, and PARAMETER lines
 * typed by option (`stop` collects every value). ADAPTER, DRAFT, RENDERER,
 * PARSER and REQUIRES are refused: this runtime has no use for them.
 */
export function modelfileRequest(commands: readonly ModelfileCommand[]): ModelfileRequest {
  const request: ModelfileRequest = { from: '', dropped: [] };
  const parameters: Record<string, number | boolean | string[]> = {};
  const licenses: string[] = [];
  const messages: NonNullable<ModelfileRequest['messages']> = [];
  for (const command of commands) {
    switch (command.name) {
      case 'model':
        request.from = command.args;
        break;
      case 'system':
        request.system = command.args;
        break;
      case 'template':
        request.template = command.args;
        break;
      case 'license':
        licenses.push(command.args);
        break;
      case 'message': {
        const split = command.args.indexOf(': ');
        messages.push({ role: command.args.slice(0, split) as 'system' | 'user' | 'assistant', content: command.args.slice(split + 2) });
        break;
      }
      case 'adapter':
      case 'draft':
      case 'renderer':
      case 'parser':
      case 'requires':
        throw new ModelfileError({
          message: `${command.name.toUpperCase()} is not supported by this model runtime (only FROM, PARAMETER, SYSTEM, TEMPLATE, MESSAGE and LICENSE are)`,
        });
      default: {
        if (DEPRECATED_PARAMETERS.includes(command.name)) {
          request.dropped.push(command.name);
          break;
        }
        let value: number | boolean | string[];
        try {
          value = parameterValue(command.name, command.args);
        } catch (error) {
          throw new ModelfileError({ message: (error as Error).message });
        }
        const previous = parameters[command.name];
        parameters[command.name] = Array.isArray(previous) && Array.isArray(value) ? [...previous, ...value] : value;
      }
    }
  }
  if (Object.keys(parameters).length > 0) request.parameters = parameters;
  if (messages.length > 0) request.messages = messages;
  if (licenses.length > 0) request.license = licenses;
  return request;
}

/** A value as Ollama writes it back into a Modelfile: quoted when it spans lines or has edge spaces. */
function quote(value: string): string {
  if (!value.includes('\n') && !value.startsWith(' ') && !value.endsWith(' ')) return value;
  return value.includes('"') ? `"""${value}"""` : `"${value}"`;
}

/**
 * The Modelfile `/api/show` answers for a stored model (Ollama's layout):
 * FROM the weights' path, then TEMPLATE, SYSTEM, PARAMETER, LICENSE and MESSAGE lines.
 */
export function renderModelfile(model: {
  name: string;
  path: string;
  template?: string | undefined;
  system?: string | undefined;
  parameters?: Record<string, unknown> | undefined;
  license?: string | undefined;
  messages?: ReadonlyArray<{ role: string; content: string }> | undefined;
}): string {
  const lines = [
    '# Modelfile generated by "framework-cli model show"',
    '# To build a new Modelfile based on this, replace FROM with:',
    `# FROM ${model.name}`,
    '',
    `FROM ${model.path}`,
  ];
  if (model.template) lines.push(`TEMPLATE ${quote(model.template)}`);
  if (model.system) lines.push(`SYSTEM ${quote(model.system)}`);
  for (const [name, value] of Object.entries(model.parameters ?? {})) {
    for (const item of Array.isArray(value) ? value : [value]) lines.push(`PARAMETER ${name} ${quote(String(item))}`);
  }
  if (model.license) lines.push(`LICENSE ${quote(model.license)}`);
  for (const m of model.messages ?? []) lines.push(`MESSAGE ${m.role} ${quote(m.content)}`);
  return `${lines.join('\n')}\n`;
}
