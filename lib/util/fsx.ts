import { isAscii } from 'node:buffer';
import fs from 'node:fs';
import path from 'node:path';
import type { StringDecoder } from 'node:string_decoder';
import { stringDecoder } from './lazy.js';

/**
 * Bytes the line readers (the index's, lib/index/lines.ts; deep search's, lib/search/scan.ts) read
 * at a time: 128 KiB stays in the core's cache between the kernel's copy and the scan of it; 1 MiB
 * reads ran ~3x slower here (24 MB file: 6 vs 18 ms): a search for an absent word on one thread
 * 1,084 -> 721 ms, a full build of the seed corpus 2.24 -> 1.72 s. A longer line is put together
 * from its pieces.
 */
export const CHUNK = 128 << 10;

/** This machine keeps numbers little-endian, as resume's files do: a typed array over their bytes then reads them as written. */
export const LITTLE_ENDIAN = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;

/** Bytes [pos, pos + len) of an open file into `buf` from `off`, as many as there are (fewer only at its end). */
export function readFully(fd: number, buf: Uint8Array, off: number, len: number, pos: number): number {
  let n = 0;
  while (n < len) {
    const k = fs.readSync(fd, buf, off + n, len - n, pos + n);
    if (k <= 0) break;
    n += k;
  }
  return n;
}

/**
 * A text file as a string, as `readFileSync(file, 'utf8')` gives it, read as bytes and decoded
 * apart: Node 20's own UTF-8 read took 240-300 ms for a 24 MB listing that this does in ~90 ms
 * (ASCII, the usual case, decodes as latin1: the same string, faster).
 */
export function readText(file: string): string {
  const fd = fs.openSync(file, 'r');
  try {
    const size = fs.fstatSync(fd).size;
    if (size <= TEXT_PIECE) return textOf(fs.readFileSync(fd));
    return textInPieces(fd);
  } finally {
    fs.closeSync(fd);
  }
}

/** A file larger than this is read a piece at a time into one buffer (readText). */
const TEXT_PIECE = 1 << 20;

/**
 * A large file's text, read 1 MiB at a time into one buffer and decoded a piece at a time (ASCII
 * pieces as latin1; from the first that is not, as UTF-8 through a decoder that carries a character
 * cut between two pieces): the same string as textOf of the whole file, without a buffer of the
 * whole file beside it. At 22,000 sessions the listing is 24 MB, and on this project's VM memory
 * touched for the first time costs ~12 µs a page: 290 -> 260 ms to read and parse it.
 */
function textInPieces(fd: number): string {
  const buf = Buffer.allocUnsafe(TEXT_PIECE);
  const parts: string[] = [];
  let utf8: StringDecoder | null = null;
  for (let pos = 0; ; ) {
    const n = readFully(fd, buf, 0, buf.length, pos);
    if (n === 0) break;
    pos += n;
    const piece = n === buf.length ? buf : buf.subarray(0, n);
    if (!utf8 && isAscii(piece)) parts.push(piece.toString('latin1', 0, n));
    else {
      // (node:string_decoder is loaded only for a large file that is not ASCII)
      utf8 ??= new (stringDecoder())('utf8');
      parts.push(utf8.write(piece));
    }
  }
  if (utf8) parts.push(utf8.end());
  return parts.join('');
}

/** Bytes as UTF-8 text (ASCII, the usual case, decoded as latin1: the same string, faster). */
export function textOf(b: Buffer): string {
  return isAscii(b) ? b.toString('latin1') : b.toString('utf8');
}

export function isDir(p: string): boolean {
  try {
    return fs.statSync(p).isDirectory();
  } catch {
    return false;
  }
}

export function exists(p: string): boolean {
  try {
    fs.statSync(p);
    return true;
  } catch {
    return false;
  }
}

let readdirHook: ((dir: string) => fs.Dirent[]) | null = null;
let symlinkHook: (() => void) | null = null;

/**
 * Told whenever a directory walk follows a symbolic link to see whether it is a directory: the
 * index (lib/index/discmemo.ts) does not remember a discovery that depended on such a probe.
 */
export function setSymlinkHook(h: (() => void) | null): void {
  symlinkHook = h;
}

/**
 * While the index discovers sources it installs its directory cache here (lib/index/dirs.ts), so
 * unchanged directories are not read again; null restores plain reads.
 */
export function setReaddirHook(h: ((dir: string) => fs.Dirent[]) | null): void {
  readdirHook = h;
}

/** readdir that never throws (unreadable or missing: empty). */
export function entries(dir: string): fs.Dirent[] {
  if (readdirHook) return readdirHook(dir);
  try {
    return fs.readdirSync(dir, { withFileTypes: true });
  } catch {
    return [];
  }
}

/** Is this entry a directory, following a symlink (no throw)? */
export function direntIsDir(dir: string, d: fs.Dirent): boolean {
  if (d.isDirectory()) return true;
  if (d.isSymbolicLink()) {
    symlinkHook?.();
    return isDir(path.join(dir, d.name));
  }
  return false;
}

