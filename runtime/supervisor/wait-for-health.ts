/**
 * True when `GET url` answers 2xx within `timeoutMs` (default 2 s); false
 * when it answers otherwise or nothing answers.
 *
 * @example
 * if (await checkHealth({ url: 'http://127.0.0.1:8100/health' })) console.log('up');
 */
export async function checkHealth(options: { url: string; timeoutMs?: number }): Promise<boolean> {
  try {
    const response = await fetch(options.url, { signal: AbortSignal.timeout(options.timeoutMs ?? 2_000) });
    await response.body?.cancel();
    return response.ok;
  } catch {
    return false;
  }
}

/**
 * Polls `url` every `intervalMs` (default 200 ms) until it answers 2xx
 * (true), `timeoutMs` passes or `shouldStop()` returns true (false).
 *
 * @example
 * const healthy = await waitForHealth({ url: 'http://127.0.0.1:8181/health', timeoutMs: 60_000, shouldStop: () => stopping });
 */
export async function waitForHealth(options: { url: string; timeoutMs: number; intervalMs?: number; shouldStop?: () => boolean }): Promise<boolean> {
  const deadline = Date.now() + options.timeoutMs;
  for (;;) {
    if (options.shouldStop?.()) return false;
    if (await checkHealth({ url: options.url, timeoutMs: Math.max(200, Math.min(2_000, deadline - Date.now())) })) return true;
    if (options.shouldStop?.() || Date.now() >= deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, options.intervalMs ?? 200));
  }
}
