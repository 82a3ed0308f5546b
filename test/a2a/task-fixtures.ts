import { Task, TaskState, type ListTasksRequest, type ListTasksResponse } from '@a2a-js/sdk';
import { ServerCallContext, type TaskStore } from '@a2a-js/sdk/server';

// Shared by the A2A task store tests.

/** A call context of an authenticated user, optionally in a tenant. */
export function caller(userName: string, tenant?: string): ServerCallContext {
  return new ServerCallContext({ user: { isAuthenticated: true, userName }, ...(tenant === undefined ? {} : { tenant }) });
}

export const planner = caller('planner');

/** A task in the SDK's shape, built from the protocol's JSON. */
export function makeTask(options: { id: string; contextId?: string; state?: string; timestamp?: string; withArtifact?: boolean }): Task {
  return Task.fromJSON({
    id: options.id,
    contextId: options.contextId ?? 'ctx-1',
    status: {
      state: options.state ?? 'TASK_STATE_WORKING',
      ...(options.timestamp === undefined ? {} : { timestamp: options.timestamp }),
    },
    ...(options.withArtifact ? { artifacts: [{ artifactId: `art-${options.id}`, name: 'out', parts: [{ text: 'result' }] }] } : {}),
  });
}

export function listRequest(params: Partial<ListTasksRequest> = {}): ListTasksRequest {
  return { tenant: '', contextId: '', status: TaskState.TASK_STATE_UNSPECIFIED, pageToken: '', statusTimestampAfter: undefined, ...params };
}

/** Every page of a listing, following page tokens. */
export async function allPages(store: TaskStore, params: Partial<ListTasksRequest>, context = planner): Promise<ListTasksResponse[]> {
  const pages: ListTasksResponse[] = [];
  let pageToken = '';
  do {
    const page = await store.list(listRequest({ ...params, pageToken }), context);
    pages.push(page);
    pageToken = page.nextPageToken;
  } while (pageToken !== '' && pages.length < 10);
  return pages;
}

export const ids = (page: ListTasksResponse): string[] => page.tasks.map((task) => task.id);

/** Five tasks: two contexts, three states, two sharing a timestamp (tie broken by id). */
export const FIVE: Task[] = [
  makeTask({ id: 't1', contextId: 'ctx-a', state: 'TASK_STATE_COMPLETED', timestamp: '2025-01-01T00:00:01.000Z', withArtifact: true }),
  makeTask({ id: 't2', contextId: 'ctx-a', state: 'TASK_STATE_WORKING', timestamp: '2025-01-01T00:00:03.000Z', withArtifact: true }),
  makeTask({ id: 't3', contextId: 'ctx-b', state: 'TASK_STATE_COMPLETED', timestamp: '2025-01-01T00:00:03.000Z' }),
  makeTask({ id: 't4', contextId: 'ctx-b', state: 'TASK_STATE_FAILED', timestamp: '2025-01-01T00:00:02.000Z' }),
  makeTask({ id: 't5', contextId: 'ctx-a', state: 'TASK_STATE_COMPLETED', timestamp: '2025-01-01T00:00:05.000Z', withArtifact: true }),
];

/** Listings that exercise every filter and paging rule, for comparing a store with the SDK's `InMemoryTaskStore`. */
export const LIST_CASES: Array<Partial<ListTasksRequest>> = [
  {},
  { pageSize: 2 },
  { pageSize: 1, includeArtifacts: true },
  { contextId: 'ctx-a', pageSize: 2 },
  { status: TaskState.TASK_STATE_COMPLETED, pageSize: 2 },
  { statusTimestampAfter: '2025-01-01T00:00:02.500Z' },
  { contextId: 'nope' },
];

/** Pages without their tokens (opaque, and different between stores), keeping whether there was a next one. */
export const withoutTokens = (pages: ListTasksResponse[]): Array<Omit<ListTasksResponse, 'nextPageToken'> & { more: boolean }> =>
  pages.map(({ nextPageToken, ...rest }) => ({ ...rest, more: nextPageToken !== '' }));
