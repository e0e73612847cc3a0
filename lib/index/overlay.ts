// check.patch: an append's change to check.bin and rows.bin, written beside them instead of writing
// them again (at 22,000 sessions they are 2.6 and 4.9 MB: reading, splicing and writing them was
// most of what an append cost beyond a no-change listing). It names the build, as check.bin does
// when there is none (lib/index/index.ts says how the build ids chain).
//
// Layout: a header line `c<version> <build id> <base build id> <stats> <drops> <records>\n`
// (latin1), then
//   u32 LE × stats     the sources (their index in check.bin) whose stat this build recorded anew,
//                      ascending
//   24 bytes × stats   each one's stat, as check.bin holds stats (f64 LE size, mtime, inode)
//   u32 LE × drops     the records of rows.bin (by number) this build does not list, ascending
//   u32 LE × records   where each record below goes: before rows.bin's record of that number
//                      (rows.bin's count: after the last), non-decreasing
//   the records        rows.bin records (lib/index/rowbin.ts), each whole, in the listing's order
// It counts only over the check.bin and rows.bin of build `base`; anything malformed is not used
// at all (the listing is then built again from the state shards).
import type fs from 'node:fs';
import { readWithStat } from '../util/fsx.js';
import { fileFind, FIXED, holdApart, keyShort, locate, locator, recordEnd, recordLength, rowBinChunks, type Listed, type RowBin } from './rowbin.js';
import { MIN_SHORT } from '../select/filter.js';

export interface Over {
  id: string;
  base: string;
  /** check.bin indexes of the stats recorded anew, ascending */
  statAt: Uint32Array;
  /** their stats, 24 bytes each */
  stats: Buffer;
  /** rows.bin records not listed, ascending */
  drop: Uint32Array;
  /** where each record goes (before rows.bin's record of that number) */
  pos: Uint32Array;
  /** the records, whole, and where each starts */
  recs: Buffer;
  recAt: Uint32Array;
}

/** No change over build `base`. */
export function emptyOver(base: string): Over {
  const none = new Uint32Array(0);
  return { id: base, base, statAt: none, stats: Buffer.alloc(0), drop: none, pos: none, recs: Buffer.alloc(0), recAt: none };
}

const u32s = (buf: Buffer, at: number, n: number): Uint32Array => {
  const out = new Uint32Array(n);
  for (let i = 0; i < n; i++) out[i] = buf.readUInt32LE(at + i * 4);
  return out;
};
const ascending = (xs: Uint32Array, strict: boolean): boolean => {
  for (let i = 1; i < xs.length; i++) if (strict ? xs[i]! <= xs[i - 1]! : xs[i]! < xs[i - 1]!) return false;
  return true;
};

/** The file's stat when it was read (whether it is still the file on disk), or null when there was none. */
export type OverStat = Pick<fs.Stats, 'ino' | 'size' | 'mtimeMs' | 'ctimeMs'> | null;

/**
 * check.patch of this version, read and checked for shape (the counts and orders above, each record
 * whole); `over` null when there is none or it is malformed. Whether it is over the check.bin read
 * (its base) is the caller's to tell.
 */
export function readOver(file: string, version: number): { over: Over | null; stat: OverStat } {
  const r = readWithStat(file);
  return r ? { over: parseOver(r.buf, version), stat: r.stat } : { over: null, stat: null };
}

