import type { Command } from '@oclif/core';

/** `host:port`, `:port` or `port`; undefined when it is none of those. */
export function parseAddr(addr: string): { host: string; port: number } | undefined {
  const match = /^(?:\[?([^\]]*?)\]?:)?(\d{1,5})$/.exec(addr.trim());
  if (!match) return undefined;
  const port = Number(match[2]);
  if (port > 65535) return undefined;
  return { host: match[1] || '127.0.0.1', port };
}

/**
 * The tail of every `serve` command: announce the address (one JSON line
 * under --json), wait for SIGINT/SIGTERM, close, and return the result
 * oclif prints. Signal handlers go in before the announcement, because a
 * supervisor may signal as soon as it reads the address.
 */
export async function serveUntilStopped(
  command: Command,
  server: { url: string; close(): Promise<void> },
  message: string,
): Promise<{ url: string; stopped: true }> {
  const stopped = new Promise<void>((resolve) => {
    process.once('SIGINT', () => resolve());
    process.once('SIGTERM', () => resolve());
  });
  if (command.jsonEnabled()) process.stdout.write(`${JSON.stringify({ event: 'listening', url: server.url })}\n`);
  else command.log(`${message} (Ctrl+C to stop)`);
  await stopped;
  await server.close();
  // The spans of the last requests, still in the batch, go out before the process does (imported
  // here: loaded already when the prerun hook started telemetry, and not worth loading before parsing otherwise).
  const { shutdownTelemetry } = await import('../runtime/telemetry/start-telemetry.js');
  await shutdownTelemetry();
  return { url: server.url, stopped: true };
}
