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

type Raw = (p: string, bigint: boolean, req: undefined, throwIfNoEntry: boolean) => ArrayLike<number> | undefined;

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

function slow(p: string): fs.Stats | undefined {
  try {
    return fs.statSync(p, { throwIfNoEntry: false });
  } catch {
    return undefined;
  }
}

/**
 * stat(2) `p` (following symlinks) into STAT: its kind (NONE when it is missing or cannot be
 * stat'ed), size, mtimeMs, ctimeMs and inode. The array is shared: copy what you keep.
 */
export function quickStat(p: string): Float64Array {
  const b = binding();
  // fs.statSync refuses a path with a NUL in it; the binding would stat the path cut there
  if (b === null || p.includes('\0')) return fromStats(slow(p));
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
  const mode = r[1]!;
  const size = r[8]!;
  const mtimeMs = r[12]! * 1000 + r[13]! / 1e6;
  const ctimeMs = r[14]! * 1000 + r[15]! / 1e6;
  const ino = r[7]!;
  if (!proved) {
    const st = slow(p);
    if (!(r instanceof Float64Array) || !st || st.mode !== mode || st.size !== size || st.ino !== ino || st.mtimeMs !== mtimeMs || st.ctimeMs !== ctimeMs) {
      raw = null;
      return fromStats(st);
    }
    proved = true;
  }
  STAT[0] = kindOf(mode);
  STAT[1] = size;
  STAT[2] = mtimeMs;
  STAT[3] = ctimeMs;
  STAT[4] = ino;
  return STAT;
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
