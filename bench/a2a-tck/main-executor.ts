import { TaskState } from '@a2a-js/sdk';
import { AgentEvent, type AgentExecutor, type ExecutionEventBus, type RequestContext } from '@a2a-js/sdk/server';

/** How long a `test-subscribe-message-id…` task waits before it starts working (the reference SUT's RESUBSCRIBE_TIMEOUT_MS). */
const SUBSCRIBE_DELAY_MS = Number(process.env.RESUBSCRIBE_TIMEOUT_MS ?? 3_000);

/**
 * The system-under-test behaviour the TCK's `main` branch expects, as its
 * reference SUT (the a2a-java SDK's `tck` module) behaves: every message
 * creates a task (submitted), which moves to working and stays there; the
 * execution returns at once, so a blocking send answers with the working
 * task, and the task can be continued, listed while working and cancelled.
 * A message whose id starts with `test-subscribe-message-id` waits a few
 * seconds first, so the TCK can subscribe while the task is submitted.
 * Cancelling is the SDK's: a task with no running execution is marked
 * cancelled by the request handler.
 */
export class MainBranchExecutor implements AgentExecutor {
  readonly #contexts = new Map<string, string>();

  async execute(ctx: RequestContext, bus: ExecutionEventBus): Promise<void> {
    const { taskId, contextId } = ctx;
    this.#contexts.set(taskId, contextId);
    if (!ctx.task)
      bus.publish(
        AgentEvent.task({
          id: taskId,
          contextId,
          status: { state: TaskState.TASK_STATE_SUBMITTED, message: undefined, timestamp: new Date().toISOString() },
          artifacts: [],
          history: [ctx.userMessage],
          metadata: undefined,
        }),
      );
    if (ctx.userMessage.messageId.startsWith('test-subscribe-message-id')) await new Promise((resolve) => setTimeout(resolve, SUBSCRIBE_DELAY_MS));
    bus.publish(
      AgentEvent.statusUpdate({
        taskId,
        contextId,
        status: { state: TaskState.TASK_STATE_WORKING, message: undefined, timestamp: new Date().toISOString() },
        metadata: undefined,
      }),
    );
    bus.finished();
  }

  async cancelTask(taskId: string, bus: ExecutionEventBus): Promise<void> {
    // Only reached while an execution is still publishing (the subscribe delay): the SDK marks idle tasks itself.
    bus.publish(
      AgentEvent.statusUpdate({
        taskId,
        contextId: this.#contexts.get(taskId) ?? '',
        status: { state: TaskState.TASK_STATE_CANCELED, message: undefined, timestamp: new Date().toISOString() },
        metadata: undefined,
      }),
    );
    bus.finished();
  }
}
