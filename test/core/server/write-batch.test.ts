import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { writeAtEndOfIo } from '../../../runtime/core/server/write-batch.js';

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
