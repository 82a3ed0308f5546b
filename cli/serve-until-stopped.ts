/** `host:port`, `:port` or `port`; undefined when it is none of those. */
export function parseAddr(addr: string): { host: string; port: number } | undefined {
  const match = /^(?:\[?([^\]]*?)\]?:)?(\d{1,5})$/.exec(addr.trim());
  if (!match) return undefined;
  const port = Number(match[2]);
  if (port > 65535) return undefined;
  return { host: match[1] || '127.0.0.1', port };
}

/**
 * What a `serve` command's body needs of the command running it: an oclif
 * command has all of it, and so has the lean start of `cli/serve-lean.ts`,
 * which runs the body without loading the rest of oclif.
 */
export interface ServeIo {
  /** Whether output is JSON (`--json`). */
  jsonEnabled(): boolean;
  /** A line on standard output, silent under --json. */
  log(message: string): void;
  /** A line on standard error. */
  logToStderr(message: string): void;
  /** Stops the command with oclif's error (`exit` 2 for bad arguments). */
  error(message: string, options: { exit: number; code?: string }): never;
}

/**
 * The tail of every `serve` command: announce the address (one JSON line
 * under --json), wait for SIGINT/SIGTERM, close, and return the result
 * oclif prints. Signal handlers go in before the announcement, because a
 * supervisor may signal as soon as it reads the address.
 */
export async function serveUntilStopped(
  command: ServeIo,
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
