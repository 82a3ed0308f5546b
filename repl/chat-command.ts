/** The REPL's own commands, as /help lists them. */
export const CHAT_COMMANDS = [
  { name: '/help', description: 'show this help' },
  { name: '/new', description: 'start a new session (the agent forgets this conversation)' },
  { name: '/exit', description: 'quit (Ctrl-C at the prompt does the same)' },
] as const;

export type ChatCommandName = (typeof CHAT_COMMANDS)[number]['name'];

/** A line typed at the prompt: a message for the agent, one of the commands, or an unknown `/word`. */
export type ChatInput =
  | { readonly kind: 'message'; readonly text: string }
  | { readonly kind: 'command'; readonly name: ChatCommandName }
  | { readonly kind: 'unknown_command'; readonly name: string };

const NAMES: ReadonlySet<string> = new Set(CHAT_COMMANDS.map((command) => command.name));

/**
 * Reads a submitted prompt line. A line whose first word starts with `/` is a
 * command (case-insensitive); anything else is a message, sent as typed.
 *
 * @example
 * parseChatInput('/new');        // { kind: 'command', name: '/new' }
 * parseChatInput('/quit');       // { kind: 'unknown_command', name: '/quit' }
 * parseChatInput('book flights'); // { kind: 'message', text: 'book flights' }
 */
export function parseChatInput(line: string): ChatInput {
  const trimmed = line.trim();
  if (!trimmed.startsWith('/')) return { kind: 'message', text: trimmed };
  const [word = ''] = trimmed.split(/\s+/, 1);
  const name = word.toLowerCase();
  return NAMES.has(name) ? { kind: 'command', name: name as ChatCommandName } : { kind: 'unknown_command', name: word };
}

/** The line shown for an unknown command. */
export function unknownCommandText(name: string): string {
  return `Unknown command ${name}. The commands are ${CHAT_COMMANDS.map((command) => command.name).join(', ')}; anything else is sent to the agent.`;
}