/** Anything but a directory: the index stats it, and counts and skips FIFOs, sockets and devices. */
export function direntMaybeFile(d: fs.Dirent): boolean {
  return !d.isDirectory();
}

/**
 * Files below `dir` whose name passes `match`, at most `depth` levels down. Symlinked directories
 * are followed; a loop is cut by remembering the real path of every symlinked directory entered
 * (plain directories cannot loop, and are not stat'ed: this runs on every listing).
 */
export function walk(
  dir: string,
  match: (name: string, rel: string) => boolean,
  depth: number,
  seen = new Set<string>(),
  rel = '',
): string[] {
  const w: Walk = { match, seen, out: [] };
  walkInto(w, dir, rel, depth);
  return w.out;
}

/** What a walk carries down: the test, the real paths of the linked directories entered, the files found. */
interface Walk {
  match: (name: string, rel: string) => boolean;
  seen: Set<string>;
  out: string[];
}

function walkInto(w: Walk, dir: string, rel: string, depth: number): void {
  // String joins, not path.join: `dir` is already absolute and normal, and this runs per entry.
  const base = dir.endsWith('/') ? dir : `${dir}/`;
  const prefix = rel ? `${rel}/` : '';
  for (const d of entries(dir)) {
    const name = d.name;
    if (d.isDirectory()) {
      if (depth > 0) walkInto(w, base + name, prefix + name, depth - 1);
    } else if (d.isSymbolicLink() && linkedDir(base + name)) {
      if (depth > 0) walkLink(w, base + name, prefix + name, depth - 1);
    } else if (w.match(name, prefix + name)) {
      w.out.push(base + name);
    }
  }
}

function linkedDir(p: string): boolean {
  symlinkHook?.();
  return isDir(p);
}

/** A symlink to a directory walked once per real directory (a link loop ends at the second visit). */
function walkLink(w: Walk, link: string, rel: string, depth: number): void {
  let real: string;
  try {
    real = fs.realpathSync(link);
  } catch {
    return;
  }
  if (w.seen.has(real)) return;
  w.seen.add(real);
  walkInto(w, link, rel, depth);
}

/** Unique by real path, keeping the first (so the first variable that named a root is reported). */
export function uniqueReal<T extends { path: string }>(items: T[]): T[] {
  const seen = new Set<string>();
  const out: T[] = [];
  for (const it of items) {
    let key = it.path;
    try {
      // the native call: one realpath(3) instead of an lstat per path component (this runs on every listing)
      key = fs.realpathSync.native(it.path);
    } catch {
      /* missing: keep by name */
    }
    if (seen.has(key)) continue;
    seen.add(key);
    out.push(it);
  }
  return out;
}

/** A file's bytes and its stat, taken through one descriptor (the stat is of the bytes read); null when it cannot be read. */
export function readWithStat(file: string): { buf: Buffer; stat: fs.Stats } | null {
  try {
    const fd = fs.openSync(file, 'r');
    try {
      const stat = fs.fstatSync(fd);
      return { buf: fs.readFileSync(fd), stat };
    } finally {
      fs.closeSync(fd);
    }
  } catch {
    return null;
  }
}

/** `fn` of a file opened for reading, closed after; `otherwise` when it cannot be opened or `fn` throws. */
export function withFile<T, U>(file: string, fn: (fd: number) => T, otherwise: U): T | U {
  let fd: number;
  try {
    fd = fs.openSync(file, 'r');
  } catch {
    return otherwise;
  }
  try {
    return fn(fd);
  } catch {
    return otherwise;
  } finally {
    fs.closeSync(fd);
  }
}

/**
 * A file opened for reading, its descriptor and size handed to `fn`: what `fn` gives back keeps
 * the file open (it closes it later); null, a throw, or a file that cannot be opened gives null,
 * the file closed.
 */
export function openKept<T>(file: string, fn: (fd: number, size: number) => T | null): T | null {
  let fd: number;
  try {
    fd = fs.openSync(file, 'r');
  } catch {
    return null;
  }
  let kept: T | null = null;
  try {
    kept = fn(fd, fs.fstatSync(fd).size);
    return kept;
  } catch {
    return null;
  } finally {
    if (kept === null) fs.closeSync(fd);
  }
}

/**
 * A file's first line (without its line break), read in pieces until the break: null when the
 * file cannot be read or has no line break within `maxBytes`.
 */
