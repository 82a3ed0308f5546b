/**
 * The files of an OPA bundle, read from a directory or a `.tar.gz` archive
 * within fixed bounds: an archive that inflates past its limit (a gzip
 * bomb), an entry path that climbs out of the bundle (`../`), a link, a
 * device or an oversized entry is refused with a message naming it, before
 * anything is loaded. An archive inflates off the event loop (see
 * gunzip-within.ts), so the server answers while a large bundle is read.
 */
import { lstat, readdir, readFile, realpath, stat } from 'node:fs/promises';
import { join, relative, sep } from 'node:path';
import { gunzipWithin, InflateLimitError } from './gunzip-within.js';

/** One file of a bundle: its path inside the bundle (`a/b/policy.rego`, `/`-separated, no leading slash) and bytes. */
export interface BundleEntry {
  path: string;
  bytes: Buffer;
  /** The path OPA's loader names the file by, which a manifest's `file_rego_versions` patterns match: an archive entry's name as written, a directory's file `/`-rooted. */
  loaderPath?: string;
}

/** The bounds a bundle is read within. */
export interface BundleLimits {
  /** Largest `.tar.gz` file read (compressed bytes). */
  maxArchiveBytes: number;
  /** Largest total of the files' bytes (for an archive: the inflated tar, its headers included). */
  maxTotalBytes: number;
  /** Largest single file (OPA's `size_limit_bytes`). */
  maxFileBytes: number;
  /** Most files in one bundle. */
  maxFiles: number;
}

/** Defaults well above real bundles (OPA's own default file limit is 1 GiB; a server holding that much in memory is not what this serves). */
export const DEFAULT_BUNDLE_LIMITS: BundleLimits = {
  maxArchiveBytes: 128 * 1024 * 1024,
  maxTotalBytes: 256 * 1024 * 1024,
  maxFileBytes: 64 * 1024 * 1024,
  maxFiles: 100_000,
};

/** A bundle that cannot be read at all (not a `file:` problem of one module): the message says which entry and why. */
export class BundleReadError extends Error {
  override readonly name = 'BundleReadError';
}

const BLOCK = 512;

/** Whether a bundle path names an archive (`.tar.gz`, `.tgz`) rather than a directory. */
export function isBundleArchive(path: string): boolean {
  return /\.(tar\.gz|tgz)$/i.test(path);
}

/** Reads a bundle's files from a directory or a `.tar.gz` file, sorted by path. */
export async function readBundleEntries(path: string, limits: BundleLimits = DEFAULT_BUNDLE_LIMITS): Promise<BundleEntry[]> {
  const info = await stat(path).catch((error: NodeJS.ErrnoException) => {
    throw new BundleReadError(`cannot read bundle ${path}: ${error.code === 'ENOENT' ? 'no such file or directory' : error.message}`);
  });
  let entries: BundleEntry[];
  try {
    entries = info.isDirectory() ? await readBundleDirectory(path, limits) : await readBundleArchive(await readArchiveFile(path, info.size, limits), limits);
  } catch (error) {
    // A file or folder that cannot be read (permissions, removed while read) is the bundle's problem, not a crash.
    if ((error as NodeJS.ErrnoException).code !== undefined && !(error instanceof BundleReadError)) {
      throw new BundleReadError(`cannot read bundle ${path}: ${(error as Error).message}`);
    }
    throw error;
  }
  entries.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  return entries;
}

async function readArchiveFile(path: string, size: number, limits: BundleLimits): Promise<Buffer> {
  if (size > limits.maxArchiveBytes) throw new BundleReadError(`bundle archive ${path} is ${size} bytes, more than the limit of ${limits.maxArchiveBytes}`);
  return readFile(path);
}

/**
 * The files of a gzip-compressed tar archive. Regular files only: directories
 * are skipped, PAX and GNU long-name headers read, and anything else (links,
 * devices, FIFOs) refused, as is a path with a `..` segment.
 */
