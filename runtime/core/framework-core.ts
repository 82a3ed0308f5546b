import { CONTEXT_ATTRIBUTE, STEP_ATTRIBUTE, TASK_ATTRIBUTE } from './telemetry/span-attributes.js';
import { inSpan, spanScope, tracingEnabled } from './telemetry/tracing.js';
import { abortSourceOf, raceAbort, neverAborted, type AbortSource } from './abort.js';
import type { AgentResponse } from './agent-response.js';
import { InProcessContextStore, type ContextStore } from './context-store.js';
import { AbortedError } from './errors/aborted-error.js';
import { UnknownStepError } from './errors/unknown-step-error.js';
import { UnknownTaskError } from './errors/unknown-task-error.js';
import { FrameworkError } from './framework-error.js';
import { isPlainObject } from './json.js';
import type { TaskQuery } from './task-input.js';
import { TaskRun, type RunScope } from './task-run.js';

/** The task that receives a query when the caller names none. */
export const ROUTE_TO_TASK = 'route_to_task';

export interface StepContext {
  signal: AbortSignal;
  agent: FrameworkCore;
}

export type StepArgs = Readonly<Record<string, unknown>>;
export type StepResult = Record<string, unknown>;
export type StepFunction = (args: StepArgs, context: StepContext) => Promise<StepResult>;

export interface TaskContext {
  /** Exactly what the caller sent; see `parseTaskInput` for structured input. */
  query: TaskQuery;
  /** The conversation, when the caller has one (the front door always does). */
  contextId: string | undefined;
  /**
   * True when the conversation lasts only this request (an anonymous
   * front-door request, or the minimal front door): nothing can be asked
   * back, so a task should not wait for a reply.
   */
  oneShot: boolean;
  /**
   * Why no one can approve anything in this conversation, when that is so:
   * the transport cannot tell its callers apart (a chat interface sharing one
   * API key without forwarded user headers), so a reply could come from
   * anyone. A task then refuses what needs a person's approval, with this text.
   */
  approvalsOff?: string | undefined;
  signal: AbortSignal;
  agent: FrameworkCore;
}

export type TaskFunction = (context: TaskContext) => AsyncIterable<AgentResponse>;

export interface StepOptions {
  name: string;
}

export interface TaskOptions {
  name: string;
  /** Stable identifier of the task (the spec's `task_id`); defaults to the name. */
  taskId?: string;
}

export interface TaskInfo {
  name: string;
  taskId: string;
}

export interface ExecuteTaskOptions {
  query: TaskQuery;
  contextId?: string;
  /** The conversation ends with this request (see `TaskContext.oneShot`); default false. */
  oneShot?: boolean;
  /** Why no approval can be given in this conversation (see `TaskContext.approvalsOff`). */
  approvalsOff?: string;
  signal?: AbortSignal;
  /**
   * Instead of `signal`, for transports: an abort source such as a
   * `LazyAbortController`, whose signal is made only if the task reads it.
   */
  abort?: AbortSource;
}

export interface FrameworkCoreOptions {
  /**
   * Where session context lives. By default an in-process store; `runAgent`
   * replaces it with the store SESSION_BACKEND selects, shared with the front door.
   */
  sessions?: ContextStore;
}

type MethodDecorator<F> = (value: F, context: ClassMethodDecoratorContext) => void;

/**
 * The agent runtime: a registry of steps (async functions returning a plain
 * object) and tasks (async generators yielding `AgentResponse`s).
 *
 * @example
 * const agent = new FrameworkCore();
 * agent.step({ name: 'shout' }, async ({ text }) => ({ text: String(text).toUpperCase() }));
 * agent.task({ name: 'route_to_task' }, async function* ({ query, agent }) {
 *   const { text } = await agent.executeStep('shout', { text: query });
 *   yield AgentResponse.result({ text });
 * });
 * for await (const response of agent.executeTask('route_to_task', { query: 'hi' })) console.log(response);
 */
export class FrameworkCore {
  readonly #steps = new Map<string, StepFunction>();
  readonly #tasks = new Map<string, { info: TaskInfo; fn: TaskFunction }>();
  #sessions: ContextStore;
  /**
   * Context of the one-shot conversations running now (anonymous requests),
   * kept in this process while one of their tasks runs and dropped after:
   * a conversation that ends with its request never reaches the session
   * store (no Redis write, no key left behind for an hour). The context
   * itself is made by the first write: most one-shot runs write none.
   */
  readonly #oneShot = new Map<string, { context: InProcessContextStore | undefined; runs: number }>();

