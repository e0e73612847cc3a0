// The numbers of a stat(2) without a Stats object. A no-change listing stats every session file
// and every remembered directory (686 + 218 in the seed corpus, 22,000 + 3,000 at scale), and on
// Node 20 each fs.statSync builds a Stats object with four Dates: at 686 files that was ~15 ms of
// a ~125 ms run, more than the stat calls themselves, and the garbage it left was most of the
// run's collections. Node's fs binding (process.binding('fs'), the one fs.statSync calls) hands
// back the raw numbers in a shared Float64Array: ~6 ms for the same files.
//
// That binding is Node's internal interface, so it is trusted only once it has proved itself in
// this process: the first path that exists is stat'ed both ways, and the binding is used from then
// on only if size, inode, mode, mtimeMs and ctimeMs agree exactly (mtimeMs is computed as Node
// computes it). Anything else, a missing binding, a throw, another result shape (a later Node), a
// deprecation warning when it is taken (`--pending-deprecation`), falls back to fs.statSync for
// the rest of the run. Results are the same either way; only the cost differs.
import fs from 'node:fs';

/** What quickStat hands back: [kind, size, mtimeMs, ctimeMs, ino], valid until the next call. */
export const STAT = new Float64Array(5);
/** STAT[0]: the kind of file */
export const NONE = 0;
export const FILE = 1;
export const DIR = 2;
export const OTHER = 3;

/** a path as a string, or as its bytes (no NUL among them) */
type PathLike = string | Uint8Array;
type Raw = (p: PathLike, bigint: boolean, req: undefined, throwIfNoEntry: boolean) => ArrayLike<number> | undefined;

/** undefined: not tried yet; null: not usable in this process */
let raw: Raw | null | undefined;
let proved = false;

function binding(): Raw | null {
  if (raw !== undefined) return raw;
  raw = null;
  // process.binding is deprecated in the documentation only, but warns (once, on stderr) under
  // --pending-deprecation and would if a later Node made that the rule: a warning while it is
  // taken means it is not used, and the warning, about resume's own call, is not passed on
  const emit = process.emitWarning;
  let warned = false;
  try {
    process.emitWarning = (() => {
      warned = true;
    }) as typeof process.emitWarning;
    const b = (process as unknown as { binding?: (name: string) => { stat?: unknown } }).binding?.('fs');
    if (!warned && b && typeof b.stat === 'function') {
      const stat = b.stat as Raw;
      raw = (p, bigint, req, throwIfNoEntry) => stat.call(b, p, bigint, req, throwIfNoEntry);
    }
  } catch {
    raw = null;
  } finally {
    process.emitWarning = emit;
  }
  return raw;
}

const S_IFMT = 0o170000;
const S_IFREG = 0o100000;
const S_IFDIR = 0o040000;

function kindOf(mode: number): number {
  const t = mode & S_IFMT;
  return t === S_IFREG ? FILE : t === S_IFDIR ? DIR : OTHER;
}

function fromStats(st: fs.Stats | undefined): Float64Array {
  if (!st) {
    STAT[0] = NONE;
    return STAT;
  }
  STAT[0] = st.isFile() ? FILE : st.isDirectory() ? DIR : OTHER;
  STAT[1] = st.size;
  STAT[2] = st.mtimeMs;
  STAT[3] = st.ctimeMs;
  STAT[4] = st.ino;
  return STAT;
}

function slow(p: PathLike): fs.Stats | undefined {
  try {
    return fs.statSync(typeof p === 'string' ? p : Buffer.from(p.buffer, p.byteOffset, p.length), { throwIfNoEntry: false });
  } catch {
    return undefined;
  }
}

/**
 * stat(2) `p` (following symlinks) into STAT: its kind (NONE when it is missing or cannot be
 * stat'ed), size, mtimeMs, ctimeMs and inode. The array is shared: copy what you keep.
 */
