import { PLAN_CONFIRMATION } from '../runtime/core/agent-response.js';
import { AgentHttpError } from '../runtime/http/errors/agent-http-error.js';
import { SessionInvalidError } from '../runtime/sessions/errors/session-invalid-error.js';
import { FrameworkError } from '../runtime/core/framework-error.js';
import { FrontDoorClient, type FrontDoorSession } from '../runtime/http/front-door-client.js';
import type { ChatEvent, SessionNotice } from './chat-event.js';
import { planIdOf } from './chat-event.js';
import { TOOL_APPROVAL, TOOL_APPROVE, TOOL_REJECT } from '../runtime/tools/tool-approval.js';
import { decisionMessage, type PlanDecisionKind } from './plan-decision.js';
import type { SessionTokenStore } from './session-token-store.js';

export interface ChatSessionOptions {
  /** The agent's front door, e.g. `http://127.0.0.1:8100`. */
  agentUrl: string;
  store: SessionTokenStore;
  client?: FrontDoorClient;
}

/** A plan decision; `changes` (modify only) is sent as the answer to the agent's "what would you like to change?". */
export interface PlanDecision {
  kind: PlanDecisionKind;
  changes?: string;
}

/**
 * One conversation with an agent: the saved bearer token (reused across runs,
 * renewed when the agent says it expired), the messages sent on it, and the
 * plan last proposed. Used by the interactive REPL and by `chat --json`.
 *
 * @example
 * const chat = new ChatSession({ agentUrl: 'http://127.0.0.1:8100', store });
 * for await (const event of chat.send('plan a team offsite')) render(event);
 * for await (const event of chat.decide({ kind: 'approve' })) render(event);
 */
export class ChatSession {
  readonly agentUrl: string;
  readonly #store: SessionTokenStore;
  readonly #client: FrontDoorClient;
  #token: string | undefined;
  #anonymous = false;
  #planId: string | undefined;
  /** The tool call waiting for approval, when the agent's last question was one. */
  #approvalId: string | undefined;
  #contextId: string | undefined;
  /** Whether the agent's last answer asked for input (a plan, a question), so the next message is a reply. */
  #awaitingInput = false;

  constructor(options: ChatSessionOptions) {
    this.#client = options.client ?? new FrontDoorClient({ url: options.agentUrl });
    this.agentUrl = this.#client.url;
    this.#store = options.store;
  }

  /** The trace id of the agent's last answer (its `traceparent`), for Ctrl+T. */
  get lastTraceId(): string | undefined {
    return this.#client.lastTraceId;
  }

  /** The plan the agent last proposed on this session (from this run or a saved one). */
  get planId(): string | undefined {
    return this.#planId;
  }

  get contextId(): string | undefined {
    return this.#contextId;
  }

  /**
   * Reuses the saved token for this agent, or starts a session and saves it
   * (`forceNew` always starts one). Throws the client's typed errors when the
   * agent cannot be reached.
   */
  async open(options: { forceNew?: boolean; signal?: AbortSignal } = {}): Promise<SessionNotice> {
    if (!options.forceNew) {
      const saved = await this.#store.get(this.agentUrl);
      if (saved) {
        this.#token = saved.token;
        this.#planId = saved.plan_id;
        this.#approvalId = saved.approval_id || undefined;
        this.#contextId = saved.context_id;
        this.#awaitingInput = saved.awaiting_input ?? false;
        return notice('resumed', `Resumed your session with ${this.agentUrl}.`, saved.context_id);
      }
    }
    return this.#start('started', options.signal);
  }

  /** Starts a fresh conversation (the agent forgets the old one; `/new`). */
  async restart(options: { signal?: AbortSignal } = {}): Promise<SessionNotice> {
    return this.#start('started', options.signal);
  }

  /**
   * Sends one message and yields what happens, as it arrives. When the agent
   * refuses the token as expired (before running anything), a new session is
   * started and a new request is sent again on it; a reply to a plan or a
   * question is not (the new session knows nothing of what it answered), and
   * the renewal notice says so with `unsent`.
   */
  async *send(message: string, options: { signal?: AbortSignal } = {}): AsyncGenerator<ChatEvent, void, undefined> {
    yield* this.#send(message, { reply: this.#awaitingInput, signal: options.signal });
  }