export async function readBundleArchive(gzipped: Buffer, limits: BundleLimits = DEFAULT_BUNDLE_LIMITS): Promise<BundleEntry[]> {
  let tar: Buffer;
  try {
    tar = await gunzipWithin(gzipped, limits.maxTotalBytes);
  } catch (error) {
    if (error instanceof InflateLimitError) {
      throw new BundleReadError(`bundle archive inflates past the limit of ${limits.maxTotalBytes} bytes`);
    }
    throw new BundleReadError(`bundle archive is not gzip-compressed data: ${(error as Error).message}`);
  }
  const entries: BundleEntry[] = [];
  const seen = new Set<string>();
  let total = 0;
  let longName: string | undefined;
  let paxPath: string | undefined;
  for (let offset = 0; offset + BLOCK <= tar.length;) {
    const header = tar.subarray(offset, offset + BLOCK);
    if (header.every((b) => b === 0)) break; // the end-of-archive blocks
    checkHeaderChecksum(header, offset);
    const size = octal(header.subarray(124, 136), offset);
    const type = String.fromCharCode(header[156] as number);
    const dataStart = offset + BLOCK;
    const dataEnd = dataStart + size;
    if (dataEnd > tar.length) throw new BundleReadError(`bundle archive is truncated (an entry at byte ${offset} runs past its end)`);
    offset = dataStart + Math.ceil(size / BLOCK) * BLOCK;
    const data = tar.subarray(dataStart, dataEnd);
    if (type === 'L') {
      longName = cString(data);
      continue;
    }
    if (type === 'x') {
      paxPath = paxRecord(data, 'path') ?? paxPath;
      continue;
    }
    if (type === 'g') continue;
    const name = paxPath ?? longName ?? ustarName(header);
    paxPath = undefined;
    longName = undefined;
    if (type === '5') continue;
    const path = entryPath(name);
    if (type !== '0' && type !== '\0' && type !== '7') {
      const what = type === '2' ? 'a symbolic link' : type === '1' ? 'a hard link' : `of tar type ${JSON.stringify(type)}`;
      throw new BundleReadError(`bundle archive entry ${JSON.stringify(name)} is ${what}; a bundle holds regular files only`);
    }
    if (size > limits.maxFileBytes) {
      throw new BundleReadError(`bundle file '${path}' size (${size} bytes) exceeded max size (${limits.maxFileBytes} bytes)`);
    }
    if (seen.has(path)) throw new BundleReadError(`bundle archive holds ${JSON.stringify(path)} twice`);
    seen.add(path);
    total += size;
    if (total > limits.maxTotalBytes) throw new BundleReadError(`bundle files total more than the limit of ${limits.maxTotalBytes} bytes`);
    if (entries.length >= limits.maxFiles) throw new BundleReadError(`bundle holds more than ${limits.maxFiles} files`);
    // A view, not a copy: the inflated tar is dropped with the entries once the bundle is read.
    entries.push({ path, bytes: data, loaderPath: name });
  }
  return entries;
}

/** The path of an entry inside the bundle: leading `/` and `./` dropped; empty, `..` and NUL-holding paths refused. */
function entryPath(name: string): string {
  const segments = name.split('/').filter((s) => s !== '' && s !== '.');
  if (segments.length === 0 || segments.includes('..') || name.includes('\0') || name.includes('\\')) {
    throw new BundleReadError(`bundle archive entry ${JSON.stringify(name)} is not a path inside the bundle`);
  }
  return segments.join('/');
}

function ustarName(header: Buffer): string {
  const name = cString(header.subarray(0, 100));
  const magic = header.subarray(257, 262).toString('latin1');
  const prefix = magic === 'ustar' ? cString(header.subarray(345, 500)) : '';
  return prefix === '' ? name : `${prefix}/${name}`;
}

function cString(bytes: Buffer): string {
  const end = bytes.indexOf(0);
  return bytes.subarray(0, end === -1 ? bytes.length : end).toString('utf8');
}

