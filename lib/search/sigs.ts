// Signatures: which three-byte sequences occur in each file a search reads, kept in the index
// database (table `sigs`), so that a search reads only the files that can hold its words.
//
// A signature is a Bloom filter of the file's trigrams, taken over its bytes folded as the scanner
// folds them (fold.ts: every byte ORed with 0x20). A needle (query.ts) can be in a file only if every
// trigram of its folded bytes is in the file's signature; a term only if one of its needles can. The
// test never says no for a file that holds a needle (a Bloom filter has no false negatives), so a
// search that reads only the files it lets through finds exactly what reading every file finds.
// It may say yes for a file that holds none (a few percent per trigram, far fewer for a whole
// needle): that file is then read for nothing.
//
// Why not FTS5 (bench/sqlite/README.md): words are substrings, and the transcripts are mostly tool
// output; the trigram tokenizer over every byte is 2.3 times the text and builds at 5 MB/s, a word
// tokenizer cannot find `retrier` in `webhookretrier`. A signature is 3 to 6 bits a distinct trigram
// of a file (most files have a few thousand), hashed at a few hundred MB/s, and updated by an append
// from the bytes appended alone.
//
// Each filter is made as wide as the file could need (4 bits a byte, at most 2^20) and then folded
// in half (bit i OR bit i + m/2) while it stays sparse, so a position is always the hash's top 20
// bits masked to the width: a filter of any width is tested and extended the same way, and an
// append ORs into the width the file was given.
import fs from 'node:fs';
import { carrySigs } from '../index/mapstamp.js';
import { type Db, getMeta, setMeta } from '../index/store.js';
import type { Statement } from '../os/sqlite.js';
import type { Harness } from '../types.js';
import { LITTLE_ENDIAN, readFully } from '../util/fsx.js';
import { zstReader } from '../util/zstd.js';
import { foldNeedle } from './fold.js';
import { dropPieces, type Kept, PieceReader, putPieces } from './pieces.js';
import { allTerms } from './query.js';
import { WHOLE_CAP } from './read.js';
import { DATA_BYTES, FILTER_BYTES, sigHasher } from './sighash.js';

/** the widest signature, in bits (128 KiB: the room sighash.ts has for one) */
const MAX_BITS = FILTER_BYTES * 8;
/** the narrowest (256 bytes) */
const MIN_BITS = 1 << 11;
/** a signature is folded while its share of set bits would stay at or below this */
const SPARSE = 0.3;
/** an append past this share of set bits makes the signature again, wider (from the whole file) */
const CROWDED = 0.5;
/** bytes kept of a file's start and of the end of what was hashed: a file that no longer has them was rewritten */
const HEAD = 64;
const TAIL = 32;
const CHUNK = DATA_BYTES;

/**
 * A trigram's bit position: the top 20 bits of a multiplicative hash. One position a trigram (a
 * Bloom filter with one hash): two halved the speed of hashing (250 against 420 MB/s here) for a
 * test that was already strict enough, as a needle of n bytes has n - 2 trigrams to pass.
 */
function posOf(t: number): number {
  return Math.imul(t, 0x9e3779b1) >>> 12;
}

/** A filter being filled: its bits, and the last two folded bytes (a trigram spans reads). */
class Filling {
  bits: Uint8Array;
  /** the same bits as 32-bit words, when they can be set so (null: byte by byte) */
  private readonly words: Uint32Array | null;
  /** the last bytes folded, the newest lowest (-1: fewer than two so far) */
  private t = -1;
  private seen = 0;
  constructor(bits: Uint8Array, carry?: Buffer) {
    this.bits = bits;
    // (bit i of a filter's bytes is bit i of its 32-bit words read little-endian: set in place where the machine is so)
    this.words = LITTLE_ENDIAN && bits.byteOffset % 4 === 0 ? new Uint32Array(bits.buffer, bits.byteOffset, bits.length >>> 2) : null;
    if (carry && carry.length >= 2) {
      this.t = ((carry[carry.length - 2] | 0x20) << 8) | (carry[carry.length - 1] | 0x20);
      this.seen = 2;
    }
  }

  add(buf: Uint8Array, n: number): void {
    let t = this.t;
    let i = 0;
    // the first two bytes of a file only begin trigrams
    for (; i < n && this.seen < 2; i++, this.seen++) t = ((t << 8) | buf[i] | 0x20) & 0xffff;
    // in WebAssembly when the filter and the bytes are in its memory (makeSig, extend), eight bytes
    // a turn; the last few here
    const h = sigHasher();
    if (h && this.bits.buffer === h.filter.buffer && buf.buffer === h.filter.buffer) ({ t, i } = h.fill(this.bits, buf, i, n, t));
    this.t = this.words ? addWords(this.words, buf, i, n, t) : addBytes(this.bits, buf, i, n, t);
  }
}