  /**
   * Sends a plan decision. `modify` with `changes` answers the agent's
   * question about what to change in the same call, so a script runs the
   * whole flow with one command.
   */
  async *decide(decision: PlanDecision, options: { signal?: AbortSignal } = {}): AsyncGenerator<ChatEvent, void, undefined> {
    // Open first: the saved session names the plan the decision is about.
    if (this.#token === undefined && !this.#anonymous) yield await this.open(options.signal ? { signal: options.signal } : {});
    let asked = false;
    let unsent = false;
    // A tool call waiting for approval is decided with its own sentinels; a plan with the plan's.
    const message =
      this.#approvalId !== undefined && decision.kind !== 'modify'
        ? `${decision.kind === 'approve' ? TOOL_APPROVE : TOOL_REJECT} ${this.#approvalId}`
        : decisionMessage({ kind: decision.kind, planId: this.#planId });
    for await (const event of this.#send(message, { reply: true, signal: options.signal })) {
      if (event.type === 'input_required') asked = event.actionType !== PLAN_CONFIRMATION;
      if (event.type === 'session' && event.unsent) unsent = true;
      yield event;
    }
    if (decision.kind === 'modify' && decision.changes !== undefined && asked && !unsent && !options.signal?.aborted) {
      yield* this.send(decision.changes, options);
    }
  }

  async *#send(message: string, options: { reply: boolean; signal: AbortSignal | undefined }): AsyncGenerator<ChatEvent, void, undefined> {
    const { signal } = options;
    if (this.#token === undefined && !this.#anonymous) yield await this.open(signal ? { signal } : {});
    try {
      yield* this.#stream(message, signal);
    } catch (error) {
      if (!(FrameworkError.isInstance(error) && error instanceof SessionInvalidError) || this.#anonymous) throw error;
      const renewed = await this.#start('renewed', signal);
      // Sending again is safe (the agent ran nothing) but only means the same for a new request on a session.
      if (options.reply || renewed.status === 'anonymous') {
        yield {
          ...renewed,
          text: `${renewed.text} Your message was not sent: ${options.reply ? 'it answered a plan or question the agent no longer has' : 'without a session the agent would act on it with nothing to confirm'}. Send your request again.`,
          unsent: true,
        };
        return;
      }
      yield renewed;
      yield* this.#stream(message, signal);
    }
  }

  async *#stream(message: string, signal: AbortSignal | undefined): AsyncGenerator<ChatEvent, void, undefined> {
    const token = this.#token;
    let awaiting: boolean | undefined;
    for await (const event of this.#client.stream({ query: message, ...(token ? { token } : {}), ...(signal ? { signal } : {}) })) {
      if (event.type !== 'status') awaiting = event.type === 'input_required';
      if (event.type !== 'status') {
        const approvalId =
          event.type === 'input_required' && event.actionType === TOOL_APPROVAL && typeof event.data?.approval_id === 'string'
            ? event.data.approval_id
            : undefined;
        if (approvalId !== this.#approvalId) {
          this.#approvalId = approvalId;
          if (token) await this.#store.update(this.agentUrl, token, { approval_id: approvalId ?? '' });
        }
      }
      if (event.type === 'input_required' && event.actionType === PLAN_CONFIRMATION) {
        // A plan without an id (or an unreadable one) must not leave an older plan's id to be approved.
        const planId = planIdOf(event);
        if (planId !== this.#planId) {
          this.#planId = planId;
          if (token) await this.#store.update(this.agentUrl, token, { plan_id: planId });
        }
      }
      yield event;
    }
    if (awaiting !== undefined && awaiting !== this.#awaitingInput) {
      this.#awaitingInput = awaiting;
      if (token) await this.#store.update(this.agentUrl, token, { awaiting_input: awaiting });
    }
  }

  async #start(status: 'started' | 'renewed', signal: AbortSignal | undefined): Promise<SessionNotice> {
    let started: FrontDoorSession;
    try {
      started = await this.#client.startSession(signal ? { signal } : {});
    } catch (error) {
      if (FrameworkError.isInstance(error) && error instanceof AgentHttpError && (error.status === 404 || error.status === 405)) {
        this.#anonymous = true;
        this.#token = undefined;
        this.#awaitingInput = false;
        return notice('anonymous', `${this.agentUrl} has no sessions (POST /session/start answered ${error.status}): every message starts a new conversation.`);
      }
      throw error;
    }
    this.#token = started.token;
    this.#anonymous = false;
    this.#planId = undefined;
    this.#approvalId = undefined;
    this.#awaitingInput = false;
    this.#contextId = started.contextId;
    await this.#store.save(this.agentUrl, {
      token: started.token,
      saved_at: new Date().toISOString(),
      ...(started.contextId === undefined ? {} : { context_id: started.contextId }),
      ...(started.expiresAt === undefined ? {} : { expires_at: started.expiresAt }),
    });
    const text =
      status === 'renewed'
        ? `Your session with ${this.agentUrl} had expired; started a new one (the agent does not remember the earlier conversation).`
        : `Started a new session with ${this.agentUrl}.`;
    return notice(status, text, started.contextId);
  }
}

function notice(status: SessionNotice['status'], text: string, contextId?: string): SessionNotice {
  return { type: 'session', status, text, ...(contextId === undefined ? {} : { contextId }) };
}
