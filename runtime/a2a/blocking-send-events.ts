import { TaskState, type Message, type Task } from '@a2a-js/sdk';
import { RequestMalformedError } from '@a2a-js/sdk/errors';
import { DefaultRequestHandler, type ExecutionEventQueue, type ResultManager, type ServerCallContext } from '@a2a-js/sdk/server';

interface ProcessOptions {
  firstResultResolver?: (result: Message | Task) => void;
  firstResultRejector?: (error: unknown) => void;
  authRequiredSnapshotResolver?: (snapshot: Task) => void;
}

/** The members of the SDK's `DefaultRequestHandler` (1.3.0) this loop calls or replaces: private in its types. */
export interface RequestHandlerInternals {
  _processEvents(
    taskId: string,
    resultManager: ResultManager,
    eventQueue: ExecutionEventQueue,
    context: ServerCallContext,
    options?: ProcessOptions,
  ): Promise<void>;
  _handleProcessingError(
    error: unknown,
    resultManager: ResultManager,
    firstResultSent: boolean,
    taskId: string,
    firstResultRejector?: (error: unknown) => void,
  ): Promise<void>;
}

/** The SDK's own loop, for handlers that may send push notifications. */
export const sdkProcessEvents = (DefaultRequestHandler.prototype as unknown as RequestHandlerInternals)._processEvents;

/**
 * The event loop behind the SDK's blocking `sendMessage` (`DefaultRequestHandler._processEvents`
 * of @a2a-js/sdk 1.3.0, same steps in the same order) for a handler that sends no push
 * notifications. The SDK's loop, for every event, loads the task again for a push payload
 * and `structuredClone`s the current task for the push sender, then hands both to a method
 * that drops them when the card declares no push notifications: about a tenth of an
 * executor's CPU per blocking call, for nothing. This loop skips that work and nothing
 * else; the task store, the first-result and AUTH_REQUIRED resolvers and the error
 * handling are the SDK's. `test/a2a/blocking-send-events.test.ts` fails when the SDK's
 * loop changes, so this copy is checked again on an upgrade.
 */
export async function processEventsWithoutPush(
  this: RequestHandlerInternals,
  taskId: string,
  resultManager: ResultManager,
  eventQueue: ExecutionEventQueue,
  _context: ServerCallContext,
  options?: ProcessOptions,
): Promise<void> {
  let firstResultSent = false;
  let authRequiredSnapshotSent = false;
  try {
    for await (const event of eventQueue.events()) {
      await resultManager.processEvent(event);
      if (options?.firstResultResolver && !firstResultSent) {
        let firstResult: Message | Task | undefined;
        if (event.kind === 'message' || event.kind === 'task') firstResult = event.data;
        else {
          const finalResult = resultManager.getFinalResult();
          if (finalResult && ('messageId' in finalResult || 'id' in finalResult)) firstResult = finalResult;
        }
        if (firstResult) {
          options.firstResultResolver(firstResult);
          firstResultSent = true;
        }
      }
      if (
        options?.authRequiredSnapshotResolver &&
        !authRequiredSnapshotSent &&
        event.kind === 'statusUpdate' &&
        event.data.status &&
        event.data.status.state === TaskState.TASK_STATE_AUTH_REQUIRED
      ) {
        const currentTask = resultManager.getCurrentTask();
        if (currentTask) {
          options.authRequiredSnapshotResolver(structuredClone(currentTask));
          authRequiredSnapshotSent = true;
          firstResultSent = true;
        }
      }
    }
    if (options?.firstResultResolver && options.firstResultRejector && !firstResultSent) {
      options.firstResultRejector(new RequestMalformedError('Execution finished before a message or task was produced.'));
    }
  } catch (error) {
    console.error(`Event processing loop failed for task ${taskId}:`, error);
    await this._handleProcessingError(error, resultManager, firstResultSent, taskId, options?.firstResultRejector);
  } finally {
    eventQueue.stop();
  }
}
