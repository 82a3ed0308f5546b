import type { ChatMessage, ModelServerClient } from '../runtime/model/model-server-client.js';
import { parameterValue } from '../runtime/model/model-parameters.js';
import { remoteText } from './remote-text.js';

export const CHAT_HELP = [
  'Available commands:',
  '  /set           Set session variables (/set parameter <name> <value>, /set system <text>)',
  '  /show          Show model information (/show info|license|modelfile|parameters|system|template)',
  '  /load <model>  Load a session or model',
  '  /save <model>  Save your current session as a model',
  '  /clear         Clear the conversation',
  '  /bye           Exit',
  '  /?, /help      Help for a command',
  '',
  'Use """ to begin a multi-line message.',
  '',
].join('\n');

const SET_HELP = ['Available commands:', '  /set parameter <name> <value>  Set a parameter', '  /set system <string>           Set system message', ''].join(
  '\n',
);
const SHOW_HELP = [
  'Available commands:',
  '  /show info         Show details for this model',
  '  /show license      Show model license',
  '  /show modelfile    Show Modelfile for this model',
  '  /show parameters   Show parameters for this model',
  '  /show system       Show system message',
  '  /show template     Show prompt template',
  '',
].join('\n');

/**
 * The state of a `model run` chat, as `ollama run` keeps it: the model, the
 * conversation, and what `/set` changed for this session (a system message
 * that replaces the model's, and options sent with every request).
 */
export class ChatSession {
  model: string;
  system: string | undefined;
  readonly options: Record<string, number | boolean | string[]> = {};
  readonly messages: ChatMessage[] = [];

  constructor(model: string) {
    this.model = model;
  }

  /** The messages of the next request: the session's system message first (the model's own applies when there is none). */
  request(): ChatMessage[] {
    return this.system === undefined ? [...this.messages] : [{ role: 'system', content: this.system }, ...this.messages];
  }
}

/**
 * Runs one `/command` line of the chat, writing what it has to say; resolves
 * to 'exit' for /bye. A command that fails (a bad parameter, an unknown
 * model) says why and the chat goes on, as in `ollama run`.
 */
export async function runChatCommand(
  line: string,
  session: ChatSession,
  client: ModelServerClient,
  write: (text: string) => void,
): Promise<'exit' | undefined> {
  const [command = '', ...words] = line.split(/\s+/);
  const rest = line.slice(command.length).trim();
  switch (command) {
    case '/bye':
      return 'exit';
    case '/clear':
      session.messages.length = 0;
      write('Cleared session context\n');
      return undefined;
    case '/?':
    case '/help':
      write(CHAT_HELP);
      return undefined;
    case '/set':
      setCommand(words, rest, session, write);
      return undefined;
    case '/show':
      await showCommand(words[0], session, client, write);
      return undefined;
    case '/save':
      if (words.length !== 1) {
        write('Usage:\n  /save <modelname>\n');
        return undefined;
      }
      await client
        .create({
          model: words[0],
          from: session.model,
          messages: session.messages,
          ...(session.system === undefined ? {} : { system: session.system }),
          ...(Object.keys(session.options).length === 0 ? {} : { parameters: session.options }),
        })
        .then(
          () => write(`Created new model '${words[0]}'\n`),
          (error: unknown) => write(`error: ${remoteText((error as Error).message)}\n`),
        );
      return undefined;
    case '/load':
      if (words.length !== 1) {
        write('Usage:\n  /load <modelname>\n');
        return undefined;
      }
      write(`Loading model '${words[0]}'\n`);
      // A chat without messages loads the model, or says it does not exist.
      await client.chat({ model: words[0]!, messages: [] }).then(
        () => {
          session.model = words[0]!;
          session.messages.length = 0;
        },
        (error: unknown) => write(`error: ${remoteText((error as Error).message)}\n`),
      );
      return undefined;
    default:
      write(`Unknown command '${command}'. Type /? for help\n`);
      return undefined;
  }
}

function setCommand(words: string[], rest: string, session: ChatSession, write: (text: string) => void): void {
  const [what, name, ...values] = words;
  if (what === 'system' && words.length > 1) {
    // As ollama run: surrounding quotes are not part of the message.
    session.system = rest
      .slice('system'.length)
      .trim()
      .replace(/^"(.*)"$/s, '$1');
    write('Set system message.\n');
    return;
  }
  if (what === 'parameter' && name !== undefined && values.length > 0) {
    try {
      const value = name === 'stop' ? values : parameterValue(name, values.join(' '));
      session.options[name] = value;
      write(`Set parameter '${name}' to '${Array.isArray(value) ? value.join(', ') : String(value)}'\n`);
    } catch (error) {
      write(`Couldn't set parameter: ${(error as Error).message}\n`);
    }
    return;
  }
  write(SET_HELP);
}

async function showCommand(what: string | undefined, session: ChatSession, client: ModelServerClient, write: (text: string) => void): Promise<void> {
  const known = ['info', 'license', 'modelfile', 'parameters', 'system', 'template'];
  if (what === undefined || !known.includes(what)) {
    write(SHOW_HELP);
    return;
  }
  if (what === 'system' && session.system !== undefined) {
    write(`${session.system}\n`);
    return;
  }
  let shown;
  try {
    shown = await client.show(session.model);
  } catch (error) {
    write(`error: ${remoteText((error as Error).message)}\n`);
    return;
  }
  switch (what) {
    case 'system':
      write(shown.system ? `${remoteText(shown.system)}\n` : 'No system message was specified for this model.\n');
      return;
    case 'license':
      write(shown.license ? `${remoteText(shown.license)}\n` : 'No license was specified for this model.\n');
      return;
    case 'modelfile':
      write(`${remoteText(shown.modelfile)}\n`);
      return;
    case 'template':
      write(shown.template ? `${remoteText(shown.template)}\n` : 'No prompt template was specified for this model.\n');
      return;
    case 'parameters': {
      write(shown.parameters ? `Model defined parameters:\n${remoteText(shown.parameters)}\n` : 'No parameters were specified for this model.\n');
      const own = Object.entries(session.options);
      if (own.length > 0) {
        write('\nUser defined parameters:\n');
        for (const [name, value] of own) write(`${name.padEnd(30)} ${Array.isArray(value) ? value.join(', ') : String(value)}\n`);
      }
      return;
    }
    default: {
      const details = shown.details as { family?: string; parameter_size?: string; quantization_level?: string };
      const context = Object.entries(shown.model_info).find(([key]) => key.endsWith('.context_length'))?.[1];
      const rows: Array<[string, unknown]> = [
        ['architecture', details.family],
        ['parameters', details.parameter_size],
        ['context length', context],
        ['quantization', details.quantization_level],
      ];
      write('  Model\n');
      for (const [label, value] of rows) if (value !== undefined && value !== '') write(`    ${label.padEnd(20)} ${String(value)}\n`);
      if (shown.capabilities.length > 0) write(`\n  Capabilities\n${shown.capabilities.map((c) => `    ${c}\n`).join('')}`);
    }
  }
}
