import type { Server } from 'node:http';
import type { Socket } from 'node:net';

/** A connection as the sweep last saw it. */
interface Watched {
  /** Bytes read and written when the count last changed. */
  bytes: number;
  /** When the sweep saw the count change (or the connection open). */
  since: number;
}

/**
 * Closes the connections of `server` that carried no byte either way for
 * `idleTimeoutMs`, from one timer that sweeps them all, instead of
 * `server.setTimeout`: that arms a timer on the socket of every request
 * (a `Timeout` and a bound function each time, refreshed by every read and
 * write), a fair part of a small request's cost. A connection is closed no
 * sooner than `idleTimeoutMs` after its last byte and at most a sweep
 * interval (a quarter of it, 10 s at most) later.
 */
export function closeIdleConnections(server: Server, idleTimeoutMs: number): void {
  const watched = new Map<Socket, Watched>();
  const every = Math.max(50, Math.min(10_000, Math.floor(idleTimeoutMs / 4)));
  let timer: NodeJS.Timeout | undefined;
  const sweep = (): void => {
    const now = Date.now();
    for (const [socket, seen] of watched) {
      const bytes = socket.bytesRead + socket.bytesWritten;
      if (bytes !== seen.bytes) {
        seen.bytes = bytes;
        seen.since = now;
      } else if (now - seen.since >= idleTimeoutMs) {
        watched.delete(socket);
        socket.destroy();
      }
    }
    if (watched.size === 0) {
      clearInterval(timer);
      timer = undefined;
    }
  };
  server.on('connection', (socket: Socket) => {
    if (socket.destroyed) return;
    watched.set(socket, { bytes: socket.bytesRead + socket.bytesWritten, since: Date.now() });
    socket.once('close', () => watched.delete(socket));
    if (!timer) {
      timer = setInterval(sweep, every);
      timer.unref();
    }
  });
  server.once('close', () => {
    clearInterval(timer);
    timer = undefined;
  });
}
