import { describe, expect, it } from 'vitest';
import { DEFAULT_KEEP_ALIVE_MS, KeepAliveTimers, parseKeepAlive } from '../../runtime/model/keep-alive.js';

describe('parseKeepAlive', () => {
  it('reads numbers as seconds and strings as Go durations, as Ollama does', () => {
    expect(parseKeepAlive(undefined, DEFAULT_KEEP_ALIVE_MS)).toBe(300_000);
    expect(parseKeepAlive(30, DEFAULT_KEEP_ALIVE_MS)).toBe(30_000);
    expect(parseKeepAlive(1.5, DEFAULT_KEEP_ALIVE_MS)).toBe(1500);
    expect(parseKeepAlive('10m', DEFAULT_KEEP_ALIVE_MS)).toBe(600_000);
    expect(parseKeepAlive('1h', DEFAULT_KEEP_ALIVE_MS)).toBe(3_600_000);
    expect(parseKeepAlive('1h30m', DEFAULT_KEEP_ALIVE_MS)).toBe(5_400_000);
    expect(parseKeepAlive('30s', DEFAULT_KEEP_ALIVE_MS)).toBe(30_000);
    expect(parseKeepAlive('250ms', DEFAULT_KEEP_ALIVE_MS)).toBe(250);
  });

  it('treats zero as unload now and a negative value as forever', () => {
    for (const zero of [0, '0', '0s', '0m']) expect(parseKeepAlive(zero, DEFAULT_KEEP_ALIVE_MS)).toBe(0);
    expect(parseKeepAlive(-1, DEFAULT_KEEP_ALIVE_MS)).toBe(Infinity);
    expect(parseKeepAlive('-1m', DEFAULT_KEEP_ALIVE_MS)).toBe(Infinity);
  });

  it('rejects what is not a duration with a 400', () => {
    for (const bad of ['10', 'soon', '5 minutes', '']) {
      expect(() => parseKeepAlive(bad, DEFAULT_KEEP_ALIVE_MS)).toThrow(
        expect.objectContaining({ status: 400, message: expect.stringContaining('invalid keep_alive') }),
      );
    }
  });
});

describe('KeepAliveTimers', () => {
  it('expires after the last request ends, and each request resets the timer', async () => {
    const expired: string[] = [];
    const timers = new KeepAliveTimers({ onExpire: (name) => expired.push(name) });
    timers.begin('a', 50);
    timers.begin('a', 50);
    timers.end('a', 50);
    await new Promise((r) => setTimeout(r, 100));
    expect(expired).toEqual([]); // one request still running
    timers.end('a', 50);
    expect(Date.parse(timers.expiresAt('a')!)).toBeGreaterThan(Date.now());
    await new Promise((r) => setTimeout(r, 30));
    timers.begin('a', 50); // resets
    timers.end('a', 50);
    await new Promise((r) => setTimeout(r, 30));
    expect(expired).toEqual([]);
    await new Promise((r) => setTimeout(r, 60));
    expect(expired).toEqual(['a']);
    expect(timers.expiresAt('a')).toBeUndefined();
  });

  it('never expires a model kept forever, and close() stops the timers', async () => {
    const expired: string[] = [];
    const timers = new KeepAliveTimers({ onExpire: (name) => expired.push(name) });
    timers.begin('forever', Infinity);
    timers.end('forever', Infinity);
    expect(timers.expiresAt('forever')).toBe('9999-12-31T23:59:59.000Z');
    timers.begin('b', 20);
    timers.end('b', 20);
    timers.close();
    await new Promise((r) => setTimeout(r, 50));
    expect(expired).toEqual([]);
  });
});
