import { createInterface } from 'node:readline';
import { Args } from '@oclif/core';
import { JsonCommand } from '../../json-command.js';
import { failWithModelError, hostFlag, modelServerClient } from '../../model-server-command.js';
import type { ChatMessage, ModelServerClient } from '../../../runtime/model/model-server-client.js';

const HELP = ['Available commands:', '  /clear   Clear the conversation', '  /bye     Exit', '  /?       Help', ''].join('\n');

export default class ModelRun extends JsonCommand {
  static override description = `Chat with a model of the running model server (OLLAMA_HOST), as \`ollama run\` does. With a prompt, the answer streams to standard output and the command exits; without, an interactive chat reads one message per line (/bye or Ctrl-D exits, /clear forgets the conversation, Ctrl-C stops an answer). Lines piped on standard input are read as that chat's messages. Start a server first: framework-cli model serve.`;

  static override examples = [
    '<%= config.bin %> model run smollm2 "Why is the sky blue?"',
    '<%= config.bin %> model run smollm2',
    '<%= config.bin %> model run smollm2 "Name three colours" --json',
  ];

  static override enableJsonFlag = true;

  static override strict = false;

  static override args = {
    // ignoreStdin: oclif would otherwise take piped standard input as a missing argument; here it is the chat's input.
    name: Args.string({ description: 'model name', required: true, ignoreStdin: true }),
    prompt: Args.string({ description: 'the message (the words after the name are joined); none starts an interactive chat', ignoreStdin: true }),
  };

  static override flags = { host: hostFlag };

  async run(): Promise<{ model: string; response: string; done_reason?: string; eval_count?: number } | { model: string; messages: number }> {
    const { args, argv, flags } = await this.parse(ModelRun);
    const client = modelServerClient(flags.host);
    const prompt = (argv as string[]).slice(1).join(' ');
    try {
      if (prompt) {
        const reply = await client.chat({
          model: args.name,
          messages: [{ role: 'user', content: prompt }],
          ...(this.jsonEnabled() ? {} : { onText: (text: string) => process.stdout.write(text) }),
        });
        if (!this.jsonEnabled()) process.stdout.write('\n');
        return {
          model: args.name,
          response: reply.content,
          ...(reply.doneReason ? { done_reason: reply.doneReason } : {}),
          ...(reply.evalCount === undefined ? {} : { eval_count: reply.evalCount }),
        };
      }
      if (this.jsonEnabled()) this.error('--json needs a prompt: model run <name> "<prompt>" --json', { exit: 2, code: 'invalid_arguments' });
      // Loads the model (a chat without messages), so an unknown model fails before the prompt shows.
      await client.chat({ model: args.name, messages: [] });
      return { model: args.name, messages: await this.#chat(client, args.name) };
    } catch (error) {
      failWithModelError(this, error);
    }
  }

  /** The interactive chat; resolves to the number of messages sent when the user leaves. */
  async #chat(client: ModelServerClient, model: string): Promise<number> {
    const tty = process.stdin.isTTY === true;
    const input = createInterface({ input: process.stdin, ...(tty ? { output: process.stdout, terminal: true } : { terminal: false }) });
    // Lines are queued as they come: piped input arrives at once, while an answer is still streaming.
    const queue: string[] = [];
    let closed = false;
    let wake: (() => void) | undefined;
    input.on('line', (line) => {
      queue.push(line);
      wake?.();
    });
    input.on('close', () => {
      closed = true;
      wake?.();
    });
    const next = async (): Promise<string | undefined> => {
      while (queue.length === 0 && !closed) await new Promise<void>((resolve) => (wake = resolve));
      wake = undefined;
      return queue.shift();
    };
    const messages: ChatMessage[] = [];
    let sent = 0;
    let answering: AbortController | undefined;
    input.on('SIGINT', () => {
      if (answering) answering.abort();
      else process.stdout.write('\nUse Ctrl + d or /bye to exit.\n>>> ');
    });
    if (tty) process.stdout.write('Send a message (/? for help)\n');
    try {
      for (;;) {
        process.stdout.write('>>> ');
        const raw = await next();
        if (raw === undefined) {
          process.stdout.write('\n');
          break;
        }
        const line = raw.trim();
        if (line === '/bye') break;
        if (line === '/clear') {
          messages.length = 0;
          process.stdout.write('Cleared session context\n');
        } else if (line === '/?' || line === '/help') {
          process.stdout.write(HELP);
        } else if (line.startsWith('/')) {
          process.stdout.write(`Unknown command '${line.split(/\s/)[0]}'. Type /? for help\n`);
        } else if (line !== '') {
          messages.push({ role: 'user', content: line });
          sent += 1;
          answering = new AbortController();
          try {
            const reply = await client.chat({ model, messages, signal: answering.signal, onText: (text) => process.stdout.write(text) });
            messages.push({ role: 'assistant', content: reply.content });
          } catch (error) {
            // Ctrl-C stops the answer; the conversation goes on without it.
            if (!answering.signal.aborted) throw error;
            messages.pop();
          } finally {
            answering = undefined;
          }
          process.stdout.write('\n\n');
        }
      }
    } finally {
      input.close();
    }
    return sent;
  }
}
