import type { ListTasksRequest, ListTasksResponse, Task } from '@a2a-js/sdk';
import { RequestMalformedError } from '@a2a-js/sdk/errors';
import { z } from 'zod';

/** Page size when a request gives none; the SDK's `DEFAULT_PAGE_SIZE` (not exported by it). */
export const DEFAULT_TASK_PAGE_SIZE = 50;

/** `TaskState.TASK_STATE_UNSPECIFIED`: a status filter of 0 filters nothing. */
const UNSPECIFIED_STATE = 0;

const PageCursorSchema = z.object({ timestamp: z.string(), id: z.string() });
type PageCursor = z.infer<typeof PageCursorSchema>;

/** An opaque page token: base64url of the JSON `{ timestamp, id }` of the last task of a page. */
export function encodeTaskPageToken(cursor: PageCursor): string {
  return Buffer.from(JSON.stringify(cursor), 'utf8').toString('base64url');
}

/**
 * The cursor inside a token from `encodeTaskPageToken`. Throws the SDK's
 * `RequestMalformedError` (JSON-RPC invalid params) for a token it cannot decode.
 */
export function decodeTaskPageToken(pageToken: string): PageCursor {
  let value: unknown;
  try {
    value = JSON.parse(Buffer.from(pageToken, 'base64url').toString('utf8'));
  } catch {
    value = undefined;
  }
  const parsed = PageCursorSchema.safeParse(value);
  if (!parsed.success) throw new RequestMalformedError('Invalid page token.');
  return parsed.data;
}

/**
 * One page of `ListTasks` over every task a caller may see, with the SDK's
 * `InMemoryTaskStore` semantics: filter by `contextId`, `status` (0 means any)
 * and `statusTimestampAfter`; sort by status timestamp (newest first), then
 * id (descending); continue after the task named by `pageToken` (a token whose
 * task is no longer in the list yields an empty page, as in the SDK); drop
 * artifacts unless `includeArtifacts`. `totalSize` counts the filtered tasks.
 * The caller's `tasks` are not modified, but the page shares their nested objects.
 *
 * @example
 * const page = listTaskPage({ tasks, params: { pageSize: 2 } });
 * const next = listTaskPage({ tasks, params: { pageSize: 2, pageToken: page.nextPageToken } });
 */
export function listTaskPage(options: { tasks: readonly Task[]; params: Partial<ListTasksRequest> }): ListTasksResponse {
  const { contextId, status, pageToken, statusTimestampAfter } = options.params;
  const pageSize = options.params.pageSize ?? DEFAULT_TASK_PAGE_SIZE;
  const includeArtifacts = options.params.includeArtifacts ?? false;
  // Decoded first, so a bad token fails even when there is nothing to list.
  const cursor = pageToken ? decodeTaskPageToken(pageToken) : undefined;

  let tasks = [...options.tasks];
  if (contextId) tasks = tasks.filter((task) => task.contextId === contextId);
  if (status !== undefined && status !== UNSPECIFIED_STATE) tasks = tasks.filter((task) => task.status?.state === status);
  if (statusTimestampAfter) {
    const after = new Date(statusTimestampAfter).getTime();
    tasks = tasks.filter((task) => task.status?.timestamp && new Date(task.status.timestamp).getTime() > after);
  }
  tasks.sort((a, b) => {
    const timeA = statusTime(a);
    const timeB = statusTime(b);
    return timeB !== timeA ? timeB.localeCompare(timeA) : b.id.localeCompare(a.id);
  });
  const totalSize = tasks.length;

  if (cursor !== undefined) {
    const index = tasks.findIndex((task) => statusTime(task) === cursor.timestamp && task.id === cursor.id);
    tasks = index === -1 ? [] : tasks.slice(index + 1);
  }
  const page = tasks.slice(0, pageSize);
  const last = page.at(-1);
  const nextPageToken = last !== undefined && tasks.length > page.length ? encodeTaskPageToken({ timestamp: statusTime(last), id: last.id }) : '';
  return {
    tasks: includeArtifacts ? page : page.map((task) => ({ ...task, artifacts: [] })),
    nextPageToken,
    pageSize,
    totalSize,
  };
}

function statusTime(task: Task): string {
  return task.status?.timestamp || '';
}
