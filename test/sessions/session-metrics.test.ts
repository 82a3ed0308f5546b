import { describe, expect, it } from 'vitest';
import { serviceMetricsText } from '../../runtime/core/telemetry/service-metrics.js';
import { InProcessSessionStore } from '../../runtime/sessions/in-process-session-store.js';

const active = async () => /^sessions_active\{backend="memory"\} (\d+)$/m.exec((await serviceMetricsText()).text)?.[1];

describe('sessions_active on /metrics', () => {
  it('counts the sessions of the open in-process stores that have not expired, and forgets a closed store', async () => {
    let now = Date.parse('2026-06-01T12:00:00Z');
    const short = new InProcessSessionStore({ ttlSeconds: 60, now: () => now });
    const long = new InProcessSessionStore({ ttlSeconds: 3600, now: () => now });
    await short.start();
    await short.start();
    await long.resolve((await long.start()).token);
    expect(await active()).toBe('3');
    now += 61_000;
    expect(await active()).toBe('1');
    await long.close();
    expect(await active()).toBe('0');
    await short.close();
  });
});