/** Set the bits of the trigrams ending at bytes [i, n) of buf (`t`: the two bytes before); the last two bytes. */
export function addBytes(bits: Uint8Array, buf: Uint8Array, i: number, n: number, t: number): number {
  const mask = bits.length * 8 - 1;
  for (; i < n; i++) {
    t = ((t << 8) | buf[i] | 0x20) & 0xffffff;
    const p = posOf(t) & mask;
    bits[p >>> 3] |= 1 << (p & 7);
  }
  return t;
}

/**
 * addBytes on the filter's 32-bit words, eight bytes a turn: the same bits, 1.3 to 1.9 times as fast
 * here (fewer loads and bounds checks a byte). Where WebAssembly runs, sighash.ts does this work but
 * a read's last few bytes.
 */
export function addWords(words: Uint32Array, buf: Uint8Array, i: number, n: number, t: number): number {
  const mask = words.length * 32 - 1;
  let p = 0;
  for (; i + 8 <= n; i += 8) {
    const t0 = ((t << 8) | buf[i] | 0x20) & 0xffffff;
    const t1 = ((t0 << 8) | buf[i + 1] | 0x20) & 0xffffff;
    const t2 = ((t1 << 8) | buf[i + 2] | 0x20) & 0xffffff;
    const t3 = ((t2 << 8) | buf[i + 3] | 0x20) & 0xffffff;
    const t4 = ((t3 << 8) | buf[i + 4] | 0x20) & 0xffffff;
    const t5 = ((t4 << 8) | buf[i + 5] | 0x20) & 0xffffff;
    const t6 = ((t5 << 8) | buf[i + 6] | 0x20) & 0xffffff;
    t = ((t6 << 8) | buf[i + 7] | 0x20) & 0xffffff;
    p = posOf(t0) & mask;
    words[p >>> 5] |= 1 << (p & 31);
    p = posOf(t1) & mask;
    words[p >>> 5] |= 1 << (p & 31);
    p = posOf(t2) & mask;
    words[p >>> 5] |= 1 << (p & 31);
    p = posOf(t3) & mask;
    words[p >>> 5] |= 1 << (p & 31);
    p = posOf(t4) & mask;
    words[p >>> 5] |= 1 << (p & 31);
    p = posOf(t5) & mask;
    words[p >>> 5] |= 1 << (p & 31);
    p = posOf(t6) & mask;
    words[p >>> 5] |= 1 << (p & 31);
    p = posOf(t) & mask;
    words[p >>> 5] |= 1 << (p & 31);
  }
  for (; i < n; i++) {
    t = ((t << 8) | buf[i] | 0x20) & 0xffffff;
    p = posOf(t) & mask;
    words[p >>> 5] |= 1 << (p & 31);
  }
  return t;
}

function popcount(x: number): number {
  let v = x - ((x >>> 1) & 0x55555555);
  v = (v & 0x33333333) + ((v >>> 2) & 0x33333333);
  return Math.imul((v + (v >>> 4)) & 0x0f0f0f0f, 0x01010101) >>> 24;
}

function setShare(words: Uint32Array): number {
  let n = 0;
  for (let i = 0; i < words.length; i++) n += popcount(words[i]);
  return n / (words.length * 32);
}

/** Fold a filter in half while it stays sparse; a copy of the width kept. */
function narrow(bits: Uint8Array): Buffer {
  // (32 bits at a time: the widths are powers of two of 256 bytes or more, the filter starts at 0)
  const words = new Uint32Array(bits.buffer, bits.byteOffset, bits.length >>> 2);
  let m = words.length;
  // (counted in WebAssembly where the filter is in its memory: a count of every bit of each of 22,000
  // filters was ~4% of making the search index)
  const h = sigHasher();
  let share = h && bits.buffer === h.filter.buffer ? h.share(bits) : setShare(words);
  while (m * 32 > MIN_BITS) {
    // two sets of positions ORed: the share of set bits after the fold
    const next = 1 - (1 - share) ** 2;
    if (next > SPARSE) break;
    const h = m >>> 1;
    for (let i = 0; i < h; i++) words[i] |= words[i + h];
    m = h;
    share = next;
  }
  return Buffer.from(bits.subarray(0, m * 4));
}