export function quickStat(p: string): Float64Array {
  // fs.statSync refuses a path with a NUL in it; the binding would stat the path cut there
  if (p.includes('\0')) return fromStats(slow(p));
  return statOf(p);
}

/**
 * quickStat of the path held in bytes [s, e) of `buf` (UTF-8, no NUL among them; a relative one
 * from the working directory), without making a string of it: the stored paths of a listing are
 * stat'ed straight from the bytes of check.bin (a 3 MB string at 22,000 sessions otherwise).
 * `ctime` false: STAT[3] is NaN (a listing compares size, mtime and inode only).
 */
export function quickStatBytes(buf: Buffer, s: number, e: number, ctime = true): Float64Array {
  return statOf(new Uint8Array(buf.buffer, buf.byteOffset + s, e - s), ctime);
}

function statOf(p: PathLike, ctime = true): Float64Array {
  const b = binding();
  if (b === null) return fromStats(slow(p));
  let r: ArrayLike<number> | undefined;
  try {
    r = b(p, false, undefined, false);
  } catch {
    r = undefined;
    if (!proved) {
      // not proved yet: the slow path decides (a throw that statSync would not make disqualifies)
      const st = slow(p);
      if (st) raw = null;
      return fromStats(st);
    }
  }
  if (r === undefined) {
    if (proved) return fromStats(undefined);
    const st = slow(p);
    if (st) raw = null;
    return fromStats(st);
  }
  // [dev, mode, nlink, uid, gid, rdev, blksize, ino, size, blocks, atime s, ns, mtime s, ns, ctime s, ns, …]
  // (each time stored as it is computed: a double held in a variable is an object while the code
  // is interpreted, and this runs for every session file)
  STAT[0] = kindOf(r[1]);
  STAT[1] = r[8];
  STAT[2] = r[12] * 1000 + r[13] / 1e6;
  STAT[3] = ctime || !proved ? r[14] * 1000 + r[15] / 1e6 : NaN;
  STAT[4] = r[7];
  if (!proved) {
    const st = slow(p);
    if (
      !(r instanceof Float64Array) ||
      !st ||
      st.mode !== r[1] ||
      st.size !== STAT[1] ||
      st.ino !== STAT[4] ||
      st.mtimeMs !== STAT[2] ||
      st.ctimeMs !== STAT[3]
    ) {
      raw = null;
      return fromStats(st);
    }
    proved = true;
  }
  return STAT;
}

/**
 * Stat many files, named by their directory and name, from inside their directories: the working
 * directory is changed to a file's directory when another file in it is stat'ed next, and the
 * file's name alone is stat'ed, so the kernel walks one name instead of every component of the
 * path again (as `find` does with its own chdir/openat walk). For session files listed directory by
 * directory, that took the stat calls of a no-change listing of 22,000 sessions from ~150 to ~125 ms
 * here.
 *
 * Only on the main thread, and only when the working directory can be returned to (checked by
 * going there first); `done()` returns to it. Nothing else may use a relative path in between. A
 * directory that cannot be entered, a path that is not absolute, or a worker thread: the whole
 * path is stat'ed from where the process started, as quickStat does.
 */
export class StatInDirs {
  /** the working directory to return to; null: stat whole paths */
  private home: string | null = null;
  /** the directory entered: bytes [dirAt, …) of `dirBuf` as statIn was told them, or `dirStr` (entered false: none) */
  private dirBuf: Buffer | null = null;
  private dirAt = -1;
  private dirStr: string | null = null;
  private entered = false;

  constructor() {
    try {
      const cwd = process.cwd();
      process.chdir(cwd);
      this.home = cwd;
    } catch {
      this.home = null;
    }
  }

