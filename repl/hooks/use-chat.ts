import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import { isDecisionCard, isToolApproval, toolApprovalOf, type ChatEvent, type ToolApprovalCard } from '../chat-event.js';
import type { ChatSession } from '../chat-session.js';
import { describeChatError } from '../describe-chat-error.js';
import type { PlanDecisionKind } from '../plan-decision.js';
import { toolCallLine } from '../tool-call-text.js';
import type { TranscriptContent, TranscriptItem } from '../transcript-item.js';

/**
 * Where the conversation stands: opening the session, waiting for a message,
 * a request running, a plan waiting for a decision, or another question of the agent waiting for an answer.
 */
export type ChatPhase = 'starting' | 'idle' | 'streaming' | 'plan' | 'question';

export interface UseChatOptions {
  /** Start a new session instead of resuming the saved one (`--new-session`). */
  forceNew?: boolean;
}

export interface Chat {
  readonly transcript: readonly TranscriptItem[];
  /** The transcript but its live entry: what will not change any more (a prefix that only grows). */
  readonly settled: readonly TranscriptItem[];
  /** The last entry while it still changes: the status of a running request, or a plan (arrived, or waiting for a decision). */
  readonly live: TranscriptItem | undefined;
  /** Whether the live entry is active: a status while its request runs (a spinner), a plan once its keys decide it. */
  readonly liveActive: boolean;
  readonly phase: ChatPhase;
  /** In the `plan` phase: true when the card waiting is a tool call (approve or reject only), not a plan. */
  readonly pendingTool: boolean;
  /** Sends a message (ignored while a request runs). */
  send(text: string): void;
  /** Sends a plan decision (ignored while a request runs). */
  decide(kind: PlanDecisionKind): void;
  /** Aborts the running request, which closes its stream (the agent cancels the task); false when none runs. */
  cancel(): boolean;
  /** Starts a new session (`/new`). */
  newSession(): void;
  /** Adds a line of the REPL's own (help, an unknown command). */
  append(content: TranscriptContent): void;
}

const DECISION_LABELS: Readonly<Record<PlanDecisionKind, string>> = {
  approve: 'Approve the plan',
  reject: 'Reject the plan',
  modify: 'Modify the plan',
};

/** What the transcript says when a typed reply to a tool call decided nothing and the agent asks again. */
export const UNDECIDED_TOOL_REPLY = "That didn't approve or reject the tool call; type yes or no, or press a or r on an empty line.";

/** The echo of a decision: on a tool call, the call decided (`Approve place_trade({"amount":10000})`), else the plan's label. */
function decisionLabel(kind: PlanDecisionKind, options: { tool: boolean; card: ToolApprovalCard | undefined }): string {
  if (!options.tool) return DECISION_LABELS[kind];
  const verb = kind === 'approve' ? 'Approve' : 'Reject';
  return options.card ? `${verb} ${toolCallLine(options.card)}` : `${verb} the tool call`;
}

/**
 * The chat's state machine over a `ChatSession`: opens the session on mount,
 * runs one request at a time, and keeps the transcript (append-only, so the
 * app can print finished entries once with `<Static>`).
 *
 * After a stream ends the phase is `plan` when the last `input_required` was a
 * plan confirmation, `question` for another one, else `idle`. A transport
 * failure is added as a described error and never ends the chat: when the
 * request failed before the agent answered anything, the phase goes back to
 * what it was (so a plan can still be decided, a question still answered).
 * A cancel adds "Cancelled." and goes back to `idle` (the request may have
 * reached the agent, so a plan it decided may be gone).
 *
 * @example
 * const chat = useChat(session, { forceNew: false });
 * chat.send('book flights; reserve hotel');
 * if (chat.phase === 'plan') chat.decide('approve');
 */