export function parseOver(buf: Buffer, version: number): Over | null {
  const nl = buf.indexOf(10);
  if (nl <= 0 || nl > 300) return null;
  const m = /^c(\d+) (\S+) (\S+) (\d+) (\d+) (\d+)$/.exec(buf.toString('latin1', 0, nl));
  if (!m || Number(m[1]) !== version) return null;
  const [ns, nd, nr] = [Number(m[4]), Number(m[5]), Number(m[6])];
  let p = nl + 1;
  const recsAt = p + ns * 28 + nd * 4 + nr * 4;
  if (recsAt > buf.length) return null;
  const statAt = u32s(buf, p, ns);
  p += ns * 4;
  const stats = buf.subarray(p, p + ns * 24);
  p += ns * 24;
  const drop = u32s(buf, p, nd);
  p += nd * 4;
  const pos = u32s(buf, p, nr);
  if (!ascending(statAt, true) || !ascending(drop, true) || !ascending(pos, false)) return null;
  const recs = buf.subarray(recsAt);
  const recAt = new Uint32Array(nr);
  let q = 0;
  for (let i = 0; i < nr; i++) {
    if (q + FIXED > recs.length) return null;
    recAt[i] = q;
    q += recordLength(recs, q);
  }
  if (q !== recs.length) return null;
  return { id: m[2]!, base: m[3]!, statAt, stats, drop, pos, recs, recAt };
}

/** The file's bytes, in parts (written as they are). */
export function overBytes(o: Over, version: number): Buffer[] {
  const n = (xs: Uint32Array) => {
    const b = Buffer.allocUnsafe(xs.length * 4);
    for (let i = 0; i < xs.length; i++) b.writeUInt32LE(xs[i]!, i * 4);
    return b;
  };
  const head = `c${version} ${o.id} ${o.base} ${o.statAt.length} ${o.drop.length} ${o.pos.length}\n`;
  return [Buffer.from(head, 'latin1'), n(o.statAt), o.stats, n(o.drop), n(o.pos), o.recs];
}

/** Does every stat the patch records name a source of a check.bin of `count` sources? */
export function fitsCheck(o: Over, count: number): boolean {
  return o.statAt.length === 0 || o.statAt[o.statAt.length - 1]! < count;
}

/**
 * The stats recorded anew, put over check.bin's (its bytes from `numsAt`, `count` sources); false
 * when one names a source check.bin does not have.
 */
export function applyStats(o: Over, buf: Buffer, numsAt: number, count: number): boolean {
  if (!fitsCheck(o, count)) return false;
  for (let i = 0; i < o.statAt.length; i++) o.stats.copy(buf, numsAt + o.statAt[i]! * 24, i * 24, i * 24 + 24);
  return true;
}

/**
 * rows.bin of build `o.base` (`r`, not yet read past its checks) made the listing of build `o.id`:
 * its records in their new order (`at`: rows.bin's by offset, the patch's past the file's end, in
 * `more`). Changes `r` itself (an opened RowBin keeps its file open by its identity). False when the
 * patch does not fit the file.
 */
export function overlayRows(r: RowBin, o: Over): boolean {
  const n = r.count;
  if ((o.drop.length > 0 && o.drop[o.drop.length - 1]! >= n) || (o.pos.length > 0 && o.pos[o.pos.length - 1]! > n)) return false;
  const size = recordEnd(r);
  if (size + o.recs.length > 0xffffffff) return false;
  const count = n - o.drop.length + o.pos.length;
  const at = new Uint32Array(count);
  let m = 0;
  let j = 0;
  let d = 0;
  let first = -1;
  // the runs of rows.bin's records between the patch's places copied as runs (a loop over 22,000
  // records, run once while the code is cold, cost ~2 ms), the patch's records put in their places
  for (let k = 0; ; ) {
    const np = j < o.pos.length ? o.pos[j]! : n + 1;
    const nd = d < o.drop.length ? o.drop[d]! : n + 1;
    const stop = Math.min(np, nd, n);
    if (stop > k) {
      at.set(r.at.subarray(k, stop), m);
      m += stop - k;
      k = stop;
    }
    if (np === k) {
      if (first < 0) first = m;
      at[m++] = size + o.recAt[j++]!;
    } else if (nd === k) {
      d++;
      k++;
    } else break;
  }
  if (m !== count) return false;
  r.id = o.id;
  r.count = count;
  r.at = at;
  r.more = o.recs;
  holdApart(r, o.recs);
  // one record held apart read now, before any loop over them: the loops are optimised knowing the
  // way to it (met first in the middle of one, it sent the loop back to the interpreter: ~10 ms of
  // printing 22,000 rows)
  if (first >= 0) locate(r, first);
  return true;
}

