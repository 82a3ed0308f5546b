import { randomUUID } from 'node:crypto';
import { Role, TaskState, type Message, type Part } from '@a2a-js/sdk';
import { AgentEvent, type AgentExecutor, type ExecutionEventBus, type RequestContext } from '@a2a-js/sdk/server';
import { UnsupportedOperationError } from '@a2a-js/sdk/errors';

const textPart = (text: string): Part => ({ content: { $case: 'text', value: text }, metadata: undefined, filename: '', mediaType: 'text/plain' });

/**
 * The A2A TCK's system-under-test behaviour (its Gherkin scenarios, as the
 * TCK's Python SUT implements them): the messageId prefix of the request
 * picks what the executor does. Served through our A2A endpoint (guard,
 * JSON-RPC, REST, push, v0.3), so the TCK measures our transports, not a
 * model.
 */
export class TckExecutor implements AgentExecutor {
  readonly #running = new Map<string, () => void>();
  readonly #contexts = new Map<string, string>();

  async execute(ctx: RequestContext, bus: ExecutionEventBus): Promise<void> {
    const { taskId, contextId } = ctx;
    const id = ctx.userMessage.messageId;
    this.#contexts.set(taskId, contextId);
    const status = (state: TaskState, message?: Message) =>
      bus.publish(AgentEvent.statusUpdate({ taskId, contextId, status: { state, message, timestamp: new Date().toISOString() }, metadata: undefined }));
    const agentMessage = (text: string): Message => ({
      messageId: randomUUID(),
      contextId,
      taskId,
      role: Role.ROLE_AGENT,
      parts: [textPart(text)],
      metadata: undefined,
      extensions: [],
      referenceTaskIds: [],
    });
    const artifact = (parts: Part[], options: { append?: boolean; lastChunk?: boolean; artifactId?: string } = {}) =>
      bus.publish(
        AgentEvent.artifactUpdate({
          taskId,
          contextId,
          artifact: { artifactId: options.artifactId ?? randomUUID(), name: '', description: '', parts, metadata: undefined, extensions: [] },
          append: options.append ?? false,
          lastChunk: options.lastChunk ?? false,
          metadata: undefined,
        }),
      );
    if (id.startsWith('tck-message-response')) {
      bus.publish(AgentEvent.message({ ...agentMessage('Direct message response'), taskId: '' }));
      bus.finished();
      return;
    }
    if (id.startsWith('tck-reject-task')) throw new UnsupportedOperationError('rejected');
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
    const file: Part = { content: { $case: 'raw', value: Buffer.from('tck') }, metadata: undefined, filename: 'output.txt', mediaType: 'text/plain' };
    const work = async (): Promise<void> => {
      if (id.startsWith('tck-stream-artifact-chunked')) {
        status(TaskState.TASK_STATE_WORKING);
        const artifactId = randomUUID();
        artifact([textPart('chunk-1 ')], { append: true, artifactId });
        artifact([textPart('chunk-2')], { append: true, lastChunk: true, artifactId });
      } else if (id.startsWith('test-resubscribe-message-id')) {
        status(TaskState.TASK_STATE_WORKING);
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, 4_000);
          this.#running.set(taskId, () => {
            clearTimeout(timer);
            resolve();
          });
        });
        this.#running.delete(taskId);
      } else if (id.startsWith('tck-stream-artifact-text')) {
        status(TaskState.TASK_STATE_WORKING);
        artifact([textPart('Streamed text content')]);
      } else if (id.startsWith('tck-stream-artifact-file')) {
        status(TaskState.TASK_STATE_WORKING);
        artifact([file]);
      } else if (id.startsWith('tck-stream-ordering-001')) {
        status(TaskState.TASK_STATE_WORKING);
        artifact([textPart('Ordered output')]);
      } else if (id.startsWith('tck-artifact-file-url')) {
        artifact([
          { content: { $case: 'url', value: 'https://example.com/output.txt' }, metadata: undefined, filename: 'output.txt', mediaType: 'text/plain' },
        ]);
      } else if (id.startsWith('tck-input-required')) {
        status(TaskState.TASK_STATE_INPUT_REQUIRED);
        return;
      } else if (id.startsWith('tck-complete-task')) {
        status(TaskState.TASK_STATE_COMPLETED, agentMessage('Hello from TCK'));
        return;
      } else if (id.startsWith('tck-artifact-text')) {
        artifact([textPart('Generated text content')]);
      } else if (id.startsWith('tck-artifact-file')) {
        artifact([file]);
      } else if (id.startsWith('tck-artifact-data')) {
        artifact([{ content: { $case: 'data', value: { key: 'value', count: 42 } }, metadata: undefined, filename: '', mediaType: 'application/json' }]);
      } else if (id.startsWith('tck-stream-001') || id.startsWith('tck-stream-003')) {
        status(TaskState.TASK_STATE_WORKING);
        artifact([textPart(id.startsWith('tck-stream-001') ? 'Stream hello from TCK' : 'Stream task lifecycle')]);
      } else if (!id.startsWith('tck-stream-002')) {
        status(TaskState.TASK_STATE_COMPLETED, agentMessage(`Unhandled messageId prefix: ${id}`));
        return;
      }
      status(TaskState.TASK_STATE_COMPLETED);
    };
    await work();
    bus.finished();
  }

  async cancelTask(taskId: string, bus: ExecutionEventBus): Promise<void> {
    this.#running.get(taskId)?.();
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
