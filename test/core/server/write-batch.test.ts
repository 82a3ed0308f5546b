import { execFile } from 'node:child_process';
import { createServer, request, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { writeNodeJson } from '../../../runtime/core/server/node-answer.js';
import { endAtEndOfIo, writeAtEndOfIo } from '../../../runtime/core/server/write-batch.js';

const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

describe('writeAtEndOfIo', () => {
  it('writes nothing within the turn, then every writer of the turn together and in order', async () => {
    const written: string[] = [];
    const writer = (name: string) => ({ writeBatched: () => void written.push(name) });
    writeAtEndOfIo(writer('a'));
    // Queued later in the same turn: from a promise job and a nextTick callback.
    await Promise.resolve();
    writeAtEndOfIo(writer('b'));
    process.nextTick(() => writeAtEndOfIo(writer('c')));
    await new Promise<void>((resolve) => process.nextTick(resolve));
    expect(written).toEqual([]);
    // An immediate queued after them runs after the whole batch.
    await nextTurn();
    expect(written).toEqual(['a', 'b', 'c']);
  });

  it('writes a writer queued while a batch is written in the next turn, once', async () => {
    const written: string[] = [];
    let batchOver = false;
    writeAtEndOfIo({
      writeBatched: () => {
        written.push('first');
        writeAtEndOfIo({ writeBatched: () => void written.push(batchOver ? 'later, after the batch' : 'later, inside the batch') });
      },
    });
    writeAtEndOfIo({
      writeBatched: () => {
        written.push('second');
        batchOver = true;
      },
    });
    await nextTurn();
    await nextTurn();
    expect(written).toEqual(['first', 'second', 'later, after the batch']);
  });

  it('writes the other writers of a turn when one throws, and throws its error after them', async () => {
    // The error is thrown from the event loop (an uncaught exception), so in a process of its own.
    const compiled = fileURLToPath(new URL('../../../dist/runtime/core/server/write-batch.js', import.meta.url));
    const script = `
      import { writeAtEndOfIo } from ${JSON.stringify(compiled)};
      const written = [];
      let thrown;
      process.on('uncaughtException', (error) => (thrown = error.message));
      process.on('exit', () => console.log(JSON.stringify({ error: thrown, written })));
      writeAtEndOfIo({ writeBatched: () => written.push('a') });
      writeAtEndOfIo({ writeBatched: () => { throw new Error('broken writer'); } });
      writeAtEndOfIo({ writeBatched: () => written.push('c') });
      // The next turn's batch still runs.
      setImmediate(() => writeAtEndOfIo({ writeBatched: () => written.push('next turn') }));
    `;
    const { stdout } = await promisify(execFile)(process.execPath, ['--input-type=module', '-e', script], { timeout: 20_000 });
    expect(JSON.parse(stdout)).toEqual({ error: 'broken writer', written: ['a', 'c', 'next turn'] });
  });
});

/** A server answering every request with `handle` once its body is read; resolves with the client's view of one request. */
async function exchange(
  handle: (response: ServerResponse) => void,
): Promise<{ status: number; headers: IncomingMessage['headers']; body: string } | { error: string }> {
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => handle(res));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    return await new Promise((resolve) => {
      const req = request({ port: (server.address() as AddressInfo).port, host: '127.0.0.1', method: 'POST', path: '/' }, (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (body += chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
      });
      req.on('error', (error) => resolve({ error: error.message }));
      req.end('{}');
    });
  } finally {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
}

describe('endAtEndOfIo', () => {
  it('keeps the head set at once and ends the answer at the end of the turn', async () => {
    const seen: Array<Record<string, boolean>> = [];
    const answer = await exchange((res) => {
      res.writeHead(200, { 'Content-Type': 'text/plain', 'Content-Length': '2' });
      let ended = false;
      endAtEndOfIo(res, 'ok', () => (ended = true));
      seen.push({ headersSent: res.headersSent, writableEnded: res.writableEnded, ended });
      setImmediate(() => seen.push({ writableEnded: res.writableEnded, ended }));
    });
    expect(answer).toMatchObject({ status: 200, body: 'ok' });
    expect(seen).toEqual([
      { headersSent: true, writableEnded: false, ended: false },
      { writableEnded: true, ended: true },
    ]);
  });

  it('writes nothing for a connection closed before the end of the turn, and does not throw', async () => {
    let ended = false;
    const answer = await exchange((res) => {
      res.writeHead(200, { 'Content-Length': '2' });
      endAtEndOfIo(res, 'ok', () => (ended = true));
      res.destroy();
    });
    expect(answer).toEqual({ error: 'socket hang up' });
    await nextTurn();
    expect(ended).toBe(false);
  });

  it("leaves a bad header to writeNodeJson's caller, thrown at once, with nothing queued", async () => {
    let thrown: unknown;
    const answer = await exchange((res) => {
      try {
        writeNodeJson(res, 200, { ok: true }, { 'X-Bad': 'a\r\nInjected: yes' });
      } catch (error) {
        thrown = error;
        writeNodeJson(res, 500, { code: 'internal_error' });
      }
    });
    expect((thrown as NodeJS.ErrnoException).code).toBe('ERR_INVALID_CHAR');
    expect(answer).toMatchObject({ status: 500, body: '{"code":"internal_error"}' });
    expect((answer as { headers: IncomingMessage['headers'] }).headers.injected).toBeUndefined();
  });
});