/** A changed session's record in the listing in force: rows.bin's record `base`, or the patch's record `rec`; and its short id. */
export interface Held {
  base: number;
  rec: number;
  short: string;
}

/** keyShort of the record starting at byte `p` of `buf` (its A field from the length in its header). */
function recordKey(buf: Buffer, p: number): [string, string] {
  const a = p + FIXED;
  return keyShort(buf, a, a + buf.readUInt32LE(p + 10));
}

/**
 * The records of these keys in the listing of build `o.id` (rows.bin `r` of `o.base`, not
 * overlaid, and the patch): null unless each key is there exactly once. A record of rows.bin the
 * patch drops is not there.
 */
export function findKeys(r: RowBin, o: Over, keys: Set<string>): Map<string, Held> | null {
  const out = new Map<string, Held>();
  const found = (key: string, h: Held) => {
    if (out.has(key)) return false;
    out.set(key, h);
    return true;
  };
  // the patch's records: few, each read
  for (let i = 0; i < o.recAt.length; i++) {
    const [key, short] = recordKey(o.recs, o.recAt[i]!);
    if (keys.has(key) && !found(key, { base: -1, rec: i, short })) return null;
  }
  // rows.bin's: searched as bytes (the key, then a tab), each hit kept only where a record's first field starts
  const dropped = new Set(o.drop);
  const loc = locator(r);
  for (const key of keys) {
    const needle = Buffer.from(key + '\t', 'utf8');
    for (const p of fileFind(r, needle)) {
      const k = recordAt(r.at, p - FIXED);
      if (k < 0 || dropped.has(k)) continue;
      const rec = loc(r, k);
      const [rk, short] = keyShort(rec.buf, rec.a, rec.b);
      if (rk !== key || !found(key, { base: k, rec: -1, short })) return null;
    }
    if (!out.has(key)) return null;
  }
  return out;
}

/** Where `p` is in an ascending array (the record starting at byte `p`, of rows.bin's offsets), or -1. */
export function recordAt(at: Uint32Array, p: number): number {
  let lo = 0;
  let hi = at.length - 1;
  while (lo <= hi) {
    const m = (lo + hi) >> 1;
    if (at[m]! === p) return m;
    if (at[m]! < p) lo = m + 1;
    else hi = m - 1;
  }
  return -1;
}

/** What orders a record (lib/index/stream.ts byRecency, from its bytes): its time (0 when unknown), its id, and whether its key has a space (a tab of the real id may stand there). */
function orderOf(buf: Buffer, p: number): { t: number; id: string; blurred: boolean } {
  const [key] = recordKey(buf, p);
  return { t: timeAt(buf, p), id: idOf(key), blurred: key.includes(' ') };
}

/** The id of a key (`<harness>:<id>`). */
const idOf = (key: string): string => key.slice(key.indexOf(':') + 1);

/** A record's time as byRecency takes it (0 when unknown). */
function timeAt(buf: Buffer, p: number): number {
  const t = buf.readDoubleLE(p + 2);
  return Number.isNaN(t) ? 0 : t;
}

/** Does x come before y (-1), after it (1), or can the bytes not tell (0: a tie on time with a blurred key or the same id)? */
function before(x: ReturnType<typeof orderOf>, y: ReturnType<typeof orderOf>): -1 | 0 | 1 {
  if (x.t !== y.t) return x.t > y.t ? -1 : 1;
  if (x.blurred || y.blurred || x.id === y.id) return 0;
  return x.id < y.id ? -1 : 1;
}

/**
 * The patch of build `id`: `o` (over rows.bin `r` of its base, not overlaid) with the changed
 * sessions (`held`: where each is now) listed from `adds` (their new records, whole) and these
 * stats recorded anew (by check.bin index). Each new record goes where byRecency puts it. Null when
 * the order cannot be told from the bytes (see `before`).
 */
