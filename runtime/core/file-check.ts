import { closeSync, fstatSync, openSync, readSync } from 'node:fs';
import { crc32 } from 'node:zlib';
import { z } from 'zod';

/**
 * A saved file's size and CRC-32, kept in its manifest: a file of another
 * size, or cut, or with a flipped byte is caught before it is used (the
 * Semantic Layer's saved index and vectors, the memory service's snapshot).
 */
export const FileCheckSchema = z.object({ bytes: z.number().int().min(0), crc32: z.number().int().min(0) });
export type FileCheck = z.infer<typeof FileCheckSchema>;

/** The size and CRC-32 of the file at `path`, read in chunks (no copy of a large file kept). */
export function fileCheck(path: string): FileCheck {
  const fd = openSync(path, 'r');
  try {
    const chunk = Buffer.allocUnsafe(8 << 20);
    let crc = 0;
    let bytes = 0;
    for (let read; (read = readSync(fd, chunk, 0, chunk.byteLength, bytes)) > 0; bytes += read) crc = crc32(chunk.subarray(0, read), crc);
    return { bytes, crc32: crc };
  } finally {
    closeSync(fd);
  }
}

/** Whether the file at `path` has the size and CRC-32 expected (a file of another size is not read). */
export function fileMatches(path: string, expected: FileCheck): boolean {
  const fd = openSync(path, 'r');
  try {
    if (fstatSync(fd).size !== expected.bytes) return false;
    const chunk = Buffer.allocUnsafe(Math.min(8 << 20, Math.max(expected.bytes, 1)));
    let crc = 0;
    for (let position = 0; position < expected.bytes;) {
      const read = readSync(fd, chunk, 0, Math.min(chunk.byteLength, expected.bytes - position), position);
      if (read === 0) return false;
      crc = crc32(chunk.subarray(0, read), crc);
      position += read;
    }
    return crc === expected.crc32;
  } finally {
    closeSync(fd);
  }
}

/** Reads `into.byteLength` bytes at `position`; a short file is an error. */
export function readFully(fd: number, into: Uint8Array, position: number): void {
  let done = 0;
  while (done < into.byteLength) {
    const read = readSync(fd, into, done, into.byteLength - done, position + done);
    if (read === 0) throw new RangeError('a file ended early');
    done += read;
  }
}