/** Is a filter of `n` bytes one of a width this index makes (a power of two within bounds)? */
function madeWidth(n: number): boolean {
  return n >= MIN_BITS / 8 && n <= MAX_BITS / 8 && (n & (n - 1)) === 0;
}

/** The width to make a file's signature in: 4 bits a byte it has (it has no more distinct trigrams than bytes), a power of two, within bounds. */
function widthFor(file: string, size: number): number {
  // (a compressed file's bytes decoded are more than its size)
  if (file.endsWith('.zst')) return MAX_BITS;
  let w = MIN_BITS;
  while (w < MAX_BITS && w < size * 4) w *= 2;
  return w;
}

/** rooms for the widest filter and a read, where WebAssembly cannot run (each thread makes one signature at a time) */
let wide: Uint8Array | null = null;
let readBuf: Buffer | null = null;

/**
 * Where each signature is made and its file read into: the memory of the WebAssembly loop
 * (sighash.ts) when there is one, so that it hashes the bytes where they were read.
 */
function rooms(): { wide: Uint8Array; readBuf: Buffer } {
  const h = sigHasher();
  if (h) return { wide: h.filter, readBuf: h.data };
  wide ??= new Uint8Array(MAX_BITS / 8);
  readBuf ??= Buffer.allocUnsafe(CHUNK);
  return { wide, readBuf };
}

/** A file's signature from all its bytes (decoded first for a `.zst`), with its first bytes and the last ones hashed. */
function makeSig(
  fd: number,
  file: string,
  size: number,
  reader: PieceReader | null,
): { bloom: Buffer; head: Buffer; tail: Buffer; bytes: number } {
  const { wide, readBuf } = rooms();
  // as wide as the file can need, not the widest: a small file's filter is cleared and folded from
  // a few KiB (from 128 KiB, 22,000 of them took 12 s)
  const bits = wide.subarray(0, widthFor(file, size) / 8);
  bits.fill(0);
  const f = new Filling(bits);
  const read = file.endsWith('.zst') ? zstReader(fd) : null;
  let head: Buffer | null = null;
  let pos = 0;
  let last = Buffer.alloc(0);
  for (;;) {
    const n = read ? read(readBuf, 0, CHUNK) : fs.readSync(fd, readBuf, 0, CHUNK, pos);
    if (n <= 0) break;
    if (!head) head = Buffer.from(readBuf.subarray(0, Math.min(n, HEAD)));
    f.add(readBuf, n);
    reader?.feed(readBuf, n);
    pos += n;
    last = Buffer.concat([last, readBuf.subarray(Math.max(0, n - TAIL), n)]).subarray(-TAIL);
  }
  return { bloom: narrow(bits), head: head ?? Buffer.alloc(0), tail: Buffer.from(last), bytes: pos };
}

/** What the table holds of one file. */
export interface SigRow {
  size: number;
  mtime: number;
  ino: number;
  head: Buffer;
  tail: Buffer;
  bloom: Buffer;
  /** the bytes of complete lines whose pieces are kept (null: no pieces kept of this file) */
  poff: number | null;
  /** the text extractor's state after them (JSON) */
  pst: string | null;
}

/** A file's size, modification time (ms) and inode. */
export interface FileStat {
  size: number;
  mtime: number;
  ino: number;
}

/** A file's size, time and inode as signatures keep them (throws when it is gone). */
export function statOf(file: string): FileStat {
  return fileStat(fs.statSync(file));
}

const fileStat = (st: fs.Stats): FileStat => ({ size: st.size, mtime: st.mtimeMs, ino: st.ino });

/** The file is as a signature was made of it (its size, time and inode). */
export const sameFile = (a: FileStat, b: FileStat): boolean => a.size === b.size && a.mtime === b.mtime && a.ino === b.ino;

/**
 * A row a fill can keep or extend: its filter of a width this index writes (not a damaged row's),
 * with pieces when the file has a harness now (a file given one since is read whole).
 */
const usableRow = (harness: Harness | undefined, pieced: boolean, width: number): boolean => (!harness || pieced) && madeWidth(width);

/** What a search reads of a file's row. */
type Stored = Pick<SigRow, 'size' | 'mtime' | 'ino'> & {
  /** the terms its signature lets through (bit i: term i), worked out as it was read (the filter itself is not kept) */
  held: number;
  pieces: boolean;
};