export function readFirstLine(file: string | number, maxBytes: number): Buffer | null {
  // a descriptor is the caller's (read from its start, left open); a path is opened and closed here
  let fd: number;
  try {
    fd = typeof file === 'number' ? file : fs.openSync(file, 'r');
  } catch {
    return null;
  }
  try {
    const parts: Buffer[] = [];
    let pos = 0;
    for (;;) {
      const b = Buffer.allocUnsafe(pos === 0 ? Math.min(16384, maxBytes) : 262144);
      const n = fs.readSync(fd, b, 0, b.length, pos);
      if (n <= 0) return null;
      const nl = b.subarray(0, n).indexOf(10);
      parts.push(b.subarray(0, nl >= 0 ? nl : n));
      pos += n;
      if (nl >= 0) return parts.length === 1 ? parts[0] : Buffer.concat(parts);
      if (pos >= maxBytes) return null;
    }
  } catch {
    return null;
  } finally {
    if (typeof file !== 'number') fs.closeSync(fd);
  }
}

/**
 * Remove a file that may be gone already, or never could be there (a path through a plain file);
 * a plain unlink: fs.rmSync loads and runs a recursive remover, ~1 ms of a listing.
 */
export function removeFile(file: string): void {
  try {
    fs.unlinkSync(file);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code !== 'ENOENT' && code !== 'ENOTDIR') throw err;
  }
}

/** Buffers written in order, without joining them first. */
function writeBuffers(fd: number, data: Uint8Array[]): void {
  const parts = data.filter((d) => d.length > 0);
  while (parts.length > 0) {
    let n = fs.writevSync(fd, parts);
    // drop the parts written whole, then the written head of the next
    let k = 0;
    while (k < parts.length && n >= parts[k].length) n -= parts[k++].length;
    parts.splice(0, k);
    if (n > 0) parts[0] = parts[0].subarray(n);
  }
}

/** Text joined up to 1 MiB a write; bytes written as they are (after the text before them), not joined with the rest. */
function writeChunks(fd: number, data: Iterable<string | Uint8Array>): void {
  let buf = '';
  for (const c of data) {
    if (typeof c !== 'string') {
      if (buf) fs.writeSync(fd, buf);
      buf = '';
      for (let o = 0; o < c.length; ) o += fs.writeSync(fd, c, o);
      continue;
    }
    buf += c;
    if (buf.length >= 1 << 20) {
      fs.writeSync(fd, buf);
      buf = '';
    }
  }
  if (buf) fs.writeSync(fd, buf);
}

/**
 * Create a directory and any missing parents (`mode` for each one made). Not `fs.mkdirSync`'s
 * `recursive`: in a directory where nothing can be made (under /proc) that retries for ever (Node
 * 20-22, ENOENT after EEXIST); here each level is made once and its error thrown.
 */
export function makeDir(dir: string, mode = 0o700): void {
  const missing: string[] = [];
  let d = path.resolve(dir);
  for (;;) {
    try {
      if (fs.statSync(d).isDirectory()) break;
      throw Object.assign(new Error(`not a directory: ${d}`), { code: 'ENOTDIR' });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    }
    missing.push(d);
    const up = path.dirname(d);
    if (up === d) break;
    d = up;
  }
  for (const m of missing.reverse()) {
    try {
      fs.mkdirSync(m, { mode });
    } catch (err) {
      // (made meanwhile by another process: fine)
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
  }
}

/**
 * Write a file atomically: a temp file in the same directory, then rename, so a reader sees the old
 * file or the new one, never half of one. The directory is created (0700) when missing; the file
 * gets `mode` (0600 unless told). `data` may be a sequence of chunks, text or bytes (a large listing
 * is not joined).
 * A failed write removes its temp file and throws.
 */
export function writeAtomic(file: string, data: string | Uint8Array | Iterable<string | Uint8Array>, mode = 0o600): void {
  writeAndRename(file, data, mode, false);
}

/**
 * writeAtomic for a file of the index that every reader checks whole and can do without (rows.bin,
 * check.bin, the kept outputs): the old file is removed just before the new one is renamed in.
 * ext4 (auto_da_alloc) and btrfs start writing a file out when it is renamed over another, so that
 * a save survives a crash; at 22,000 sessions that cost ~2.5 ms for rows.bin alone, of an append's
 * ~160. Here a crash costs only a rebuild, and a reader in the moment between finds no file and
 * reads the database.
 */
export function writeCacheFile(file: string, data: Iterable<string | Uint8Array>): void {
  writeAndRename(file, data, 0o600, true);
}

function writeAndRename(file: string, data: string | Uint8Array | Iterable<string | Uint8Array>, mode: number, drop: boolean): void {
  makeDir(path.dirname(file));
  const tmp = `${file}.tmp-${process.pid}-${Math.random().toString(36).slice(2, 8)}`;
  try {
    if (typeof data === 'string' || data instanceof Uint8Array) fs.writeFileSync(tmp, data, { mode });
    else {
      const fd = fs.openSync(tmp, 'w', mode);
      try {
        if (Array.isArray(data) && data.every((d) => d instanceof Uint8Array)) writeBuffers(fd, data);
        else writeChunks(fd, data);
      } finally {
        fs.closeSync(fd);
      }
    }
    if (drop) removeFile(file);
    fs.renameSync(tmp, file);
  } catch (err) {
    removeFile(tmp);
    throw err;
  }
}
