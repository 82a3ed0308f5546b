import { TaskState, type Artifact, type Message } from '@a2a-js/sdk';
import { AgentEvent, type AgentExecutor, type ExecutionEventBus, type RequestContext } from '@a2a-js/sdk/server';
import { randomUUID } from 'node:crypto';
import { LazyAbortController } from '../core/abort.js';
import type { AgentResponse } from '../core/agent-response.js';
import type { FrameworkCore } from '../core/framework-core.js';
import { silentLogger, type Logger } from '../core/logger.js';
import { assertNever } from '../core/assert-never.js';
import { runTaskForTransport } from '../core/task-events.js';
import { ExpiringMap } from '../sessions/expiring-map.js';
import { agentMessage, dataPart, queryFromMessage, textPart } from './a2a-parts.js';

/**
 * Runs a FrameworkCore task for each A2A message and publishes what it
 * yields as A2A events:
 *
 * - `status` → a working status update carrying the text;
 * - `text` → an artifact with a text part;
 * - `result` → an artifact with a data part (the task completes when it ends);
 * - `input_required` → the input-required state with the prompt (`action_type` in the message metadata);
 * - an error → the failed state with its message.
 *
 * The message reaches the task exactly as sent; the A2A `contextId` is the
 * task's `context_id`. Cancelling aborts the task (and its model calls).
 */
/** How long a task waiting for input can still be cancelled by id. */
const WAITING_TTL_MS = 60 * 60 * 1000;

export class FrameworkExecutor implements AgentExecutor {
  readonly #core: FrameworkCore;
  readonly #logger: Logger;
  readonly #running = new Map<string, { abort: LazyAbortController; contextId: string }>();
  /**
   * Tasks that ended waiting for input, by id, with their contextId. The SDK
   * keeps their event bus alive and sends a cancel to us, so we must answer
   * it even though nothing runs (else the cancel call never returns).
   * Bounded: entries go after an hour or past 10,000 (a cancel of an evicted
   * task is answered "not cancelable").
   */
  readonly #waiting = new ExpiringMap<string>({ maxEntries: 10_000 });

  constructor(options: { core: FrameworkCore; logger?: Logger }) {
    this.#core = options.core;
    this.#logger = options.logger ?? silentLogger;
  }

  async execute(context: RequestContext, bus: ExecutionEventBus): Promise<void> {
    const { taskId, contextId } = context;
    const user = context.userMessage;
    const now = () => new Date().toISOString();
    bus.publish(
      AgentEvent.task(
        context.task
          ? { ...context.task, status: { state: TaskState.TASK_STATE_WORKING, message: undefined, timestamp: now() } }
          : {
              id: taskId,
              contextId,
              status: { state: TaskState.TASK_STATE_SUBMITTED, message: undefined, timestamp: now() },
              artifacts: [],
              history: [user],
              metadata: undefined,
            },
      ),
    );
    const abort = new LazyAbortController();
    this.#waiting.delete(taskId);
    this.#running.set(taskId, { abort, contextId });
    const status = (state: TaskState, message?: Message) =>
      bus.publish(AgentEvent.statusUpdate({ taskId, contextId, status: { state, message, timestamp: now() }, metadata: undefined }));
    const artifact = (value: Artifact) =>
      bus.publish(AgentEvent.artifactUpdate({ taskId, contextId, artifact: value, append: false, lastChunk: true, metadata: undefined }));

    try {
      if (!context.task) status(TaskState.TASK_STATE_WORKING);
      let finalState: TaskState = TaskState.TASK_STATE_COMPLETED;
      let finalMessage: Message | undefined;
      const responses = runTaskForTransport({ core: this.#core, query: queryFromMessage(user), contextId, abort, logger: this.#logger });
      for await (const response of responses) {
        const outcome = this.#publish(response, { taskId, contextId, status, artifact });
        if (outcome) {
          [finalState, finalMessage] = outcome;
          break;
        }
      }
      // A cancel has already published the canceled state.
      if (!abort.aborted) {
        if (finalState === TaskState.TASK_STATE_INPUT_REQUIRED) this.#waiting.set(taskId, contextId, Date.now() + WAITING_TTL_MS);
        status(finalState, finalMessage);
      }
    } finally {
      this.#running.delete(taskId);
      if (!abort.aborted) bus.finished();
    }
  }

  /** Publishes one response; returns the final state when the response ends the task. */
  #publish(
    response: AgentResponse,
    io: { taskId: string; contextId: string; status: (state: TaskState, message?: Message) => void; artifact: (value: Artifact) => void },
  ): [TaskState, Message] | undefined {
    const { taskId, contextId } = io;
    switch (response.type) {
      case 'status':
        io.status(TaskState.TASK_STATE_WORKING, agentMessage({ text: response.text, taskId, contextId }));
        return undefined;
      case 'text':
        io.artifact({ artifactId: randomUUID(), name: 'text', description: '', parts: [textPart(response.text)], metadata: undefined, extensions: [] });
        return undefined;
      case 'result':
        io.artifact({ artifactId: randomUUID(), name: 'result', description: '', parts: [dataPart(response.data)], metadata: undefined, extensions: [] });
        return undefined;
      case 'input_required':
        return [
          TaskState.TASK_STATE_INPUT_REQUIRED,
          agentMessage({
            text: response.text,
            taskId,
            contextId,
            ...(response.actionType === undefined ? {} : { metadata: { action_type: response.actionType } }),
          }),
        ];
      case 'error':
        return [TaskState.TASK_STATE_FAILED, agentMessage({ text: response.message, taskId, contextId, metadata: { code: response.code } })];
      default:
        return assertNever(response);
    }
  }

  /**
   * Cancels a running task (its signal fires) or one waiting for input.
   * Always ends the bus: the SDK waits on it, and for a task we do not know
   * it then answers "not cancelable" instead of waiting for ever.
   */
  async cancelTask(taskId: string, bus: ExecutionEventBus): Promise<void> {
    const running = this.#running.get(taskId);
    const contextId = running?.contextId ?? this.#waiting.get(taskId, Date.now());
    running?.abort.abort();
    this.#waiting.delete(taskId);
    if (contextId !== undefined) {
      bus.publish(
        AgentEvent.statusUpdate({
          taskId,
          contextId,
          status: { state: TaskState.TASK_STATE_CANCELED, message: undefined, timestamp: new Date().toISOString() },
          metadata: undefined,
        }),
      );
    }
    bus.finished();
  }
}