/** The same file grown by an append (it still starts, and goes on at the old end, as it did)? */
function grownOnly(fd: number, st: fs.Stats, was: SigRow, file: string): boolean {
  // (a compressed file cannot be read from an offset; a JSON document is rewritten whole)
  if (file.endsWith('.zst') || file.endsWith('.json') || st.ino !== was.ino || st.size < was.size) return false;
  const h = Buffer.allocUnsafe(was.head.length);
  if (readFully(fd, h, 0, h.length, 0) !== h.length || !h.equals(was.head)) return false;
  const t = Buffer.allocUnsafe(was.tail.length);
  return readFully(fd, t, 0, t.length, was.size - t.length) === t.length && t.equals(was.tail);
}

/** The signature extended by the bytes appended since (null when it grew too crowded: made again). */
function extend(fd: number, st: fs.Stats, was: SigRow, reader: PieceReader | null): { bloom: Buffer; tail: Buffer } | null {
  const { wide, readBuf } = rooms();
  // (filled where a new one is made: the stored one copied in)
  const bits = was.bloom.length <= wide.length ? wide.subarray(0, was.bloom.length) : new Uint8Array(was.bloom.length);
  bits.set(was.bloom);
  const f = new Filling(bits, was.tail);
  let tail = was.tail;
  // the pieces go on from the end of the last complete line, the signature from the old end
  const from = reader && was.poff !== null ? Math.min(was.poff, was.size) : was.size;
  for (let pos = from; pos < st.size; ) {
    const n = readFully(fd, readBuf, 0, Math.min(CHUNK, st.size - pos), pos);
    if (n <= 0) break;
    reader?.feed(readBuf, n);
    const skip = Math.max(0, was.size - pos);
    if (skip < n) {
      f.add(readBuf.subarray(skip, n), n - skip);
      tail = Buffer.concat([tail, readBuf.subarray(Math.max(skip, n - TAIL), n)]).subarray(-TAIL);
    }
    pos += n;
  }
  if (bits.length * 8 < MAX_BITS && setShare(new Uint32Array(bits.buffer, bits.byteOffset, bits.length >>> 2)) > CROWDED) return null;
  return { bloom: Buffer.from(bits), tail: Buffer.from(tail) };
}

/** How far a fill got. */
export interface FillTally {
  files: number;
  made: number;
  extended: number;
  bytes: number;
  gone: number;
}

/** bytes hashed between commits (another builder waits no longer than that for the write lock) */
const BATCH_BYTES = 32 << 20;

interface Stmts {
  /** a row's stat and what makes it usable, without its filter (most files of a fill are current) */
  peek: Statement;
  get: Statement;
  put: Statement;
  drop: Statement;
}

/** What `peek` gives: enough to tell a current signature without opening the file or reading its filter. */
interface Peek {
  size: number;
  mtime: number;
  ino: number;
  pieced: number;
  width: number;
}

/**
 * One file's signature brought up to date; the bytes hashed, or -1 when it was current. `write`
 * is called before the first write (the transaction begins there). A file gone or unreadable loses
 * its signature, so a search reads it (and says what it could not).
 */
function fillOne(file: string, q: Stmts, c: FillCtx): number {
  const harness = c.harnessOf?.(file);
  // current (the usual case in a fill over every file): told by a stat and the row's stat alone
  // (opening each file and reading each filter took ~300 ms of a `resume index` at 22,000 sessions
  // that had nothing to do); anything else is looked at again below, from the opened file
  const seen = q.peek.get(file) as Peek | undefined;
  if (seen && usableRow(harness, seen.pieced === 1, seen.width)) {
    const st = fs.statSync(file, { throwIfNoEntry: false });
    if (st?.isFile() && sameFile(seen, fileStat(st))) return -1;
  }
  let fd = -1;
  try {
    fd = fs.openSync(file, 'r');
    const st = fs.fstatSync(fd);
    if (!st.isFile()) throw new Error('not a file');
    const was = q.get.get(file) as SigRow | undefined;
    const usable = !!was && usableRow(harness, was.poff !== null, was.bloom.length);
    if (usable && was && sameFile(was, fileStat(st))) return -1;
    c.write();
    const o: One = { file, q, c, harness };
    const n = usable && was && grownOnly(fd, st, was, file) ? appended(fd, st, was, o) : -1;
    if (n >= 0) return n;
    // made whole: on a worker thread when the fill has them (written when it is back), else here
    if (c.elsewhere?.(o, st.size, !!was)) return 0;
    return putWhole(o, wholeOf(fd, st, file, harness), !!was);
  } catch {
    c.write();
    dropPieces(c.db, file);
    q.drop.run(file);
    return 0;
  } finally {
    if (fd >= 0) fs.closeSync(fd);
  }
}

/** What making one file's signature and pieces is given. */
interface One {
  file: string;
  q: Stmts;
  c: FillCtx;
  harness: Harness | undefined;
}