  /**
   * quickStat of the file named by bytes [name, end) of `buf` in the directory at bytes
   * [dir, dir + dirLen) (an absolute path; the root when dirLen is 0). A directory is told by where
   * its bytes are: the caller passes the same `dir` for every file of one directory. For a file with
   * no other of its directory stat'ed next (statEntering when there is one). STAT[3] (the ctime) is
   * NaN: not worked out.
   */
  statIn(buf: Buffer, dir: number, dirLen: number, name: number, end: number): Float64Array {
    if (this.home !== null && buf[dir] === 0x2f && this.entered && this.dirBuf === buf && this.dirAt === dir) {
      return quickStatBytes(buf, name, end, false);
    }
    return this.statJoined(buf, dir, dirLen, name, end);
  }

  /**
   * statIn for a file with another of its directory stat'ed next: the directory is entered
   * (entering walks its whole path once, and then each name pays only for itself).
   */
  statEntering(buf: Buffer, dir: number, dirLen: number, name: number, end: number): Float64Array {
    if (this.home !== null && buf[dir] === 0x2f) {
      if (this.entered && this.dirBuf === buf && this.dirAt === dir) return quickStatBytes(buf, name, end, false);
      try {
        process.chdir(dirLen === 0 ? '/' : buf.toString('utf8', dir, dir + dirLen));
        this.dirBuf = buf;
        this.dirAt = dir;
        this.dirStr = null;
        this.entered = true;
        return quickStatBytes(buf, name, end, false);
      } catch {
        this.back();
      }
    }
    return this.statJoined(buf, dir, dirLen, name, end);
  }

  /** statIn by the file's whole path, from where the walk started. */
  private statJoined(buf: Buffer, dir: number, dirLen: number, name: number, end: number): Float64Array {
    // the whole path: in place when the name follows its directory's `/` in the bytes
    if (name === dir + dirLen + 1 && buf[dir + dirLen] === 0x2f) return this.statWhole(buf, dir, end);
    const whole = Buffer.concat([buf.subarray(dir, dir + dirLen), Buffer.from('/'), buf.subarray(name, end)]);
    return this.statWhole(whole, 0, whole.length);
  }

  /** quickStatBytes of a path that is not stat'ed from a directory (a relative one: from where the walk started) */
  statWhole(buf: Buffer, s: number, e: number): Float64Array {
    if (buf[s] !== 0x2f) this.back();
    return quickStatBytes(buf, s, e, false);
  }

  /** quickStat of `p`, as statIn does it for bytes (`next`: the path stat'ed after it) */
  statPath(p: string, next?: string): Float64Array {
    const sl = p.lastIndexOf('/');
    if (this.home === null || p.charCodeAt(0) !== 0x2f || p.includes('\0')) {
      this.back();
      return quickStat(p);
    }
    if (sl === p.length - 1) return quickStat(p);
    const dir = sl === 0 ? '/' : p.slice(0, sl);
    if (!(this.entered && dir === this.dirStr)) {
      if (
        !(
          next !== undefined &&
          next.lastIndexOf('/') === sl &&
          next.length > sl + 1 &&
          next.startsWith(dir) &&
          next.charCodeAt(sl) === 0x2f
        )
      )
        return quickStat(p);
      try {
        process.chdir(dir);
        this.dirStr = dir;
        this.dirBuf = null;
        this.entered = true;
      } catch {
        this.back();
        return quickStat(p);
      }
    }
    return quickStat(p.slice(sl + 1));
  }

  /** Return to the working directory the walk started from. */
  done(): void {
    this.back();
  }

  private back(): void {
    if (!this.entered || this.home === null) return;
    this.dirBuf = null;
    this.dirStr = null;
    this.entered = false;
    try {
      process.chdir(this.home);
    } catch {
      // it was entered a moment ago; if it is gone now, stay out of the sources and stat whole paths
      this.home = null;
      try {
        process.chdir('/');
      } catch {
        /* nothing better to do */
      }
    }
  }
}

/** For tests: forget what was learnt of the binding (`off`: never use it). */
export function resetQuickStat(off = false): void {
  raw = off ? null : undefined;
  proved = false;
}

/** For tests: is the binding in use (proved) in this process? */
export function quickStatFast(): boolean {
  return raw !== null && raw !== undefined && proved;
}