export function nextOver(r: RowBin, o: Over, id: string, held: Map<string, Held>, adds: Buffer[], stats: Map<number, Buffer>): Over | null {
  // the stats: the patch's with these put over them
  const all = new Map<number, Buffer>();
  for (let i = 0; i < o.statAt.length; i++) all.set(o.statAt[i]!, o.stats.subarray(i * 24, i * 24 + 24));
  for (const [i, b] of stats) all.set(i, b);
  const statAt = Uint32Array.from([...all.keys()].sort((x, y) => x - y));
  const statBuf = Buffer.concat([...statAt].map((i) => all.get(i)!));

  const gone = new Set<number>();
  const drops = new Set(o.drop);
  for (const h of held.values()) {
    if (h.base >= 0) drops.add(h.base);
    else gone.add(h.rec);
  }
  const drop = Uint32Array.from([...drops].sort((x, y) => x - y));
  const recs: Array<{ pos: number; rec: Buffer; ord: ReturnType<typeof orderOf> }> = [];
  for (let i = 0; i < o.recAt.length; i++) {
    if (gone.has(i)) continue;
    const end = i + 1 < o.recAt.length ? o.recAt[i + 1]! : o.recs.length;
    recs.push({ pos: o.pos[i]!, rec: o.recs.subarray(o.recAt[i]!, end), ord: orderOf(o.recs, o.recAt[i]!) });
  }
  // each new record before the first of rows.bin's listed records that comes after it
  const fresh = adds.map((rec) => ({ pos: r.count, rec, ord: orderOf(rec, 0) }));
  const loc = locator(r);
  /** x against rows.bin's record k: the time decides but for a tie (only then is the key decoded) */
  const cmp = (x: (typeof fresh)[number], k: number): -1 | 0 | 1 => {
    const rec = loc(r, k);
    const t = timeAt(rec.buf, rec.p);
    return t !== x.ord.t ? (x.ord.t > t ? -1 : 1) : before(x.ord, orderOf(rec.buf, rec.p));
  };
  for (const x of fresh) {
    // rows.bin is in this order: the first listed record x comes before, by halving over the listed
    // records (x's own record, dropped, would tie); then no listed record before it may tie with x.
    // A tie met while halving is looked at one record at a time.
    let lo = 0;
    let hi = r.count;
    let tied = false;
    while (lo < hi && !tied) {
      const m = (lo + hi) >> 1;
      let k = m;
      while (k < hi && drops.has(k)) k++;
      if (k === hi) {
        k = m - 1;
        while (k >= lo && drops.has(k)) k--;
        // (every record from lo to hi dropped: x goes before hi's)
        if (k < lo) break;
      }
      const c = cmp(x, k);
      if (c === 0) tied = true;
      else if (c < 0) hi = k;
      else lo = k + 1;
    }
    if (tied) {
      lo = r.count;
      for (let k = 0; k < r.count; k++) {
        if (drops.has(k)) continue;
        const c = cmp(x, k);
        if (c === 0) return null;
        if (c < 0) {
          lo = k;
          break;
        }
      }
    } else {
      for (let k = lo - 1; k >= 0; k--) {
        const rec = loc(r, k);
        if (timeAt(rec.buf, rec.p) !== x.ord.t) break;
        if (!drops.has(k) && cmp(x, k) === 0) return null;
      }
    }
    x.pos = lo;
    recs.push(x);
  }
  // a place before a record now dropped is the place before the next one listed: records there
  // are ordered among themselves below
  for (const x of recs) while (x.pos < r.count && drops.has(x.pos)) x.pos++;
  let tie = false;
  recs.sort((x, y) => {
    if (x.pos !== y.pos) return x.pos - y.pos;
    const c = before(x.ord, y.ord);
    if (c === 0) tie = true;
    return c;
  });
  if (tie) return null;
  const recAt = new Uint32Array(recs.length);
  let q = 0;
  for (let i = 0; i < recs.length; i++) {
    recAt[i] = q;
    q += recs[i]!.rec.length;
  }
  return {
    id, base: o.base, statAt, stats: statBuf, drop,
    pos: Uint32Array.from(recs.map((x) => x.pos)), recs: Buffer.concat(recs.map((x) => x.rec)), recAt,
  };
}

