// Directory listings remembered across runs, keyed by directory path and checked by the directory's
// own stat: a directory whose mtime, ctime and inode are unchanged is not read again (one `stat`
// instead of `open` + `getdents` + `close` and a Dirent per entry). Adding, removing or renaming an
// entry changes the directory's mtime and ctime, so the remembered names stay exact.
//
// Racy timestamps: a directory changed in the same timestamp tick as (or just after) we read it can
// keep the mtime we stored while its entries differ. So a listing is only trusted when it was read
// well after the directory's last change (RACY_MS); a directory changed shortly before the read is
// read again on every run until its last change is older than that.
//
// The cache is used only while the index discovers sources (fsx.entries consults the installed
// hook); the files under the directories are still stat'ed on every run (an append does not change
// its directory's mtime). The listings are kept in the index database (`dirs`, store.ts), each
// directory's in a row, asked for as discovery comes to it: a run writes back only those it read
// (and of those, the ones read well after their last change: the others would not be trusted).
import fs from 'node:fs';

/** A directory listing is trusted only if read this long after the directory last changed. */
export const RACY_MS = 2000;

/** [mtimeMs, ctimeMs, ino, read at (ms), names, Dirent type codes] */
export type DirRec = [number, number, number, number, string[], number[]];

/** Where the remembered listings come from: the index database (store.ts), or a record (tests). */
export interface DirStore {
  get(dir: string): DirRec | undefined;
  /** how many directories are remembered */
  count(): number;
}

// Dirent type codes (libuv's UV_DIRENT_*).
const UNKNOWN = 0;
const FILE = 1;
const DIR = 2;
const LINK = 3;
const FIFO = 4;
const SOCKET = 5;
const CHAR = 6;
const BLOCK = 7;

function typeOf(d: fs.Dirent): number {
  if (d.isFile()) return FILE;
  if (d.isDirectory()) return DIR;
  if (d.isSymbolicLink()) return LINK;
  if (d.isFIFO()) return FIFO;
  if (d.isSocket()) return SOCKET;
  if (d.isCharacterDevice()) return CHAR;
  if (d.isBlockDevice()) return BLOCK;
  return UNKNOWN;
}

/** A remembered entry with the Dirent methods discovery uses. */
class CachedDirent {
  constructor(
    public name: string,
    private t: number,
  ) {}
  isFile(): boolean {
    return this.t === FILE;
  }
  isDirectory(): boolean {
    return this.t === DIR;
  }
  isSymbolicLink(): boolean {
    return this.t === LINK;
  }
  isFIFO(): boolean {
    return this.t === FIFO;
  }
  isSocket(): boolean {
    return this.t === SOCKET;
  }
  isCharacterDevice(): boolean {
    return this.t === CHAR;
  }
  isBlockDevice(): boolean {
    return this.t === BLOCK;
  }
}

/**
 * A directory one discovery depended on: [path, mtimeMs, ctimeMs, ino, read at]; mtimeMs -1 for a
 * path that was missing or not a directory (it listed as empty).
 */
export type SeenDir = [string, number, number, number, number];

export class DirCache {
  /** directories listed this run (served or read) */
  readonly seen: Record<string, DirRec> = {};
  /**
   * directories read this run well after their last change, with what was read: what is written
   * back (one read within the racy window would not be trusted, and is read again next run)
   */
  readonly read: Record<string, DirRec> = {};
  /** directories actually read this run */
  reads = 0;
  hits = 0;
  /** while set, every directory asked for is noted here (lib/index/discmemo.ts) */
  trace: SeenDir[] | null = null;
  private readonly store: DirStore;
  /** directories visited that the store remembers (served, or read again) */
  private readonly known = new Set<string>();
  /** the store was asked (a run that asks for no existing directory never opens it) */
  private asked = false;

  constructor(
    stored: Record<string, DirRec> | DirStore = {},
    private now: () => number = Date.now,
  ) {
    this.store = isStore(stored) ? stored : { get: (d) => stored[d], count: () => Object.keys(stored).length };
    // (listings given whole are in hand: as if asked)
    this.asked = !isStore(stored);
  }

  /** The entries of `dir` (missing or unreadable: none), from the cache when it can be trusted. */
  entries(dir: string): fs.Dirent[] {
    let st: fs.Stats | undefined;
    try {
      st = fs.statSync(dir, { throwIfNoEntry: false });
    } catch {
      st = undefined;
    }
    if (!st?.isDirectory()) {
      this.trace?.push([dir, -1, 0, 0, 0]);
      return [];
    }
    this.asked = true;
    const r = this.store.get(dir);
    if (r) this.known.add(dir);
    if (r && r[0] === st.mtimeMs && r[1] === st.ctimeMs && r[2] === st.ino && r[3] - Math.max(st.mtimeMs, st.ctimeMs) > RACY_MS) {
      this.seen[dir] = r;
      this.trace?.push([dir, r[0], r[1], r[2], r[3]]);
      this.hits++;
      const names = r[4];
      const out = new Array<fs.Dirent>(names.length);
      // (i < names.length: the name is there; the `?? ''` only satisfies the index type)
      for (let i = 0; i < names.length; i++) out[i] = new CachedDirent(names[i] ?? '', r[5][i] ?? UNKNOWN) as unknown as fs.Dirent;
      return out;
    }
    // Taken before the read: a change after this moment gets an mtime at or after it.
    const at = this.now();
    let ds: fs.Dirent[];
    try {
      ds = fs.readdirSync(dir, { withFileTypes: true });
    } catch {
      // unreadable: listed as empty, and not remembered (a later run tries again)
      if (this.trace) this.trace.push([dir, NaN, 0, 0, 0]);
      return [];
    }
    this.reads++;
    const rec: DirRec = [st.mtimeMs, st.ctimeMs, st.ino, at, ds.map((d) => d.name), ds.map(typeOf)];
    this.seen[dir] = rec;
    if (at - Math.max(st.mtimeMs, st.ctimeMs) > RACY_MS) this.read[dir] = rec;
    this.trace?.push([dir, st.mtimeMs, st.ctimeMs, st.ino, at]);
    return ds;
  }

  /**
   * Should the remembered listings be written back (a listing to keep was read, or — when `prune`
   * — a directory remembered was not visited this run)?
   */
  dirty(prune = true): boolean {
    for (const _ in this.read) return true;
    return prune && this.asked && this.store.count() > this.known.size;
  }
}

function isStore(s: Record<string, DirRec> | DirStore): s is DirStore {
  return typeof (s as DirStore).get === 'function' && typeof (s as DirStore).count === 'function';
}

/** A remembered listing as stored (JSON), or undefined when it is not one (a damaged row: the directory is read again). */
export function dirRec(text: string): DirRec | undefined {
  try {
    const r = JSON.parse(text) as unknown;
    if (
      Array.isArray(r) &&
      r.length === 6 &&
      r.slice(0, 4).every((n) => typeof n === 'number') &&
      Array.isArray(r[4]) &&
      Array.isArray(r[5]) &&
      r[4].length === r[5].length &&
      r[4].every((n) => typeof n === 'string')
    )
      return r as DirRec;
  } catch {
    /* not JSON */
  }
  return undefined;
}
