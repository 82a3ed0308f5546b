import { createHash } from 'node:crypto';
import { AgentCard, Role, Task, TaskState, type Message, type StreamResponse } from '@a2a-js/sdk';
import {
  AgentEvent,
  DefaultRequestHandler,
  type AgentExecutor,
  type ExecutionEventBus,
  type PushNotificationSender,
  type RequestContext,
  type ServerCallContext,
} from '@a2a-js/sdk/server';
import { describe, expect, it } from 'vitest';
import { CheckedRequestHandler } from '../../runtime/a2a/checked-request-handler.js';
import { MemoryTaskStore } from '../../runtime/a2a/memory-task-store.js';
import { planner } from './task-fixtures.js';

// A blocking send on an agent without push notifications runs `processEventsWithoutPush`, a copy of the SDK's event
// loop without the push payload it would drop: same answers, less work; with push declared, the SDK's own loop.

/** The SDK loop this copy was taken from (@a2a-js/sdk 1.3.0). On an SDK upgrade: compare, port any change, update. */
const SDK_LOOP_SHA256 = '178d80326e736320f1d0e7ce36411be7fd1a64361479710a6c9a6df6bc079d42';

const TIME = '2026-12-04T21:00:00.000Z';

function cardWith(pushNotifications: boolean): AgentCard {
  return AgentCard.fromJSON({
    name: 'executor',
    description: 'test',
    version: '1.0.0',
    supportedInterfaces: [{ url: 'http://127.0.0.1:1/', protocolBinding: 'JSONRPC', protocolVersion: '1.0' }],
    capabilities: { streaming: true, pushNotifications },
    defaultInputModes: ['text/plain'],
    defaultOutputModes: ['text/plain'],
    skills: [{ id: 's', name: 's', description: 's', tags: ['s'] }],
  });
}

/** Publishes a task, a working update, an artifact, then `final` (completed by default), with fixed ids and times. */
function executor(final: TaskState = TaskState.TASK_STATE_COMPLETED, options: { publishNothing?: boolean } = {}): AgentExecutor {
  return {
    async execute(context: RequestContext, bus: ExecutionEventBus) {
      const { taskId, contextId } = context;
      if (!options.publishNothing) {
        bus.publish(
          AgentEvent.task({
            id: taskId,
            contextId,
            status: { state: TaskState.TASK_STATE_SUBMITTED, message: undefined, timestamp: TIME },
            artifacts: [],
            history: [context.userMessage],
            metadata: undefined,
          }),
        );
        const status = (state: TaskState) =>
          bus.publish(AgentEvent.statusUpdate({ taskId, contextId, status: { state, message: undefined, timestamp: TIME }, metadata: undefined }));
        status(TaskState.TASK_STATE_WORKING);
        bus.publish(
          AgentEvent.artifactUpdate({
            taskId,
            contextId,
            artifact: {
              artifactId: 'a1',
              name: 'result',
              description: '',
              parts: [{ content: { $case: 'text', value: 'done' }, mediaType: 'text/plain', filename: '', metadata: undefined }],
              metadata: undefined,
              extensions: [],
            },
            append: false,
            lastChunk: true,
            metadata: undefined,
          }),
        );
        status(final);
      }
      bus.finished();
    },
    async cancelTask() {},
  };
}

/** A task store that counts its loads. */
class CountingStore extends MemoryTaskStore {
  loads = 0;
  override load(taskId: string, context: ServerCallContext): Promise<Task | undefined> {
    this.loads++;
    return super.load(taskId, context);
  }
}

/** A push sender that records what it is given. */
class RecordingSender implements PushNotificationSender {
  readonly sent: StreamResponse[] = [];
  async send(response: StreamResponse): Promise<void> {
    this.sent.push(response);
  }
}

function message(id: string): Message {
  return {
    messageId: id,
    contextId: 'ctx',
    taskId: '',
    role: Role.ROLE_USER,
    parts: [{ content: { $case: 'text', value: 'Book the room' }, mediaType: 'text/plain', filename: '', metadata: undefined }],
    metadata: undefined,
    extensions: [],
    referenceTaskIds: [],
  };
}

function handler(options: { push: boolean; executor?: AgentExecutor }) {
  const store = new CountingStore();
  const sender = new RecordingSender();
  const card = cardWith(options.push);
  const requestHandler = new CheckedRequestHandler(card, store, options.executor ?? executor(), undefined, undefined, sender);
  const send = async (id: string) => requestHandler.sendMessage({ tenant: '', message: message(id), configuration: undefined, metadata: undefined }, planner);
  return { store, sender, send };
}

/** A task as JSON without its generated id. */
function shape(result: Message | Task): unknown {
  const json = Task.toJSON(result as Task) as Record<string, unknown>;
  return {
    ...json,
    id: typeof json.id === 'string' ? 'task' : json.id,
    history: (json.history as Array<Record<string, unknown>>).map((m) => ({ ...m, taskId: 'task' })),
  };
}

describe('the blocking send event loop', () => {
  it('is the SDK loop it was copied from (this fails when an SDK upgrade changes it)', () => {
    const source = (DefaultRequestHandler.prototype as unknown as { _processEvents: () => void })._processEvents.toString();
    expect(createHash('sha256').update(source).digest('hex')).toBe(SDK_LOOP_SHA256);
  });

  it('answers a blocking send without push as the SDK loop does with push, without loading the task for a push payload', async () => {
    const plain = handler({ push: false });
    const pushing = handler({ push: true });
    const [withoutPush, withPush] = [await plain.send('m1'), await pushing.send('m1')];
    expect(shape(withoutPush)).toEqual(shape(withPush));
    expect((withoutPush as Task).status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect((withoutPush as Task).artifacts.map((a) => a.artifactId)).toEqual(['a1']);
    // The SDK loop sent a push payload for each of the 4 events (the task one loaded from the store) ...
    expect(pushing.sender.sent).toHaveLength(4);
    // ... which the loop without push does not build: one load fewer (the task event's), nothing sent.
    expect(plain.sender.sent).toHaveLength(0);
    expect(plain.store.loads).toBe(pushing.store.loads - 1);
    // And the stored task is the same.
    expect(shape((await plain.store.load((withoutPush as Task).id, planner))!)).toEqual(shape((await pushing.store.load((withPush as Task).id, planner))!));
  });

  it('answers an AUTH_REQUIRED task with its snapshot, and an execution that publishes nothing with the SDK error, as the SDK loop does', async () => {
    for (const push of [false, true]) {
      const auth = handler({ push, executor: executor(TaskState.TASK_STATE_AUTH_REQUIRED) });
      expect(((await auth.send('m2')) as Task).status?.state).toBe(TaskState.TASK_STATE_AUTH_REQUIRED);
      const silent = handler({ push, executor: executor(TaskState.TASK_STATE_COMPLETED, { publishNothing: true }) });
      await expect(silent.send('m3')).rejects.toThrow('Agent execution finished without a result');
    }
  });
});