/** The records of a rows.bin body (after its header), each as its own slice. */
export function splitRecords(body: Buffer): Buffer[] {
  const out: Buffer[] = [];
  for (let p = 0; p < body.length; ) {
    const n = recordLength(body, p);
    out.push(body.subarray(p, p + n));
    p += n;
  }
  return out;
}

/**
 * The patch of build `id`: `o` (over rows.bin `r`, not overlaid) with these changed sessions put
 * over it (each listed once already: its short id stands) and these stats recorded anew; with the
 * short ids. Null when a key is not listed exactly once, a row cannot be rendered as a record, or
 * the order cannot be told from the bytes.
 */
export function overWith(
  r: RowBin, o: Over, id: string, home: string, put: Listed[], stats: Map<number, Buffer>, fresh: Map<string, string> = new Map(), gone: string[] = [],
): { over: Over; shorts: string[] } | null {
  const where = findKeys(r, o, new Set([...put.filter((s) => !fresh.has(s.key)).map((s) => s.key), ...gone]));
  if (!where) return null;
  // a session gone whose short id is longer than the least made others' longer: they would be shorter now
  for (const k of gone) if (where.get(k)!.short.length > MIN_SHORT) return null;
  const shorts = put.map((s) => fresh.get(s.key) ?? where.get(s.key)!.short);
  // (nothing put: sessions only gone)
  const rendered = put.length ? rowBinChunks('-', home, put.map((s, i) => ({ s, short: shorts[i]! }))) : null;
  const one = put.length ? rendered && splitRecords(rendered[1]!) : [];
  if (!one || one.length !== put.length) return null;
  const over = nextOver(r, o, id, where, one, stats);
  return over && { over, shorts };
}

/**
 * Short ids for sessions new to the listing of build `o.id` (rows.bin `r` of `o.base`, not
 * overlaid, and the patch), by the rule of shortIds, when they change no one else's: each new id's
 * first 8 characters begin no other id listed, nor another new one. Its short id is then those
 * characters, and no other grows. Null when one does (the listing is then written whole).
 */
export function freshShorts(r: RowBin, o: Over, ids: Map<string, string>): Map<string, string> | null {
  const out = new Map<string, string>();
  const heads = [...ids].map(([key, sid]) => [key, sid.slice(0, MIN_SHORT)] as const);
  const dropped = new Set(o.drop);
  const loc = locator(r);
  for (const [key, head] of heads) {
    if (heads.some(([k, h]) => k !== key && (h.startsWith(head) || head.startsWith(h)))) return null;
    // the patch's records (few), each read
    for (let i = 0; i < o.recAt.length; i++) if (idOf(recordKey(o.recs, o.recAt[i]!)[0]).startsWith(head)) return null;
    // rows.bin's, searched as bytes (`:` and the id's head), each hit's record read
    for (const p of fileFind(r, Buffer.from(`:${head}`, 'utf8'))) {
      const k = recordHolding(r.at, p);
      if (k < 0 || dropped.has(k)) continue;
      const rec = loc(r, k);
      if (idOf(keyShort(rec.buf, rec.a, rec.b)[0]).startsWith(head)) return null;
    }
    out.set(key, head);
  }
  return out;
}

/**
 * The record that holds byte `p`: the last of `at[lo..hi]` (ascending offsets) at or before it, or
 * -1 when none is.
 */
export function recordHolding(at: ArrayLike<number>, p: number, lo = 0, hi = at.length - 1): number {
  let found = -1;
  while (lo <= hi) {
    const m = (lo + hi) >> 1;
    if (at[m]! <= p) {
      found = m;
      lo = m + 1;
    } else hi = m - 1;
  }
  return found;
}