  constructor(options: FrameworkCoreOptions = {}) {
    this.#sessions = options.sessions ?? new InProcessContextStore();
  }

  /**
   * Registers a step. With a function, registers it now. Without one, returns
   * a TC39 method decorator: `@agent.step({ name: 'plan' }) async plan(args) {...}`.
   */
  step(options: StepOptions, fn: StepFunction): this;
  step(options: StepOptions): MethodDecorator<StepFunction>;
  step(options: StepOptions, fn?: StepFunction): this | MethodDecorator<StepFunction> {
    const name = requireName(options, 'step');
    if (fn) {
      register(this.#steps, 'step', name, fn);
      return this;
    }
    const steps = this.#steps;
    return (method, context) => {
      register(steps, 'step', name, method);
      // Rebind to the instance once one exists, so `this` works inside the method.
      context.addInitializer(function (this: unknown) {
        steps.set(name, method.bind(this));
      });
    };
  }

  /** Registers a task (an async generator function), or returns a method decorator. */
  task(options: TaskOptions, fn: TaskFunction): this;
  task(options: TaskOptions): MethodDecorator<TaskFunction>;
  task(options: TaskOptions, fn?: TaskFunction): this | MethodDecorator<TaskFunction> {
    const name = requireName(options, 'task');
    const info: TaskInfo = { name, taskId: options.taskId ?? name };
    const tasks = this.#tasks;
    if (fn) {
      register(tasks, 'task', name, { info, fn });
      return this;
    }
    return (method, context) => {
      register(tasks, 'task', name, { info, fn: method });
      context.addInitializer(function (this: unknown) {
        tasks.set(name, { info, fn: method.bind(this) });
      });
    };
  }

  get stepNames(): string[] {
    return [...this.#steps.keys()];
  }

  get tasks(): TaskInfo[] {
    return [...this.#tasks.values()].map((t) => ({ ...t.info }));
  }

  /**
   * The task a query goes to when none is named: `route_to_task` when
   * registered, else the only task. Throws `UnknownTaskError` otherwise.
   */
  get entryTask(): string {
    if (this.#tasks.has(ROUTE_TO_TASK)) return ROUTE_TO_TASK;
    if (this.#tasks.size === 1) return [...this.#tasks.keys()][0] as string;
    throw new UnknownTaskError({ task: ROUTE_TO_TASK, registered: [...this.#tasks.keys()] });
  }

  /** Runs a registered step; unknown names throw `UnknownStepError`. */
  async executeStep(name: string, args: StepArgs = {}, options: { signal?: AbortSignal } = {}): Promise<StepResult> {
    const fn = this.#steps.get(name);
    if (!fn) throw new UnknownStepError({ step: name, registered: this.stepNames });
    const signal = options.signal ?? neverAborted();
    const result = await inSpan(`step ${name}`, { attributes: { [STEP_ATTRIBUTE]: name } }, () => raceAbort(fn(args, { signal, agent: this }), signal));
    if (!isPlainObject(result)) {
      throw new FrameworkError({
        code: 'internal_error',
        message: `Step '${name}' must return a plain object, got ${result === null ? 'null' : typeof result}`,
      });
    }
    return result;
  }

  /**
   * Runs a registered task and yields its responses. The query reaches the task
   * exactly as given. When `signal` (or `abort`) fires, the task's generator is closed and
   * the iteration ends with `AbortedError`.
   */
  async *executeTask(name: string, options: ExecuteTaskOptions): AsyncGenerator<AgentResponse, void, undefined> {
    yield* this.openTask(name, options);
  }

  /**
   * {@link executeTask} for transports, without its generator: the run
   * itself (one promise per event instead of a chain of generators), inside
   * the task's span when tracing is on. Throws at once, not on the first
   * `next()`, when the task is unknown, the abort has fired or the task's
   * function throws (the span, if any, then ends with the error).
   */
  openTask(name: string, options: ExecuteTaskOptions): AsyncIterableIterator<AgentResponse> {
    if (!tracingEnabled()) return this.#open(name, options);
    const scope = spanScope(`task ${name}`, { attributes: { [TASK_ATTRIBUTE]: name, [CONTEXT_ATTRIBUTE]: options.contextId } });
    try {
      return scope.call(() => this.#open(name, options, scope));
    } catch (error) {
      scope.end({ error });
      throw error;
    }
  }

  /** The run of a task (reporting to `scope`, the task's span, when given). */
  #open(name: string, options: ExecuteTaskOptions, scope?: RunScope): TaskRun {
    const entry = this.#tasks.get(name);
    if (!entry) throw new UnknownTaskError({ task: name, registered: [...this.#tasks.keys()] });
    const abort = options.abort ?? abortSourceOf(options.signal ?? neverAborted());
    if (abort.aborted) throw new AbortedError({ cause: abort.reason });
    // A task run inside a one-shot conversation (a router's sub-task) is one-shot too.
    const oneShot = options.oneShot ?? (options.contextId !== undefined && this.#oneShot.has(options.contextId));
    const release = oneShot && options.contextId !== undefined ? this.#holdOneShot(options.contextId) : undefined;
    try {
      const responses = entry.fn({
        query: options.query,
        contextId: options.contextId,
        oneShot,
        ...(options.approvalsOff === undefined ? {} : { approvalsOff: options.approvalsOff }),
        // Made when the task reads it, not before.
        get signal() {
          return abort.signal;
        },
        agent: this,
      });
      return new TaskRun({ task: name, iterator: responses[Symbol.asyncIterator](), abort, release, scope });
    } catch (error) {
      release?.();
      throw error;
    }
  }

  /** The session context of a conversation (`{}` when none). */
  async getSessionContext(contextId: string): Promise<Record<string, unknown>> {
    const oneShot = this.#oneShot.get(contextId);
    if (oneShot) return oneShot.context ? oneShot.context.getContext(contextId) : {};
    return this.#sessions.getContext(contextId);
  }

  /** Merges `patch` into the session context of a conversation and returns the result. */
  async updateSessionContext(contextId: string, patch: Readonly<Record<string, unknown>>): Promise<Record<string, unknown>> {
    const oneShot = this.#oneShot.get(contextId);
    if (oneShot) return (oneShot.context ??= new InProcessContextStore()).updateContext(contextId, patch);
    return this.#sessions.updateContext(contextId, patch);
  }

  /**
   * Removes `key` from a conversation's session context when it still holds
   * `expected`; exactly one of several concurrent callers (replicas
   * included, with a shared store) gets `true`. For one-time decisions.
   */
  async claimSessionContextValue(contextId: string, key: string, expected: unknown): Promise<boolean> {
    const oneShot = this.#oneShot.get(contextId);
    if (oneShot) return oneShot.context ? oneShot.context.claimContextValue(contextId, key, expected) : false;
    return this.#sessions.claimContextValue(contextId, key, expected);
  }

  /** Uses `store` for session context from now on (the front door shares its session store this way). */
  useSessions(store: ContextStore): void {
    this.#sessions = store;
  }

  /** Keeps a one-shot conversation's context in process until the returned release is called as often as this was. */
  #holdOneShot(contextId: string): () => void {
    let held = this.#oneShot.get(contextId);
    if (!held) {
      held = { context: undefined, runs: 0 };
      this.#oneShot.set(contextId, held);
    }
    held.runs += 1;
    const entry = held;
    return () => {
      entry.runs -= 1;
      if (entry.runs === 0 && this.#oneShot.get(contextId) === entry) this.#oneShot.delete(contextId);
    };
  }
}
function register<V>(map: Map<string, V>, kind: 'step' | 'task', name: string, value: V): void {
  const fn = kind === 'task' ? (value as { fn: unknown }).fn : value;
  if (typeof fn !== 'function') throw new TypeError(`${kind} '${name}' needs a function`);
  if (map.has(name)) throw new TypeError(`A ${kind} named '${name}' is already registered`);
  map.set(name, value);
}

function requireName(options: { name: string }, kind: string): string {
  if (!options || typeof options.name !== 'string' || options.name.length === 0) {
    throw new TypeError(`agent.${kind}() needs { name: <non-empty string> }`);
  }
  return options.name;
}
