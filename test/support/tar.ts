import { gzipSync } from 'node:zlib';

/** One entry of a test archive: a file (the default), a directory or a link; `size` may lie about the content (a forged header). */
export interface TarEntry {
  name: string;
  content?: string | Buffer;
  type?: 'file' | 'dir' | 'symlink' | 'hardlink';
  linkname?: string;
}

/**
 * A POSIX ustar archive written by hand (a few header fields), gzip-compressed, so tests build the bundles
 * they serve without a tar dependency, and can build the hostile ones (`../`, links) a tar tool refuses to.
 */
export function tarGz(entries: readonly TarEntry[]): Buffer {
  const blocks: Buffer[] = [];
  for (const entry of entries) {
    const body = Buffer.from(entry.content ?? '');
    const header = Buffer.alloc(512);
    const field = (offset: number, length: number, text: string) => header.write(text, offset, length, 'utf8');
    field(0, 100, entry.name);
    field(100, 8, '0000644\0');
    field(108, 8, '0000000\0');
    field(116, 8, '0000000\0');
    field(124, 12, `${body.length.toString(8).padStart(11, '0')}\0`);
    field(136, 12, '00000000000\0');
    const type = { file: '0', dir: '5', symlink: '2', hardlink: '1' }[entry.type ?? 'file'];
    field(156, 1, type);
    if (entry.linkname) field(157, 100, entry.linkname);
    field(257, 6, 'ustar\0');
    field(263, 2, '00');
    header.fill(0x20, 148, 156);
    let sum = 0;
    for (const byte of header) sum += byte;
    field(148, 8, `${sum.toString(8).padStart(6, '0')}\0 `);
    blocks.push(header, body, Buffer.alloc((512 - (body.length % 512)) % 512));
  }
  blocks.push(Buffer.alloc(1024));
  return gzipSync(Buffer.concat(blocks));
}
