// list.patch: an append's change to the stored listing, written beside list.json and rows.json
// instead of rewriting them (lib/index/index.ts says when, and how the build ids chain).
//
// The file is one JSON document:
//   {"v": INDEX_VERSION, "id": <build id>, "base": <build id of list.json and rows.json>,
//    "built": <ms>, "skipped": {...}, "drop": [<key>...], "put": [<Session>...], "short": [<id>...]}
// The listing of build `id` is the base listing without the sessions whose key is in `drop`, with
// `put` added (whole sessions, without `allPrompts`, as list.json holds them; `short[i]` is the short
// id of `put[i]`, for the rows of rows.json), sorted by `byRecency` as a build sorts it. Every key of
// `put` is in `drop` and no key is put twice, so a key is listed once; and, as an append never takes
// a session away (one that goes takes the full path), every dropped key is put again. A patch that
// breaks this, or any other malformed one, is not applied at all.
//
// The same module holds the two other pieces an append needs without parsing the listing: the head
// of list.json (its first line: version, build id, and the keys a patch may not touch) and the
// byte-level splice of rows.bin (records of untouched sessions copied, the changed ones put in
// their place in recency order).
import fs from 'node:fs';
import type { Session } from '../types.js';
import { byRecency } from './stream.js';
import { FIXED, fileFind, fileRange, recordHead, ROWBIN_VERSION, windowed, type RowBin } from './rowbin.js';
import { readFirstLine, readText } from '../util/fsx.js';

/** Successive appends merge into one patch up to these bounds; past them the listing is rewritten. */
export const PATCH_MAX_SESSIONS = 256;
export const PATCH_MAX_BYTES = 1 << 20;

export interface ListPatch<K = unknown> {
  v: number;
  id: string;
  base: string;
  built: number;
  skipped: K;
  drop: string[];
  put: Session[];
  short: string[];
}

/** A patch read and checked for shape (see the top); null when missing or malformed. */
export function readPatch(file: string, version: number): ListPatch | null {
  let p: ListPatch;
  try {
    p = JSON.parse(readText(file)) as ListPatch;
  } catch {
    return null;
  }
  if (
    !p || typeof p !== 'object' || p.v !== version || typeof p.id !== 'string' || typeof p.base !== 'string' || typeof p.built !== 'number' ||
    !p.skipped || typeof p.skipped !== 'object' || !Array.isArray(p.drop) || !Array.isArray(p.put) || !Array.isArray(p.short) ||
    p.short.length !== p.put.length
  ) return null;
  const drop = new Set<string>();
  for (const k of p.drop) {
    if (typeof k !== 'string') return null;
    drop.add(k);
  }
  const put = new Set<string>();
  for (let i = 0; i < p.put.length; i++) {
    const s = p.put[i];
    if (!s || typeof s !== 'object' || typeof s.key !== 'string' || typeof s.id !== 'string' || typeof p.short[i] !== 'string') return null;
    if (!drop.has(s.key) || put.has(s.key)) return null;
    put.add(s.key);
  }
  return put.size === drop.size ? p : null;
}

/** The base listing with the patch applied: dropped keys out, put sessions in, sorted as a build sorts. */
export function applyPatch<S extends { key: string; id: string; updated: number | null; started: number | null }>(
  base: S[],
  p: ListPatch,
  as: (s: Session, short: string) => S,
): S[] {
  const drop = new Set(p.drop);
  const out = base.filter((s) => !drop.has(s.key));
  for (let i = 0; i < p.put.length; i++) out.push(as(p.put[i]!, p.short[i]!));
  // all but the few put sessions are in order already (the sort takes the runs as they are)
  return out.sort(byRecency as unknown as (a: S, b: S) => number);
}

export interface ListHead {
  v: number;
  id: string;
  built: number;
  /** keys an append may not patch (a linked harness's forks and shared link keys); absent before patches existed */
  hold?: string[];
}