/** A numeric header field: octal text, or GNU's base-256 form (high bit set) for sizes past 8 GiB, refused here. */
function octal(field: Buffer, offset: number): number {
  if (((field[0] as number) & 0x80) !== 0) throw new BundleReadError(`bundle archive entry at byte ${offset} is larger than any bundle file may be`);
  const text = cString(field).trim();
  if (!/^[0-7]*$/.test(text)) throw new BundleReadError(`bundle archive header at byte ${offset} is not a tar header`);
  return text === '' ? 0 : parseInt(text, 8);
}

function checkHeaderChecksum(header: Buffer, offset: number): void {
  let sum = 0;
  for (let i = 0; i < BLOCK; i++) sum += i >= 148 && i < 156 ? 0x20 : (header[i] as number);
  if (octal(header.subarray(148, 156), offset) !== sum)
    throw new BundleReadError(`bundle archive header at byte ${offset} is not a tar header (checksum mismatch)`);
}

/** One record (`<len> <key>=<value>\n`) of a PAX extended header. */
function paxRecord(data: Buffer, key: string): string | undefined {
  const text = data.toString('utf8');
  let found: string | undefined;
  for (let i = 0; i < text.length;) {
    const space = text.indexOf(' ', i);
    const length = Number(text.slice(i, space));
    if (space === -1 || !Number.isInteger(length) || length <= 0) throw new BundleReadError('bundle archive holds a malformed PAX header');
    const record = text.slice(space + 1, i + length - 1);
    const eq = record.indexOf('=');
    if (record.slice(0, eq) === key) found = record.slice(eq + 1);
    i += length;
  }
  return found;
}

/**
 * The files of a bundle directory. Hidden entries are skipped except the
 * root's `.manifest` and `.signatures.json` (a Kubernetes ConfigMap's
 * `..data` holds every file a second time); links are followed when they
 * stay inside the bundle (a ConfigMap mounts each file as one).
 */
async function readBundleDirectory(root: string, limits: BundleLimits): Promise<BundleEntry[]> {
  const realRoot = await realpath(root);
  const entries: BundleEntry[] = [];
  let total = 0;
  const pending = [root];
  const seen = new Set<string>();
  for (let dir = pending.pop(); dir !== undefined; dir = pending.pop()) {
    const real = await realpath(dir);
    if (seen.has(real)) continue;
    seen.add(real);
    for (const entry of await readdir(dir, { withFileTypes: true })) {
      const full = join(dir, entry.name);
      const path = relative(root, full).split(sep).join('/');
      if (entry.name.startsWith('.') && !(dir === root && (entry.name === '.manifest' || entry.name === '.signatures.json'))) continue;
      const target = await realpath(full).catch(() => undefined);
      if (target === undefined) continue; // a dangling link, as a file that is not there
      if (target !== realRoot && !target.startsWith(realRoot + sep)) {
        throw new BundleReadError(`bundle file ${JSON.stringify(path)} links outside the bundle directory`);
      }
      const info = await stat(full);
      if (info.isDirectory()) {
        pending.push(full);
        continue;
      }
      if (!info.isFile()) {
        throw new BundleReadError(
          `bundle file ${JSON.stringify(path)} is not a regular file (${(await lstat(full)).isFIFO() ? 'a FIFO' : 'a device or socket'})`,
        );
      }
      if (info.size > limits.maxFileBytes) {
        throw new BundleReadError(`bundle file '${path}' size (${info.size} bytes) exceeded max size (${limits.maxFileBytes} bytes)`);
      }
      total += info.size;
      if (total > limits.maxTotalBytes) throw new BundleReadError(`bundle files total more than the limit of ${limits.maxTotalBytes} bytes`);
      if (entries.length >= limits.maxFiles) throw new BundleReadError(`bundle holds more than ${limits.maxFiles} files`);
      entries.push({ path, bytes: await readFile(full) });
    }
  }
  return entries;
}
