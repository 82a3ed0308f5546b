import { TaskState, type Artifact, type Message, type StreamResponse, type Task } from '@a2a-js/sdk';
import { partsData, partsText } from './a2a-parts.js';

/** Task states by their stable lower-case names. */
export type A2ATaskState = 'submitted' | 'working' | 'input_required' | 'completed' | 'failed' | 'canceled' | 'rejected' | 'auth_required' | 'unknown';

const STATE_NAMES: Record<number, A2ATaskState> = {
  [TaskState.TASK_STATE_SUBMITTED]: 'submitted',
  [TaskState.TASK_STATE_WORKING]: 'working',
  [TaskState.TASK_STATE_INPUT_REQUIRED]: 'input_required',
  [TaskState.TASK_STATE_COMPLETED]: 'completed',
  [TaskState.TASK_STATE_FAILED]: 'failed',
  [TaskState.TASK_STATE_CANCELED]: 'canceled',
  [TaskState.TASK_STATE_REJECTED]: 'rejected',
  [TaskState.TASK_STATE_AUTH_REQUIRED]: 'auth_required',
};

export function stateName(state: TaskState | undefined): A2ATaskState {
  return state === undefined ? 'unknown' : (STATE_NAMES[state] ?? 'unknown');
}

/**
 * One chunk of an agent-to-agent call's answer, as `agentConnection` yields
 * it. `kind` says what the target sent: the task (`task`), a status update
 * (`status`: progress text, the input-required prompt, or the final state),
 * an artifact (`artifact`: the task's `text` or `result`), or a direct
 * `message`.
 */
export interface A2AChunk {
  kind: 'task' | 'status' | 'artifact' | 'message';
  taskId: string;
  contextId: string;
  /** The task state this chunk reports (`status` and `task` chunks). */
  state?: A2ATaskState;
  text?: string;
  data?: Record<string, unknown>;
  /** `action_type` of an input-required prompt, e.g. `plan_confirmation`. */
  actionType?: string;
  /** Name of an artifact: `result` or `text` for our agents. */
  artifactName?: string;
}

function fromMessage(chunk: A2AChunk, message: Message | undefined): A2AChunk {
  if (!message) return chunk;
  const text = partsText(message.parts);
  const data = partsData(message.parts);
  const actionType = message.metadata?.action_type;
  return {
    ...chunk,
    ...(text === undefined ? {} : { text }),
    ...(data === undefined ? {} : { data }),
    ...(typeof actionType === 'string' ? { actionType } : {}),
  };
}

/** Turns one SDK stream event into a chunk (undefined for an empty event). */
export function chunkFromStream(event: StreamResponse): A2AChunk | undefined {
  const payload = event.payload;
  switch (payload?.$case) {
    case 'task':
      return chunkFromTask(payload.value);
    case 'message':
      return fromMessage({ kind: 'message', taskId: payload.value.taskId, contextId: payload.value.contextId }, payload.value);
    case 'statusUpdate': {
      const { taskId, contextId, status } = payload.value;
      return fromMessage({ kind: 'status', taskId, contextId, state: stateName(status?.state) }, status?.message);
    }
    case 'artifactUpdate': {
      const { taskId, contextId, artifact } = payload.value;
      return chunkFromArtifact({ taskId, contextId, artifact });
    }
    default:
      return undefined;
  }
}

/**
 * All the chunks of one SDK stream event. A task snapshot gives its own
 * chunk followed by one `artifact` chunk per artifact it carries: that is
 * how a finished task arrives from an agent that does not stream (the SDK
 * client then falls back to one blocking send), and its result must not be
 * lost.
 */
export function chunksFromStream(event: StreamResponse): A2AChunk[] {
  const payload = event.payload;
  if (payload?.$case === 'task') {
    const task = payload.value;
    return [chunkFromTask(task), ...task.artifacts.map((artifact) => chunkFromArtifact({ taskId: task.id, contextId: task.contextId, artifact }))];
  }
  const chunk = chunkFromStream(event);
  return chunk === undefined ? [] : [chunk];
}

/**
 * The chunks of a blocking send's answer (`agentConnection` with `stream:
 * false`), in the order a stream brings the same responses: a message is one
 * `message` chunk; a task gives one `artifact` chunk per artifact, then the
 * task in its final state with its status message (the input-required
 * prompt, the failure text), as a stream's last status update carries it.
 */
export function chunksFromResult(result: Message | Task): A2AChunk[] {
  if ('messageId' in result) return [fromMessage({ kind: 'message', taskId: result.taskId, contextId: result.contextId }, result)];
  return [...result.artifacts.map((artifact) => chunkFromArtifact({ taskId: result.id, contextId: result.contextId, artifact })), chunkFromTask(result)];
}

function chunkFromArtifact(options: { taskId: string; contextId: string; artifact: Artifact | undefined }): A2AChunk {
  const { taskId, contextId, artifact } = options;
  const parts = artifact?.parts ?? [];
  const text = partsText(parts);
  const data = partsData(parts);
  return {
    kind: 'artifact',
    taskId,
    contextId,
    ...(artifact?.name ? { artifactName: artifact.name } : {}),
    ...(text === undefined ? {} : { text }),
    ...(data === undefined ? {} : { data }),
  };
}

/** A task snapshot as one chunk (its state and status message). */
export function chunkFromTask(task: Task): A2AChunk {
  return fromMessage({ kind: 'task', taskId: task.id, contextId: task.contextId, state: stateName(task.status?.state) }, task.status?.message);
}

/** True for states after which a task does nothing more without new input. */
export function isFinalState(state: A2ATaskState | undefined): boolean {
  return state === 'completed' || state === 'failed' || state === 'canceled' || state === 'rejected' || state === 'input_required' || state === 'auth_required';
}
