import { createInterface } from 'node:readline';
import { Args } from '@oclif/core';
import { JsonCommand } from '../../json-command.js';
import { failWithModelError, hostFlag, modelServerClient } from '../../model-server-command.js';
import type { ModelServerClient } from '../../../runtime/model/model-server-client.js';
import { ChatSession, runChatCommand } from '../../model-chat-session.js';
import { remoteText } from '../../remote-text.js';

/** Opens and closes a multi-line message, as in `ollama run`. */
const FENCE = '"""';

export default class ModelRun extends JsonCommand {
  static override description = `Chat with a model of the running model server (OLLAMA_HOST), as \`ollama run\` does. With a prompt, the answer streams to standard output and the command exits; without, an interactive chat reads one message per line, or several lines between """ (/bye or Ctrl-D exits, /clear forgets the conversation, /set parameter|system, /show, /save, /load; Ctrl-C stops an answer). Lines piped on standard input are read as that chat's messages. Start a server first: framework-cli model serve.`;

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
    const client = await modelServerClient(flags.host);
    const prompt = (argv as string[]).slice(1).join(' ');
    try {
      if (prompt) {
        const reply = await client.chat({
          model: args.name,
          messages: [{ role: 'user', content: prompt }],
          ...(this.jsonEnabled() ? {} : { onText: (text: string) => process.stdout.write(remoteText(text)) }),
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
    const session = new ChatSession(model);
    const write = (text: string) => process.stdout.write(text);
    let sent = 0;
    let answering: AbortController | undefined;
    input.on('SIGINT', () => {
      if (answering) answering.abort();
      else write('\nUse Ctrl + d or /bye to exit.\n>>> ');
    });
    if (tty) write('Send a message (/? for help)\n');
    try {
      for (;;) {
        write('>>> ');
        const raw = await next();
        if (raw === undefined) {
          write('\n');
          break;
        }
        let line = raw.trim();
        let fenced = false;
        if (line.startsWith(FENCE)) {
          // A multi-line message: up to a line that ends with the fence (which may be this one).
          fenced = true;
          let text = line.slice(FENCE.length);
          while (!text.trimEnd().endsWith(FENCE)) {
            write('... ');
            const more = await next();
            if (more === undefined) break;
            text += `\n${more}`;
          }
          line = (text.trimEnd().endsWith(FENCE) ? text.trimEnd().slice(0, -FENCE.length) : text).trim();
        }
        if (!fenced && line.startsWith('/')) {
          if ((await runChatCommand(line, session, client, write)) === 'exit') break;
        } else if (line !== '') {
          session.messages.push({ role: 'user', content: line });
          sent += 1;
          answering = new AbortController();
          try {
            const reply = await client.chat({
              model: session.model,
              messages: session.request(),
              ...(Object.keys(session.options).length > 0 ? { options: session.options } : {}),
              signal: answering.signal,
              // The model's words are shown, never interpreted by the terminal.
              onText: (text: string) => write(remoteText(text)),
            });
            session.messages.push({ role: 'assistant', content: reply.content });
          } catch (error) {
            // Ctrl-C stops the answer; the conversation goes on without it.
            if (!answering.signal.aborted) throw error;
            session.messages.pop();
          } finally {
            answering = undefined;
          }
          write('\n\n');
        }
      }
    } finally {
      input.close();
    }
    return sent;
  }
}