/** The signature and pieces extended by what was appended; the bytes read, or -1 when the signature must be made again. */
function appended(fd: number, st: fs.Stats, was: SigRow, o: One): number {
  const reader = o.harness ? new PieceReader(o.harness, o.file, was.pst, was.poff === 0) : null;
  const ext = extend(fd, st, was, reader);
  if (!ext) return -1;
  const poff = reader && was.poff !== null ? Math.min(was.poff, was.size) + reader.consumed : null;
  o.q.put.run(o.file, st.size, st.mtimeMs, st.ino, was.head, ext.tail, ext.bloom, poff, reader?.state() ?? null);
  if (reader) putPieces(o.c.db, o.file, reader.kept, true);
  o.c.tally.extended++;
  o.c.tally.bytes += st.size - was.size;
  return st.size - was.size;
}

/** A file's signature and pieces made from all its bytes, on this thread or a worker's (sigpool.ts). */
export interface Whole {
  /** the stat of the file it was made of */
  st: FileStat;
  head: Uint8Array;
  tail: Uint8Array;
  bloom: Uint8Array;
  /** bytes hashed */
  bytes: number;
  /** its pieces (null: its harness is not known, no pieces kept), their extractor's state and where they end */
  kept: Kept[] | null;
  pst: string | null;
  poff: number | null;
}

/** The signature and pieces of the file open at `fd` (stat `st`), from all its bytes. */
function wholeOf(fd: number, st: fs.Stats, file: string, harness: Harness | undefined): Whole {
  const reader = harness ? new PieceReader(harness, file, null, true) : null;
  const isDoc = file.endsWith('.json');
  const s = makeSig(fd, file, st.size, isDoc ? null : reader);
  if (reader && isDoc) reader.whole(readDoc(file));
  return {
    st: { size: st.size, mtime: st.mtimeMs, ino: st.ino },
    head: s.head,
    tail: s.tail,
    bloom: s.bloom,
    bytes: s.bytes,
    kept: reader ? reader.kept : null,
    pst: reader?.state() ?? null,
    // (a .zst is hashed decoded: its size and time are the file's, its bytes the decoded ones)
    poff: reader ? (isDoc ? st.size : reader.consumed) : null,
  };
}

/** A file's signature and pieces made from all its bytes (a worker thread's job); null when it cannot be read. */
export function makeWhole(file: string, harness: Harness | undefined): Whole | null {
  let fd = -1;
  try {
    fd = fs.openSync(file, 'r');
    const st = fs.fstatSync(fd);
    return st.isFile() ? wholeOf(fd, st, file, harness) : null;
  } catch {
    return null;
  } finally {
    if (fd >= 0) fs.closeSync(fd);
  }
}

/** A whole file's signature and pieces written (`had`: it had a row, and pieces to replace); the bytes read. */
function putWhole(o: One, w: Whole, had: boolean): number {
  // (a worker's buffers come back as plain byte arrays: the engines bind Buffers)
  const buf = (u: Uint8Array) => (Buffer.isBuffer(u) ? u : Buffer.from(u.buffer, u.byteOffset, u.byteLength));
  o.q.put.run(o.file, w.st.size, w.st.mtime, w.st.ino, buf(w.head), buf(w.tail), buf(w.bloom), w.poff, w.pst);
  // (a file new to the index has no pieces to take out first)
  if (w.kept) putPieces(o.c.db, o.file, w.kept, !had);
  else if (had) dropPieces(o.c.db, o.file);
  o.c.tally.made++;
  o.c.tally.bytes += w.bytes;
  return w.bytes;
}

