import { Box, Static, Text, useApp, useInput } from 'ink';
import { useCallback, useEffect, useState } from 'react';
import { assertNever } from '../runtime/core/assert-never.js';
import { parseChatInput, unknownCommandText, type ChatCommandName } from './chat-command.js';
import type { ChatSession } from './chat-session.js';
import { PromptInput } from './components/prompt-input.js';
import { StatusLine } from './components/status-line.js';
import { TranscriptEntry } from './components/transcript-entry.js';
import { useChat, type Chat, type ChatPhase } from './hooks/use-chat.js';
import { useHistory } from './hooks/use-history.js';
import { lastTurnTrace } from './last-turn-trace.js';
import type { PlanDecisionKind } from './plan-decision.js';
import type { TranscriptItem } from './transcript-item.js';

export interface ChatAppProps {
  session: ChatSession;
  /** Start a new session instead of resuming the saved one. */
  forceNew?: boolean;
  /** Called when the user quits (/exit, or Ctrl-C at the prompt), before the app exits. */
  onExit?: () => void;
}

/** The keys that decide a pending plan when typed on an empty line. */
const PLAN_KEYS: Readonly<Record<string, PlanDecisionKind>> = { a: 'approve', r: 'reject', m: 'modify' };

const HEADER = 'header';

/**
 * The interactive chat: opens the session on mount (an agent that is down is
 * an error line, and the next message tries again), streams what the agent
 * sends, shows plans as cards decided with `a` / `r` / `m` (Enter or any
 * other key starts a typed reply instead), and takes /help, /new and /exit.
 * Ctrl-C cancels a running request, and at the prompt quits; Ctrl+T shows
 * the trace of the last turn. Finished
 * entries are printed once with `<Static>`; only the live entry and the prompt re-render.
 *
 * @example
 * render(<ChatApp session={new ChatSession({ agentUrl, store })} />, { exitOnCtrlC: false });
 */
export function ChatApp({ session, forceNew = false, onExit }: ChatAppProps) {
  const chat = useChat(session, { forceNew });
  const history = useHistory();
  const { exit } = useApp();
  const [value, setValue] = useState('');
  // On a plan, keys decide until the user starts typing a reply.
  const [replying, setReplying] = useState(false);
  const { phase } = chat;
  const busy = phase === 'starting' || phase === 'streaming';
  const planKeysArmed = phase === 'plan' && !replying;

  useEffect(() => setReplying(false), [phase]);

  const quit = useCallback(() => {
    onExit?.();
    exit();
  }, [exit, onExit]);

  useInput((input, key) => {
    if (key.ctrl && input === 'c' && !chat.cancel()) quit();
    // The trace of the last turn, from the traces `up` keeps in the project's folder.
    if (key.ctrl && input === 't') chat.append({ kind: 'info', text: lastTurnTrace({ traceId: session.lastTraceId, root: process.cwd() }) });
  });

  const change = (next: string) => {
    if (planKeysArmed && value === '') {
      const kind = PLAN_KEYS[next];
      // A tool call is approved or rejected as asked: m starts a typed reply there.
      if (kind && !(kind === 'modify' && chat.pendingTool)) {
        chat.decide(kind);
        return;
      }
      setReplying(true);
    }
    setValue(next);
  };

  const recall = (line: string) => {
    if (phase === 'plan') setReplying(true);
    setValue(line);
  };

  const submit = (line: string) => {
    if (busy) return;
    if (planKeysArmed && line.trim() === '') {
      setReplying(true);
      return;
    }
    const input = parseChatInput(line);
    if (input.kind === 'message' && input.text === '') return;
    history.push(line.trim());
    setValue('');
    switch (input.kind) {
      case 'message':
        chat.send(input.text);
        return;
      case 'command':
        runCommand(input.name, { chat, quit });
        return;
      case 'unknown_command':
        chat.append({ kind: 'user', text: line.trim() });
        chat.append({ kind: 'info', text: unknownCommandText(input.name) });
        return;
      default:
        assertNever(input);
    }
  };

  return (
    <Box flexDirection="column">
      <Static items={[HEADER, ...chat.settled]}>
        {(item: typeof HEADER | TranscriptItem) =>
          item === HEADER ? (
            <Text key="header" dimColor>
              Chatting with {session.agentUrl}. Type /help for commands; Ctrl-C quits.
            </Text>
          ) : (
            <TranscriptEntry key={item.id} item={item} />
          )
        }
      </Static>
      {chat.live ? <TranscriptEntry item={chat.live} live={chat.liveActive} /> : null}
      {busy && !chat.live ? <StatusLine text={phase === 'starting' ? `Connecting to ${session.agentUrl}…` : 'Waiting for the agent…'} running /> : null}
      {busy ? (
        <Text dimColor>Ctrl-C cancels</Text>
      ) : (
        <PromptInput
          value={value}
          onChange={change}
          onSubmit={submit}
          onRecall={recall}
          history={history}
          placeholder={placeholderOf(phase, replying, chat.pendingTool)}
        />
      )}
    </Box>
  );
}

function runCommand(name: ChatCommandName, options: { chat: Chat; quit: () => void }): void {
  const { chat, quit } = options;
  switch (name) {
    case '/help':
      chat.append({ kind: 'user', text: name });
      chat.append({ kind: 'help' });
      return;
    case '/new':
      chat.append({ kind: 'user', text: name });
      chat.newSession();
      return;
    case '/exit':
      quit();
      return;
    default:
      assertNever(name);
  }
}

/** What the empty prompt suggests, by phase. */
function placeholderOf(phase: ChatPhase, replying: boolean, pendingTool: boolean): string {
  switch (phase) {
    case 'plan':
      if (pendingTool) return replying ? 'Type your reply to the tool call, then Enter' : 'a / r, or type a reply';
      return replying ? 'Type your reply to the plan, then Enter' : 'a / r / m, or type a reply';
    case 'question':
      return 'Type your answer, then Enter';
    case 'idle':
    case 'starting':
    case 'streaming':
      return 'Type a message (/help for commands)';
    default:
      return assertNever(phase);
  }
}
