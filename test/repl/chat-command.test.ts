import { describe, expect, it } from 'vitest';
import { parseChatInput, unknownCommandText } from '../../repl/chat-command.js';

describe('parseChatInput', () => {
  it('reads the commands, in any case and with surrounding spaces', () => {
    expect(parseChatInput('/help')).toEqual({ kind: 'command', name: '/help' });
    expect(parseChatInput('  /NEW ')).toEqual({ kind: 'command', name: '/new' });
    expect(parseChatInput('/exit now')).toEqual({ kind: 'command', name: '/exit' });
  });

  it('names an unknown command as typed', () => {
    expect(parseChatInput('/Quit')).toEqual({ kind: 'unknown_command', name: '/Quit' });
    expect(unknownCommandText('/Quit')).toBe('Unknown command /Quit. The commands are /help, /new, /exit; anything else is sent to the agent.');
  });

  it('takes anything else as a message, trimmed', () => {
    expect(parseChatInput('  book flights; reserve hotel ')).toEqual({ kind: 'message', text: 'book flights; reserve hotel' });
    expect(parseChatInput('a/b')).toEqual({ kind: 'message', text: 'a/b' });
    expect(parseChatInput('   ')).toEqual({ kind: 'message', text: '' });
  });
});