/**
 * The first line of list.json or rows.json (the writer puts a line break before `"sessions"`, the
 * only one in the file: JSON.stringify never writes one), parsed; null when it cannot be.
 */
export function readHead(file: string | number, maxBytes = 4 << 20): ListHead | null {
  const first = readFirstLine(file, maxBytes);
  if (!first) return null;
  try {
    const line = first.toString('utf8');
    if (!line.endsWith(',')) return null;
    const h = JSON.parse(line.slice(0, -1) + '}') as ListHead;
    if (!h || typeof h.v !== 'number' || typeof h.id !== 'string' || typeof h.built !== 'number') return null;
    if (h.hold !== undefined && !(Array.isArray(h.hold) && h.hold.every((k) => typeof k === 'string'))) return null;
    return h;
  } catch {
    return null;
  }
}

/** The key and short id a rows.bin record starts with (`key\tshort`). */
function keyShort(buf: Buffer, p: number): [string, string] {
  const a = p + FIXED;
  const la = buf.readUInt32LE(p + 10);
  const t = buf.indexOf(9, a);
  if (t < 0 || t >= a + la) return [buf.toString('utf8', a, a + la), ''];
  return [buf.toString('utf8', a, t), buf.toString('utf8', t + 1, a + la)];
}

/** The records of these keys in rows.bin: record number and short id; null unless each is there once. */
export function findRecords(bin: RowBin, keys: Set<string>): Map<string, { k: number; short: string }> | null {
  const out = new Map<string, { k: number; short: string }>();
  if (windowed(bin)) {
    // the same through the file's window: each hit's record read on its own
    for (const key of keys) {
      const b = Buffer.from(key + '\t', 'utf8');
      for (const pos of fileFind(bin, b)) {
        const k = recordAt(bin.at, pos - FIXED);
        if (k < 0) continue;
        if (out.has(key)) return null;
        const a = recordHead(bin, k).a;
        if (!a.startsWith(key + '\t')) return null;
        out.set(key, { k, short: a.slice(key.length + 1) });
      }
      if (!out.has(key)) return null;
    }
    return out;
  }
  const { buf, at } = bin;
  // searched as bytes (the key, then the tab) over the whole file, each hit kept only where a
  // record's first field starts: no record passed over is decoded
  for (const key of keys) {
    const b = Buffer.from(key + '\t', 'utf8');
    for (let pos = buf.indexOf(b); pos >= 0; pos = buf.indexOf(b, pos + 1)) {
      const k = recordAt(at, pos - FIXED);
      if (k < 0) continue;
      if (out.has(key)) return null;
      const la = buf.readUInt32LE(at[k]! + 10);
      if (b.length > la) return null;
      out.set(key, { k, short: buf.toString('utf8', pos + b.length, pos + la) });
    }
    if (!out.has(key)) return null;
  }
  return out;
}