/** a JSON document's whole text, parsed (undefined: too big or not JSON) */
function readDoc(file: string): unknown {
  try {
    if (fs.statSync(file).size > WHOLE_CAP) return undefined;
    return JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch {
    return undefined;
  }
}

/** What filling each file is given. */
interface FillCtx {
  tally: FillTally;
  /** begins the write transaction, once */
  write: () => void;
  /** the harness a file belongs to: its pieces are kept too (none: the signature only) */
  harnessOf?: (file: string) => Harness | undefined;
  db: Db;
  /** hand a file to be made whole to another thread; false: make it here */
  elsewhere?: (o: One, size: number, had: boolean) => boolean;
}

/** What a fill is asked: `prune` (the files are every file searches read: the rows of others go), progress, each file's harness. */
export interface FillOpts {
  prune?: boolean;
  progress?: (done: number, total: number) => void;
  harnessOf?: (file: string) => Harness | undefined;
}

/**
 * Files to be made whole on other threads (sigpool.ts): `make` hands one over and resolves with
 * what came back (null: it could not be read there); `busy` is how many are out.
 */
export interface WholeMaker {
  make(file: string, harness: Harness | undefined): Promise<Whole | null>;
  readonly busy: number;
  /** how many may be out at once */
  readonly room: number;
}

/** The meta key a fill sets, anew, in each transaction that writes signatures (groupmap.ts). */
export const SIGS_WRITTEN = 'sigs-written';
/** this process's fill transactions, told apart */
let writes = 0;

/** One fill's statements, transaction and tally (fillSigs, fillSigsOn). */
class Filler {
  readonly tally: FillTally;
  readonly q: Stmts;
  readonly c: FillCtx;
  private open = false;
  private batch = 0;

  constructor(
    private readonly db: Db,
    files: string[],
    opts: FillOpts,
  ) {
    this.tally = { files: files.length, made: 0, extended: 0, bytes: 0, gone: 0 };
    this.q = {
      peek: db.prepare('SELECT size, mtime, ino, poff IS NOT NULL AS pieced, length(bloom) AS width FROM sigs WHERE path = ?'),
      get: db.prepare('SELECT size, mtime, ino, head, tail, bloom, poff, pst FROM sigs WHERE path = ?'),
      // (an upsert keeps the row's id, which its pieces name)
      put: db.prepare(
        'INSERT INTO sigs(path, size, mtime, ino, head, tail, bloom, poff, pst) VALUES(?,?,?,?,?,?,?,?,?) ' +
          'ON CONFLICT(path) DO UPDATE SET size = excluded.size, mtime = excluded.mtime, ino = excluded.ino, head = excluded.head, ' +
          'tail = excluded.tail, bloom = excluded.bloom, poff = excluded.poff, pst = excluded.pst',
      ),
      drop: db.prepare('DELETE FROM sigs WHERE path = ?'),
    };
    this.c = { tally: this.tally, write: () => this.begin(), harnessOf: opts.harnessOf, db };
  }

  private begin(): void {
    if (this.open) return;
    this.db.exec('BEGIN IMMEDIATE');
    this.open = true;
    // (the group map is stamped with the signatures' last write, and carried over this one)
    const now = `${Date.now()}.${process.pid}.${++writes}`;
    carrySigs(this.db, getMeta(this.db, SIGS_WRITTEN), now);
    setMeta(this.db, SIGS_WRITTEN, now);
  }

  /** Bytes hashed: a commit once they come to a batch. */
  done(bytes: number): void {
    this.batch += Math.max(0, bytes);
    if (this.batch >= BATCH_BYTES && this.open) {
      this.db.exec('COMMIT');
      this.open = false;
      this.batch = 0;
    }
  }

  /** The rows of files not in `files` removed (and their pieces). */
  prune(files: string[]): void {
    const keep = new Set(files);
    const stale = (this.db.prepare('SELECT path FROM sigs').pluck().all() as string[]).filter((p) => !keep.has(p));
    if (stale.length) this.begin();
    for (const p of stale) {
      dropPieces(this.db, p);
      this.q.drop.run(p);
    }
    this.tally.gone = stale.length;
  }

  /** The last commit; after a failure, what was not committed is rolled back. */
  end(ok: boolean): void {
    if (this.open) this.db.exec(ok ? 'COMMIT' : 'ROLLBACK');
    this.open = false;
  }
}

/**
 * Bring the signatures of `files` up to date: a file new or rewritten is hashed whole, one grown by
 * an append from where its signature ended, an unchanged one not at all. Commits every few dozen
 * MiB, so a listing's builder waiting for the write lock waits no longer than one batch.
 */
export function fillSigs(db: Db, files: string[], opts: FillOpts = {}): FillTally {
  const f = new Filler(db, files, opts);
  let ok = false;
  try {
    for (let i = 0; i < files.length; i++) {
      opts.progress?.(i, files.length);
      f.done(fillOne(files[i], f.q, f.c));
    }
    if (opts.prune) f.prune(files);
    ok = true;
  } finally {
    f.end(ok);
  }
  return f.tally;
}

/**
 * fillSigs with the files to be made whole handed to other threads (`maker`), written here as they
 * come back; appends and unchanged files are seen to here, in between. A file is handed over only
 * past `from` bytes (a small one costs less here than its trip). The same rows as fillSigs.
 */
export async function fillSigsOn(db: Db, files: string[], opts: FillOpts, maker: WholeMaker, from = 1 << 20): Promise<FillTally> {
  const f = new Filler(db, files, opts);
  const out = new Set<Promise<void>>();
  f.c.elsewhere = (o, size, had) => {
    if (size < from) return false;
    const p: Promise<void> = maker.make(o.file, o.harness).then((w) => {
      out.delete(p);
      // (a batch may have been committed since it was handed over)
      f.c.write();
      if (w) f.done(putWhole(o, w, had));
      else {
        // (gone or unreadable there: no signature, so a search reads it)
        dropPieces(db, o.file);
        f.q.drop.run(o.file);
      }
    });
    out.add(p);
    return true;
  };
  let ok = false;
  try {
    for (let i = 0; i < files.length; i++) {
      opts.progress?.(i, files.length);
      f.done(fillOne(files[i], f.q, f.c));
      // (at most `room` out at once: what comes back is written before more go)
      while (maker.busy >= maker.room) await Promise.race(out);
    }
    await Promise.all(out);
    if (opts.prune) f.prune(files);
    ok = true;
  } finally {
    if (!ok) await Promise.allSettled(out);
    f.end(ok);
  }
  return f.tally;
}

/** The bit positions of a needle's trigrams, as the hash's top 20 bits (null: under 3 bytes, never ruled out). */
function needleProbe(key: string): Uint32Array | null {
  const b = foldNeedle(key);
  if (b.length < 3) return null;
  const out = new Uint32Array(b.length - 2);
  for (let i = 0; i + 2 < b.length; i++) out[i] = posOf((b[i] << 16) | (b[i + 1] << 8) | b[i + 2]);
  return out;
}

/** the most positions of one needle tested (a long pasted token's: its SQL stays small) */
const PROBES = 32;

/** for each bit b, the bytes that have it, as an SQL blob */
const WITH_BIT = Array.from({ length: 8 }, (_, b) => {
  const bytes = Array.from({ length: 256 }, (_, x) => x).filter((x) => x & (1 << b));
  return `X'${Buffer.from(bytes).toString('hex')}'`;
});

/**
 * A position's test as SQL: the filter's byte for it holds its bit. A filter of width w bits holds
 * position p at bit p mod w; w is a power of two of at least 2^11, so that is byte
 * (p >> 3) mod (w / 8), bit p mod 8, in a filter of any width.
 */
function bitTest(p: number): string {
  return `instr(${WITH_BIT[p & 7]}, substr(bloom, (${p >>> 3} & (length(bloom) - 1)) + 1, 1))`;
}

/** A filter this index writes (a damaged row's, of another width, rules nothing out), as SQL. */
const MADE = `length(bloom) BETWEEN ${MIN_BITS / 8} AND ${MAX_BITS / 8} AND (length(bloom) & (length(bloom) - 1)) = 0`;

/** The stored signatures a search consults: each file's, when it is current. */
export class Signatures {
  /** per term, its needles' probes (a null probe: the term may be anywhere) */
  private readonly probes: (Uint32Array | null)[][];
  private readonly full: number;
  /** each file's mask, once asked (a file is asked about by the group filter, then by the scan) */
  private readonly masks = new Map<string, number>();
  /** files asked about that had no current signature (read in full) */
  unsigned = 0;

  constructor(
    private readonly rows: Map<string, Stored>,
    termNeedles: string[][],
  ) {
    this.probes = termNeedles.map((ns) => ns.map(needleProbe));
    this.full = allTerms(termNeedles.length);
  }

  /**
   * Every stored signature (none when the table is empty: no file has one yet). `known`: the files'
   * stats as the listing's check just took them (those are not taken again).
   */
  static load(db: Db, termNeedles: string[][], known?: Map<string, FileStat>): Signatures {
    return Signatures.loadWhere(db, termNeedles, known, '', []);
  }

  /**
   * The stored signatures of `files` only (a search from the group map, groupmap.ts), each taken as
   * current when it is of a session file (`main`: the map was made when they all were, for the
   * listing being searched); a child's is checked against the file as it is now.
   */
  static loadSome(db: Db, termNeedles: string[][], files: string[], main: (file: string) => boolean): Signatures {
    const known = new Map<string, FileStat>();
    const sigs = Signatures.loadWhere(db, termNeedles, known, ' WHERE path IN (SELECT value FROM json_each(?))', [JSON.stringify(files)]);
    for (const [f, r] of sigs.rows) if (main(f)) known.set(f, r);
    return sigs;
  }

  private static loadWhere(
    db: Db,
    termNeedles: string[][],
    known: Map<string, FileStat> | undefined,
    where: string,
    args: unknown[],
  ): Signatures {
    const rows = new Map<string, Stored>();
    const sigs = new Signatures(rows, termNeedles);
    if (known) sigs.known = known;
    // (rows as arrays, and no head, tail or filter: 22,000 of them are read for every search)
    const q = db.prepare(`SELECT path, size, mtime, ino, ${sigs.heldSql()}, poff IS NOT NULL FROM sigs${where}`).raw();
    for (const r of q.iterate(...args) as Iterable<[string, number, number, number, number, number]>) {
      rows.set(r[0], { size: r[1], mtime: r[2], ino: r[3], held: r[4], pieces: r[5] === 1 });
    }
    return sigs;
  }

  /**
   * The terms a row's filter (`bloom`) lets through (bit i: term i), as SQL: a needle can be in the
   * file when every one of its positions is set, a term when one of its needles can. Asked of SQLite
   * rather than of each filter copied out: at 22,000 files that was 41 MB of buffers a search, ~50 ms
   * of a reload and ~30 MB of its peak.
   */
  private heldSql(): string {
    const terms: string[] = [];
    for (let i = 0; i < this.probes.length && i < 31; i++) {
      const test = this.probeSql(i);
      terms.push(test === null ? String(1 << i) : `(CASE WHEN ${test} THEN ${1 << i} ELSE 0 END)`);
    }
    if (terms.length === 0) return '0';
    return `CASE WHEN ${MADE} THEN ${terms.join(' | ')} ELSE ${this.full} END`;
  }

  /** Whether a row's filter lets term `i` through, as SQL (the term of heldSql's bit i, alone). */
  termSql(i: number): string {
    const test = this.probeSql(i);
    // (each test in a WHEN, where SQLite stops at the first position not set: as a value, `a AND b`
    // was evaluated whole, 2.5x slower over 22,000 filters)
    return test === null ? '1' : `(CASE WHEN NOT (${MADE}) THEN 1 WHEN ${test} THEN 1 ELSE 0 END)`;
  }

  /** Term `i`'s test of a well-made filter: one of its needles has every position set (null: any file may hold it). */
  private probeSql(i: number): string | null {
    const ns = this.probes[i];
    if (ns.some((p) => p === null)) return null;
    // (at most PROBES positions of a needle: fewer only lets more files through, never fewer)
    return `(${ns.map((p) => `(${[...new Set(p as Uint32Array)].slice(0, PROBES).map(bitTest).join(' AND ')})`).join(' OR ')})`;
  }

  /** the size of every file with a signature, as signed (the order a scan takes files in) */
  sizes(): Map<string, number> {
    return new Map([...this.rows].map(([f, r]) => [f, r.size]));
  }

  /** files' stats taken a moment ago (by the listing's check) */
  private known: Map<string, FileStat> | null = null;

  /** each file's signature when current (null: it has none, or one of what it was), once looked at */
  private readonly now = new Map<string, Stored | null>();

  /** The file's signature when it is of the file as it is now, else null (it must be read). */
  current(file: string): Stored | null {
    const known = this.now.get(file);
    if (known !== undefined) return known;
    const r = this.rows.get(file);
    let cur: Stored | null = null;
    if (r) {
      try {
        if (sameFile(this.known?.get(file) ?? statOf(file), r)) cur = r;
      } catch {
        /* gone: read (and counted unreadable) */
      }
    }
    this.now.set(file, cur);
    return cur;
  }

  /** The file's pieces are in the index, of the file as it is now (pieces.ts). */
  hasPieces(file: string): boolean {
    return this.current(file)?.pieces === true;
  }

  /** The files of `files` without a current signature, and about how many bytes making theirs would read. */
  stale(files: string[]): { files: string[]; bytes: number } {
    const out: string[] = [];
    let bytes = 0;
    for (const f of files) {
      if (this.current(f)) continue;
      out.push(f);
      const r = this.rows.get(f);
      try {
        const size = fs.statSync(f).size;
        bytes += r && size >= r.size ? size - r.size : size;
      } catch {
        /* gone */
      }
    }
    return { files: out, bytes };
  }

  /** The terms the file may hold (bit i: term i), every term when its signature is not current. */
  mask(file: string): number {
    let m = this.masks.get(file);
    if (m !== undefined) return m;
    const r = this.current(file);
    m = r ? r.held : this.full;
    if (!r) this.unsigned++;
    this.masks.set(file, m);
    return m;
  }

  /** The bytes of the file when no term can be in it (its signature current), else undefined. */
  clean(file: string): number | undefined {
    const r = this.rows.get(file);
    return r && this.mask(file) === 0 ? r.size : undefined;
  }
}
