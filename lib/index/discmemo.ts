// The discovery memo: for an adapter whose `discover` only lists directories (`listsOnly`), the
// sources it found last time stand while every directory it asked for has the same stat (mtime,
// ctime, inode; a missing one still missing) and its roots are the same. Then a no-change run
// stats those directories and the session files, and never walks the tree or builds a Dirent.
//
// The memo is stored in check.bin (lib/index/index.ts) beside the stats it guards: per adapter its
// roots (as JSON), the kinds of its sources, and the directories with their stats and when each was
// read. It is made only from a discovery that
//   - followed no symbolic link (whether a link leads to a directory can change with no directory
//     here changing),
//   - found sources without `deps` or `hint` (only path, kind and mode are stored),
//   - skipped nothing (no duplicate, unreadable or irregular source: what is stored is what it found),
//   - read no directory within RACY_MS of its last change (lib/index/dirs.ts: a change in the same
//     timestamp tick would not show in the stat).
import type { Harness, Source } from '../types.js';
import { DIR, quickStat, type StatInDirs } from '../util/quickstat.js';
import { RACY_MS, type SeenDir } from './dirs.js';

export interface Memo {
  /** JSON of the adapter's roots when it was made */
  key: string;
  /** the kinds of its sources (check.bin holds an index into this per source) */
  kinds: string[];
  dirs: SeenDir[];
}

/** What check.bin records of one adapter's discovery: how many sources it added, and its memo. */
export interface AdapterMeta {
  name: Harness;
  n: number;
  memo?: Memo;
}

/** Do the directories still stand as recorded (and were they read safely after their last change)? `walk`: stat each from its parent (the caller returns from it). */
export function dirsStand(dirs: SeenDir[], walk?: StatInDirs): boolean {
  for (let i = 0; i < dirs.length; i++) {
    // (by index: destructuring a tuple runs the array iterator, and its garbage, for each)
    const d = dirs[i];
    if (d === undefined) return false; // (never: i < dirs.length)
    const p = d[0];
    const m = d[1];
    const c = d[2];
    const ino = d[3];
    const at = d[4];
    const st = walk ? walk.statPath(p, dirs[i + 1]?.[0]) : quickStat(p);
    if (m === -1) {
      if (st[0] === DIR) return false;
      continue;
    }
    if (st[0] !== DIR || st[2] !== m || st[3] !== c || st[4] !== ino || !(at - Math.max(m, c) > RACY_MS)) return false;
  }
  return true;
}

/** The memo of one live discovery, or undefined when it may not be remembered (see the top). */
export function makeMemo(key: string, trace: SeenDir[], srcs: Source[], symlinked: boolean): Memo | undefined {
  if (symlinked) return undefined;
  for (const [, m, c, , at] of trace) {
    if (m === -1) continue;
    if (!Number.isFinite(m) || !(at - Math.max(m, c) > RACY_MS)) return undefined;
  }
  const kinds: string[] = [];
  for (const s of srcs) {
    if (s.deps !== undefined || s.hint !== undefined || (s.mode !== 'lines' && s.mode !== 'whole')) return undefined;
    if (!kinds.includes(s.kind)) kinds.push(s.kind);
  }
  return { key, kinds, dirs: trace };
}

/** A meta list read from check.bin, checked for shape; null when malformed. */
export function parseMeta(text: string): AdapterMeta[] | null {
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch {
    return null;
  }
  if (!Array.isArray(v)) return null;
  for (const a of v as AdapterMeta[]) {
    if (!a || typeof a.name !== 'string' || !Number.isInteger(a.n) || a.n < 0) return null;
    const m = a.memo;
    if (m === undefined) continue;
    if (
      !m ||
      typeof m.key !== 'string' ||
      !Array.isArray(m.kinds) ||
      !m.kinds.every((k) => typeof k === 'string') ||
      !Array.isArray(m.dirs) ||
      !m.dirs.every(
        (d) =>
          Array.isArray(d) &&
          d.length === 5 &&
          typeof d[0] === 'string' &&
          typeof d[1] === 'number' &&
          typeof d[2] === 'number' &&
          typeof d[3] === 'number' &&
          typeof d[4] === 'number',
      )
    )
      return null;
  }
  return v as AdapterMeta[];
}