/** The record starting at byte `p` (binary search of the offsets), or -1. */
function recordAt(at: Uint32Array, p: number): number {
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

/** The records of a rows.bin body (after its header), each as its own slice. */
export function splitRecords(body: Buffer): Buffer[] {
  const out: Buffer[] = [];
  for (let p = 0; p < body.length; ) {
    const n = FIXED + body.readUInt32LE(p + 10) + body.readUInt32LE(p + 14) + body.readUInt32LE(p + 18) + body.readUInt32LE(p + 22);
    out.push(body.subarray(p, p + n));
    p += n;
  }
  return out;
}

/** A record to put: its bytes (one record as rowBinChunks renders it) and what orders it. */
export interface NewRecord {
  rec: Buffer;
  s: Pick<Session, 'id' | 'updated' | 'started'>;
}

/**
 * rows.bin of build `id`: the records of `bin` but those numbered in `drop`, and `add` placed in the
 * order byRecency gives (time, then id). Neither is copied: `bin` holds the old file's buffer and
 * the new records apart (RowBin.more), and `parts` are the file's bytes in order, to be written as
 * they are. For a RowBin read through a window (openRowBin) the old file is never held whole:
 * `parts` reads its unchanged runs a window at a time as it is written (each piece in one buffer,
 * written before the next is read), and `bin` is null (the file written is the one to read back).
 * Null when the order cannot be told from the bytes: a record ties on time with one to put and its
 * key has a space (which may stand for a tab of the real id), or the same id.
 */
export function spliceRowBin(bin: RowBin, id: string, drop: Set<number>, add: NewRecord[]): { bin: RowBin | null; parts: Iterable<Buffer> } | null {
  const { at } = bin;
  const win = windowed(bin);
  const buf = win ? null : bin.buf;
  const size = win ? bin.win!.size : buf!.length;
  const adds = [...add].sort((x, y) => byRecency(x.s as Session, y.s as Session));
  const end = (k: number) => (k + 1 < bin.count ? at[k + 1]! : size);
  /** the unchanged runs of records (file offsets) and the new records, in order */
  const runs: Array<[number, number] | Buffer> = [];
  // where each record starts in the buffers the RowBin keeps
  const count = bin.count - drop.size + add.length;
  const abs = new Uint32Array(count);
  let n = 0;
  let runStart = -1;
  let runEnd = -1;
  const flushRun = () => {
    if (runStart >= 0) runs.push([runStart, runEnd]);
    runStart = -1;
  };
  const more = Buffer.concat(adds.map((x) => x.rec));
  const moreAt: number[] = [];
  for (let i = 0, q = 0; i < adds.length; q += adds[i]!.rec.length, i++) moreAt.push(q);
  // a new record: its offset in `more` for the RowBin, its bytes for the file
  const putNew = (i: number) => {
    abs[n++] = size + moreAt[i]!;
    runs.push(more.subarray(moreAt[i]!, moreAt[i]! + adds[i]!.rec.length));
  };
  let j = 0;
  for (let k = 0; k < bin.count; k++) {
    if (drop.has(k)) {
      flushRun();
      continue;
    }
    const p = at[k]!;
    if (j < adds.length) {
      const h = win ? recordHead(bin, k) : null;
      while (j < adds.length) {
        const t = h ? h.time : buf!.readDoubleLE(p + 2);
        const rt = Number.isNaN(t) ? 0 : t;
        const s = adds[j]!.s;
        const nt = s.updated ?? s.started ?? 0;
        let first: boolean;
        if (nt !== rt) first = nt > rt;
        else {
          const a = h ? h.a : null;
          const key = a !== null ? (a.includes('\t') ? a.slice(0, a.indexOf('\t')) : a) : keyShort(buf!, p)[0];
          const oid = key.slice(key.indexOf(':') + 1);
          // equal ids of two harnesses tie in byRecency too: their order is the sort's, not ours to tell
          if (key.includes(' ') || oid === s.id) return null;
          first = s.id < oid;
        }
        if (!first) break;
        flushRun();
        putNew(j);
        j++;
      }
    }
    if (runStart < 0) runStart = p;
    abs[n++] = p;
    runEnd = end(k);
  }
  flushRun();
  for (; j < adds.length; j++) putNew(j);
  if (n !== count || size + more.length > 0xffffffff) return null;
  const head = Buffer.from(`v${ROWBIN_VERSION} ${id} ${count} ${bin.home}\n`, 'utf8');
  if (win) {
    const parts = function* (): Generator<Buffer> {
      yield head;
      for (const r of runs) {
        if (Buffer.isBuffer(r)) yield r;
        else yield* fileRange(bin, r[0], r[1]);
      }
    };
    return { bin: null, parts: { [Symbol.iterator]: parts } };
  }
  const parts = runs.map((r) => (Buffer.isBuffer(r) ? r : buf!.subarray(r[0], r[1])));
  return { bin: { id, home: bin.home, count, buf: buf!, at: abs, more }, parts: [head, ...parts] };
}
