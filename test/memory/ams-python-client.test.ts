import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { redisScope } from '../support/redis-scope.js';
import { listeningMemoryService, modelRuntime } from './support.js';
import { venvPython } from '../support/python-venv.js';

/**
 * The official AMS Python client (agent-memory-client) against our service.
 * Runs when FRAMEWORK_AMS_PYTHON is the python of a venv with the client:
 *   python3 -m venv .venv-ams && .venv-ams/bin/pip install agent-memory-client==0.14.0
 *   FRAMEWORK_AMS_PYTHON=.venv-ams/bin/python npx vitest run test/memory/ams-python-client.test.ts
 */
const python = venvPython({ env: 'FRAMEWORK_AMS_PYTHON', setup: 'python3 -m venv .venv-ams && .venv-ams/bin/pip install agent-memory-client==0.14.0' });
const SCRIPT = fileURLToPath(new URL('./fixtures/ams_client_check.py', import.meta.url));
const MORE = fileURLToPath(new URL('./fixtures/ams_client_more.py', import.meta.url));
const UPKEEP = fileURLToPath(new URL('./fixtures/ams_client_upkeep.py', import.meta.url));

describe.skipIf(!python)('the official AMS Python client against the memory service', () => {
  const scope = redisScope();
  const running = listeningMemoryService({ keyPrefix: scope.prefix, models: modelRuntime() });

  it('creates, searches, writes and reads working memory, builds a prompt, deletes, and reads our errors', async () => {
    const { stdout } = await promisify(execFile)(python!, [SCRIPT, running().url, 'py-ns'], { timeout: 60_000, env: { PATH: process.env.PATH ?? '' } });
    expect(JSON.parse(stdout)).toEqual({
      health_now: true,
      create_status: 'ok',
      search_ids: ['py-tea', 'py-report'],
      search_total: 2,
      search_first_dist_below_second: true,
      search_first_namespace: 'py-ns',
      topics_ids: ['py-report'],
      created_new_session: true,
      fresh_messages: 0,
      put_messages: ['Hello from Python', 'Hello back'],
      found_existing_session: true,
      got_messages: ['Hello from Python', 'Hello back'],
      got_data: { lang: 'python' },
      prompt_roles: ['user', 'assistant', 'system', 'user'],
      prompt_last: 'What should I drink?',
      delete_status: 'ok, deleted 1 memories',
      delete_working_status: 'ok',
      error: { status: 400, message: expect.stringContaining('limit') },
    });
  });

  it('finds a user session by its id alone, lists sessions, gets and edits memories by id, ranks by keyword, hybrid and recency (issue 24)', async () => {
    const { stdout } = await promisify(execFile)(python!, [MORE, running().url, 'py-ns2'], { timeout: 90_000, env: { PATH: process.env.PATH ?? '' } });
    expect(JSON.parse(stdout)).toEqual({
      found_by_id_alone: true,
      found_user: 'py-user',
      found_data: { theme: 'dark' },
      // The four messages of the one session (not two in a forked data-only session), then the query.
      prompt_texts: ['one', 'two', 'three', 'four', 'What next?'],
      sessions_total: 3,
      sessions_pages: [['py-user-session', 'py-list-a'], ['py-list-b']],
      sessions_of_user: ['py-user-session'],
      got_text: 'The user lives in Lyon',
      got_topics: [],
      edited: ['The user moved to Marseille', ['home']],
      search_after_edit: 'The user moved to Marseille',
      missing: 'MemoryNotFoundError',
      // By meaning the old memory is nearer; AMS's recency (here 0.5 / 0.5) puts the fresh one first.
      no_recency_ids: ['py-old', 'py-new'],
      recency_first: 'py-new',
      keyword: [['py-edit'], 'keyword'],
      hybrid: [['py-edit'], 'hybrid'],
      scoped_delete: 'ok, deleted 0 memories',
      still_there: 'py-edit',
      delete: 'ok, deleted 1 memories',
    });
  });

  it('forgets by policy, falls back from a soft filter, updates last_accessed, runs summary views and reads their task (the rest of the 0.14 API)', async () => {
    const { stdout } = await promisify(execFile)(python!, [UPKEEP, running().url, 'py-ns3'], { timeout: 90_000, env: { PATH: process.env.PATH ?? '' } });
    expect(JSON.parse(stdout)).toEqual({
      // The client sends dry_run only when true; AMS's default is a dry run. The pinned id is spared.
      forget_dry: [3, 1, ['up-old'], true],
      still_there_after_dry_run: 'up-old',
      soft_first: 'up-new',
      // The fallback keeps the namespace filter (AMS drops it).
      soft_other_namespace_total: 0,
      touched: [1, true],
      view: ['per user', 'long_term', ['user_id'], { namespace: 'py-ns3' }],
      listed: true,
      got_view: true,
      // No generation model on this server: AMS's fallback summary (the texts concatenated).
      partition: [{ user_id: 'u2' }, 1, true],
      task_type: ['summary_view_full_run', true],
      task_status: ['success', null, true],
      partitions: [
        ['u1', 2],
        ['u2', 1],
      ],
      partitions_of_u1: ['u1'],
      unknown_task: null,
      delete_view: 'ok',
      view_after_delete: null,
      bad_view: 400,
    });
  });
});