export function useChat(session: ChatSession, options: UseChatOptions = {}): Chat {
  const [transcript, setTranscript] = useState<readonly TranscriptItem[]>([]);
  const [phase, setPhaseState] = useState<ChatPhase>('starting');
  const [pendingTool, setPendingTool] = useState(false);
  // The tool call waiting for a decision (its structured card), for the echo of a / r and to tell when a reply decided nothing.
  const pendingCard = useRef<ToolApprovalCard | undefined>(undefined);
  const pendingToolRef = useRef(false);
  const phaseRef = useRef<ChatPhase>('starting');
  const nextId = useRef(0);
  const running = useRef<AbortController | undefined>(undefined);
  const opened = useRef(false);
  const mounted = useRef(true);
  const forceNew = options.forceNew ?? false;

  const setPhase = useCallback((next: ChatPhase) => {
    phaseRef.current = next;
    if (mounted.current) setPhaseState(next);
  }, []);

  const append = useCallback((content: TranscriptContent) => {
    if (!mounted.current) return;
    const item = { id: nextId.current++, ...content } as TranscriptItem;
    setTranscript((items) => [...items, item]);
  }, []);

  /**
   * Runs one request: every event it yields goes to the transcript, then the
   * phase follows what the agent asked for. `resume` is the phase to go back
   * to when it fails or is cancelled before the agent sent anything; `busy`
   * the phase while it runs.
   */
  const run = useCallback(
    async (request: (signal: AbortSignal) => AsyncIterable<ChatEvent>, phases: { resume: ChatPhase; busy?: 'starting' | 'streaming'; repliedTo?: string }) => {
      if (running.current) return;
      const controller = new AbortController();
      running.current = controller;
      const { resume } = phases;
      setPhase(phases.busy ?? 'streaming');
      let asked: 'plan' | 'question' | undefined;
      let answered = false;
      // Back to `resume` when the request failed before the agent answered anything.
      const after = (completed: boolean) => (completed || answered ? (asked ?? 'idle') : resume);
      try {
        for await (const event of request(controller.signal)) {
          // A typed reply to a tool call that decided nothing: the agent asks again; say why before the card.
          if (phases.repliedTo !== undefined && toolApprovalOf(event)?.approval_id === phases.repliedTo) append({ kind: 'info', text: UNDECIDED_TOOL_REPLY });
          append({ kind: 'event', event });
          if (event.type === 'session') {
            opened.current = true;
            continue;
          }
          answered = true;
          if (event.type === 'input_required') {
            asked = isDecisionCard(event) ? 'plan' : 'question';
            pendingToolRef.current = isToolApproval(event);
            pendingCard.current = toolApprovalOf(event);
            setPendingTool(pendingToolRef.current);
          }
        }
        if (controller.signal.aborted) append({ kind: 'info', text: 'Cancelled.' });
        setPhase(controller.signal.aborted ? 'idle' : after(true));
      } catch (error) {
        // A cancelled request may have reached the agent (an approval may have used the plan up): back to idle, not to the plan.
        append(controller.signal.aborted ? { kind: 'info', text: 'Cancelled.' } : { kind: 'failure', error: describeChatError(error, session.agentUrl) });
        setPhase(controller.signal.aborted ? 'idle' : after(false));
      } finally {
        running.current = undefined;
      }
    },
    [append, session, setPhase],
  );

  /** The session is opened before the first request when opening it on mount failed (the agent was down). */
  const withSession = useCallback(
    (request: (signal: AbortSignal) => AsyncIterable<ChatEvent>) =>
      async function* (signal: AbortSignal): AsyncGenerator<ChatEvent, void, undefined> {
        if (!opened.current) yield await session.open({ forceNew, signal });
        yield* request(signal);
      },
    [session, forceNew],
  );

  useEffect(() => {
    mounted.current = true;
    void run(
      withSession(async function* () {}),
      { resume: 'idle', busy: 'starting' },
    );
    return () => {
      mounted.current = false;
      running.current?.abort();
    };
  }, [run, withSession]);

  const send = useCallback(
    (text: string) => {
      if (running.current) return;
      append({ kind: 'user', text });
      const repliedTo = phaseRef.current === 'plan' && pendingToolRef.current ? pendingCard.current?.approval_id : undefined;
      void run(
        withSession((signal) => session.send(text, { signal })),
        { resume: phaseRef.current, ...(repliedTo === undefined ? {} : { repliedTo }) },
      );
    },
    [append, run, session, withSession],
  );

  const decide = useCallback(
    (kind: PlanDecisionKind) => {
      if (running.current) return;
      append({ kind: 'user', text: decisionLabel(kind, { tool: pendingToolRef.current, card: pendingCard.current }) });
      void run(
        withSession((signal) => session.decide({ kind }, { signal })),
        { resume: phaseRef.current },
      );
    },
    [append, run, session, withSession],
  );

  const newSession = useCallback(() => {
    if (running.current) return;
    const restart = async function* (signal: AbortSignal): AsyncGenerator<ChatEvent, void, undefined> {
      yield await session.restart({ signal });
    };
    void run(restart, { resume: phaseRef.current, busy: 'starting' });
  }, [run, session]);

  const cancel = useCallback(() => {
    if (!running.current) return false;
    running.current.abort();
    return true;
  }, []);

  return useMemo(() => {
    const last = transcript.at(-1);
    const live = last !== undefined && isLive(last, phase) ? last : undefined;
    const settled = live ? transcript.slice(0, -1) : transcript;
    const liveActive = live !== undefined && (phase === 'plan' || (live.kind === 'event' && live.event.type === 'status'));
    return { transcript, settled, live, liveActive, phase, pendingTool, send, decide, cancel, newSession, append };
  }, [transcript, phase, pendingTool, send, decide, cancel, newSession, append]);
}

/**
 * True for the entry that still changes: a status while its request runs, a
 * plan from when it arrives (the stream may end in a later read) until it is
 * decided. An entry that stops being live never becomes live again, so
 * `settled` only grows and `<Static>` prints each entry once.
 */
function isLive(item: TranscriptItem, phase: ChatPhase): boolean {
  if (item.kind !== 'event') return false;
  return (phase === 'streaming' && (item.event.type === 'status' || isDecisionCard(item.event))) || (phase === 'plan' && isDecisionCard(item.event));
}
