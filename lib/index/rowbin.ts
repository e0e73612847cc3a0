// rows.bin: the rows `resume rows` prints, rendered when the listing is built, so a no-change run
// copies bytes instead of reading every session from the database and formatting it again. Only the age column
// (it depends on the time of the run) is computed per run, and a Claude session without a title
// takes its snapshot name (lib/app.ts withSnapshotNames) at print time, as the other paths do.
//
// Layout: a header line `v<version> <build id> <count> <home>\n` (UTF-8; the home the directories
// were shortened against), then one record per session, newest first:
//   u8 flags (1: hidden, 2: a Claude session without a title, 4: no directory, 8: the directory
//   shortened to `~`, 16: the directory field is the directory exactly, `~` aside: nothing in it
//   was made one line), u8 harness (index in HARNESSES), f64 LE time (updated, else started; NaN
//   when unknown), u32 LE lengths of A, B, L and I, u8 why it is hidden (index in REASONS, 255: a
//   reason not there), u32 LE prompt count, then the bytes of A (`key\tshort`), B
//   (`harness\tdir\tbranch\t`), L (the label) and I (the id: only for flag 2).
// A row is A \t age \t B L \n — exactly what lib/output.ts `row` gives (it renders the parts here).
// `resume ls` prints from the same records (lsRows): flags 4 and 8 give the directory back whole,
// and flag 16 says a directory filter (`--dir`) can be applied to it (dirFilterable).
// The file is read only when its build id is the one check.bin matched; anything malformed is
// ignored (the caller reads the database instead), never trusted in part.

import { isAscii } from 'node:buffer';
import fs from 'node:fs';
import {
  ALIGN_CAPS,
  alignLineAt,
  CANDIDATE_BRANCH,
  CANDIDATE_DIR,
  CANDIDATE_WIDTH,
  type CandidateColumns,
  candidate,
  candidateParts,
  DIM,
  harnessColor,
  type LsRow,
  RESET,
  row,
} from '../output.js';
import { under } from '../select/filter.js';
import { HARNESSES, type Harness, type Session } from '../types.js';
import { LITTLE_ENDIAN, openKept, readFully } from '../util/fsx.js';
import { tildify } from '../util/paths.js';
import { byBytes, oneLine, width } from '../util/text.js';
import { age, ageCode, ageText } from '../util/time.js';
import type { RowsTape } from './rowsout.js';

export const ROWBIN_VERSION = 3;

const HIDDEN = 1;
const UNTITLED = 2;
const NO_DIR = 4;
const TILDE = 8;
const EXACT_DIR = 16;
/** bytes before a record's fields: flags, harness, time, four lengths, reason, prompts */
export const FIXED = 2 + 8 + 16 + 1 + 4;
/** the hidden reasons a record can name (index 0: not hidden or no reason); OTHER: one not here */
const REASONS = [null, 'subagent', 'headless', 'sdk', 'exec', 'mcp', 'empty', 'archived'] as const;
const OTHER = 255;

export type Listed = Pick<
  Session,
  'key' | 'id' | 'harness' | 'cwd' | 'title' | 'firstPrompt' | 'branch' | 'started' | 'updated' | 'hidden' | 'hiddenReason' | 'prompts'
>;

/** The rule of withSnapshotNames: these take a snapshot name when one is stored. */
export function untitledClaude(s: Pick<Session, 'harness' | 'title' | 'firstPrompt'>): boolean {
  return s.harness === 'claude' && (!s.title || s.title === s.firstPrompt);
}

/** rows.bin's head line for a build of `count` sessions shortened against `home`. */
export function rowBinHead(id: string, home: string, count: number): Buffer {
  return Buffer.from(`v${ROWBIN_VERSION} ${id} ${count} ${home}\n`, 'utf8');
}

/**
 * The file for these sessions (listing rows with their short ids), or null when a row cannot be
 * stored this way (an id with a line break or tab).
 */
export function rowBinChunks(id: string, home: string, sessions: { s: Listed; short: string }[]): Buffer[] | null {
  const recs: Buffer[] = [];
  for (const { s, short } of sessions) {
    const r = rowRecord(s, short, home);
    if (!r) return null;
    recs.push(r);
  }
  return [rowBinHead(id, home, recs.length), ...recs];
}

/** One session's record of rows.bin (the layout at the top); null when its row cannot be stored so. */
export function rowRecord(s: Listed, short: string, home: string): Buffer | null {
  const parts = row(s, short, home, 0).split('\t');
  if (parts.length !== 7) return null;
  const h = HARNESSES.indexOf(s.harness);
  if (h < 0) return null;
  const untitled = untitledClaude(s);
  if (untitled && /[\t\n\r]/.test(s.id)) return null;
  const a = `${parts[0]}\t${parts[1]}`;
  const b = `${parts[3]}\t${parts[4]}\t${parts[5]}\t`;
  const l = parts[6];
  const i = untitled ? s.id : '';
  const out = Buffer.allocUnsafe(FIXED + (a.length + b.length + l.length + i.length) * 3);
  let o = 0;
  const shown = s.cwd ? tildify(s.cwd, home) : '';
  const dir = s.cwd ? (shown !== s.cwd ? TILDE : 0) | (parts[4] === shown ? EXACT_DIR : 0) : NO_DIR;
  out[0] = (s.hidden ? HIDDEN : 0) | (untitled ? UNTITLED : 0) | dir;
  out[1] = h;
  out.writeDoubleLE(s.updated ?? s.started ?? NaN, 2);
  const reason = REASONS.indexOf(s.hiddenReason as (typeof REASONS)[number]);
  out[26] = reason < 0 ? OTHER : reason;
  out.writeUInt32LE(Number.isInteger(s.prompts) && s.prompts >= 0 && s.prompts <= 0xffffffff ? s.prompts : 0, 27);
  o += FIXED;
  const la = out.write(a, o, 'utf8');
  o += la;
  const lb = out.write(b, o, 'utf8');
  o += lb;
  const ll = out.write(l, o, 'utf8');
  o += ll;
  const li = out.write(i, o, 'utf8');
  o += li;
  out.writeUInt32LE(la, 10);
  out.writeUInt32LE(lb, 14);
  out.writeUInt32LE(ll, 18);
  out.writeUInt32LE(li, 22);
  return out.subarray(0, o);
}

/** A read rows.bin: the build it belongs to and its records (validated, not yet printed). */
export interface RowBin {
  id: string;
  home: string;
  count: number;
  /** the file's bytes (one opened by openRowBin reads them whole the first time this is asked) */
  readonly buf: Buffer;
  /** offset of each record */
  at: Uint32Array;
  /** the open file its records are read from a window at a time (openRowBin), until `buf` is asked for */
  win?: Win;
}

/** Parse and check the whole file; null when it is not a complete file of this version. */
export function readRowBin(buf: Buffer): RowBin | null {
  const nl = buf.indexOf(10);
  const h = headOf(buf, nl, buf.length);
  if (!h) return null;
  const { count } = h;
  const at = new Uint32Array(count);
  let p = nl + 1;
  for (let k = 0; k < count; k++) {
    if (p + FIXED > buf.length || buf[p + 1] >= HARNESSES.length) return null;
    at[k] = p;
    p += recordLength(buf, p);
  }
  if (p !== buf.length) return null;
  return { id: h.id, home: h.home, count, buf, at };
}

/** The header line (bytes [0, nl) of `buf`, the first `len` of them read): build id, count, home; null when it is not one of this version. */
function headOf(buf: Buffer, nl: number, len: number): { id: string; count: number; home: string } | null {
  if (nl <= 0 || nl > 8192 || nl >= len) return null;
  const m = /^v(\d+) (\S+) (\d+) (.*)$/s.exec(buf.toString('utf8', 0, nl));
  if (!m || Number(m[1]) !== ROWBIN_VERSION) return null;
  return { id: m[2], count: Number(m[3]), home: m[4] };
}

/**
 * A part of an open rows.bin in memory: bytes [from, from + len) of the file. The no-change listing
 * reads its records through one of these (256 KiB, reused) rather than the whole file: at 22,000
 * sessions rows.bin is 4.9 MB, and the first touch of that much fresh memory cost more here (~13 ms
 * of page faults) than reading the file twice through a window that stays in place.
 */
interface Win {
  fd: number;
  size: number;
  buf: Buffer;
  u8: Uint8Array;
  from: number;
  len: number;
  /** the whole file, once something asked for `buf` (the window is then no longer used) */
  whole: Buffer | null;
}

let WINDOW = 256 << 10;

/** For tests: the window's size (small ones put records across its edges). */
export function setRowBinWindow(bytes = 256 << 10): void {
  WINDOW = bytes;
}
/** open windows whose RowBin was dropped without closeRowBin: their file is closed when it is collected */
const unclosed = new FinalizationRegistry<number>((fd) => {
  try {
    fs.closeSync(fd);
  } catch {
    /* closed already */
  }
});

/** Bytes [p, end) of the file into the window (from p on, as much as the window holds). */
function fill(w: Win, p: number, end: number): void {
  const want = Math.min(Math.max(WINDOW, end - p), w.size - p);
  if (w.buf.length < want) {
    w.buf = Buffer.allocUnsafe(want);
    w.u8 = new Uint8Array(w.buf.buffer, w.buf.byteOffset, w.buf.length);
  }
  const n = readFully(w.fd, w.buf, 0, want, p);
  // rows.bin is only ever replaced (a new file), so an open one never shrinks: this is damage
  if (n < end - p) throw new Error('rows.bin was cut short while it was read');
  w.from = p;
  w.len = n;
}

/**
 * Open rows.bin and check it as readRowBin does, reading it through a window; its records are then
 * read through the same window (in order, each part of the file is read once more). Null when it is
 * missing or not a complete file of this version. The file stays open until closeRowBin (or the
 * RowBin is collected): a rows.bin written meanwhile replaces the name, never these bytes.
 */
export function openRowBin(file: string): RowBin | null {
  return openKept(file, (fd, size) => {
    const buf = Buffer.allocUnsafe(Math.min(WINDOW, Math.max(size, 1)));
    const w: Win = { fd, size, buf, u8: new Uint8Array(buf.buffer, buf.byteOffset, buf.length), from: 0, len: 0, whole: null };
    fill(w, 0, Math.min(size, 8193));
    const nl = w.buf.indexOf(10);
    const h = headOf(w.buf, nl, w.len);
    if (!h) return null;
    const { count } = h;
    // a count the file cannot hold is damage (and must not size the offsets)
    if (count * FIXED > size) return null;
    const at = new Uint32Array(count);
    let p = nl + 1;
    for (let k = 0; k < count; k++) {
      if (p + FIXED > size) return null;
      if (p + FIXED > w.from + w.len) fill(w, p, p + FIXED);
      const q = p - w.from;
      if (w.u8[q + 1] >= HARNESSES.length) return null;
      at[k] = p;
      p += recordLength(w.u8, q);
    }
    if (p !== size) return null;
    const r: RowBin = {
      id: h.id,
      home: h.home,
      count,
      at,
      win: w,
      get buf() {
        if (!w.whole) {
          const whole = Buffer.allocUnsafe(size);
          if (readFully(w.fd, whole, 0, size, 0) < size) throw new Error('rows.bin was cut short while it was read');
          w.whole = whole;
        }
        return w.whole;
      },
    };
    unclosed.register(r, fd, r);
    return r;
  });
}

/** Close the file an opened RowBin reads from (its records can no longer be read unless `buf` was asked for). */
export function closeRowBin(r: RowBin): void {
  if (!r.win || r.win.fd < 0) return;
  unclosed.unregister(r);
  try {
    fs.closeSync(r.win.fd);
  } catch {
    /* closed already */
  }
  r.win.fd = -1;
}

/** The length of the record at `q` of `buf` (its fixed part and four fields), from its header. */
export function recordLength(buf: Uint8Array, q: number): number {
  return FIXED + u32(buf, q + 10) + u32(buf, q + 14) + u32(buf, q + 18) + u32(buf, q + 22);
}

/** A little-endian u32, read byte by byte (readUInt32LE checks its bounds on every call). */
function u32(buf: Uint8Array, q: number): number {
  return (buf[q] | (buf[q + 1] << 8) | (buf[q + 2] << 16)) + buf[q + 3] * 0x1000000;
}

/**
 * Where a record's parts lie: its buffer (and a plain Uint8Array view of it: a view of that is made
 * without running Buffer's constructor, and copies faster while the code is cold), its start and
 * flags, and the ends of A (`b`), B (`l`) and L (`e`) with the length of I. One object, filled by
 * `locate` and good until its next call: the loops over 22,000 records make no object per record.
 */
export interface Rec {
  buf: Buffer;
  u8: Uint8Array;
  p: number;
  flags: number;
  a: number;
  b: number;
  l: number;
  e: number;
  li: number;
}
const REC: Rec = { buf: Buffer.alloc(0), u8: new Uint8Array(0), p: 0, flags: 0, a: 0, b: 0, l: 0, e: 0, li: 0 };
/** the plain views of the last RowBin located whole */
let viewed: { r: RowBin; buf: Uint8Array } | null = null;
const plainView = (b: Buffer) => new Uint8Array(b.buffer, b.byteOffset, b.length);

/** How to read a RowBin's records (into REC), taken once before a loop. */
export function locator(_r: RowBin): (r: RowBin, k: number) => Rec {
  return locate;
}

/** Record `k` of `r` into REC: through its window, or of a RowBin held whole. */
export function locate(r: RowBin, k: number): Rec {
  const w = r.win;
  if (w && !w.whole) {
    const p = r.at[k];
    const end = k + 1 < r.count ? r.at[k + 1] : w.size;
    if (p < w.from || end > w.from + w.len) fill(w, p, end);
    return fillRec(w.buf, w.u8, p - w.from);
  }
  return locateWhole(r, k);
}

/** Record `k` of a RowBin held whole (read at once, or asked for its `buf`). */
function locateWhole(r: RowBin, k: number): Rec {
  if (viewed?.r !== r) viewed = { r, buf: plainView(r.buf) };
  return fillRec(r.buf, viewed.buf, r.at[k]);
}

function fillRec(buf: Buffer, u8: Uint8Array, p: number): Rec {
  REC.buf = buf;
  REC.u8 = u8;
  REC.p = p;
  REC.flags = u8[p];
  REC.a = p + FIXED;
  REC.b = REC.a + u32(u8, p + 10);
  REC.l = REC.b + u32(u8, p + 14);
  REC.e = REC.l + u32(u8, p + 18);
  REC.li = u32(u8, p + 22);
  return REC;
}

/** The age of a time as text, each text made once (the rows of a listing share a few dozen). */
function agesAt(now: number): (t: number | null) => string {
  const made = new Map<number, string>();
  return (t) => {
    const code = ageCode(t, now);
    let a = made.get(code);
    if (a === undefined) {
      a = ageText(code);
      made.set(code, a);
    }
    return a;
  };
}

/** A record's time (updated, else started), null when unknown. */
function timeOf(rec: Rec): number | null {
  // the 8 bytes through a Float64Array (Buffer#readDoubleLE checks its offset through a wrapper that
  // makes an array each call); little-endian, as rows.bin is written, on a little-endian machine
  const u8 = rec.u8;
  const p = rec.p + 2;
  if (LITTLE_ENDIAN) for (let i = 0; i < 8; i++) D8[i] = u8[p + i];
  else for (let i = 0; i < 8; i++) D8[7 - i] = u8[p + i];
  const t = D64[0];
  return Number.isNaN(t) ? null : t;
}
const D64 = new Float64Array(1);
const D8 = new Uint8Array(D64.buffer);

/**
 * A record as the fields of its row (key, short id, age, harness, directory, branch, label), the
 * label a snapshot name when it takes one. A, and B with the label, are each decoded once.
 */
function fieldsOf(rec: Rec, ag: string, label: string | null): string[] {
  const { buf, a, b, l, e } = rec;
  const [key = '', short = ''] = buf.toString('utf8', a, b).split('\t');
  const [harness = '', dir = '', branch = '', text = ''] = buf.toString('utf8', b, label == null ? e : l).split('\t');
  return [key, short, ag, harness, dir, branch, label ?? text];
}

/**
 * Output in blocks of about 64 KiB handed to `write`, so fzf sees the first screen at once; `write`
 * must be done with each block when it returns (the buffer is written over for the next).
 */
function blockWriter(write: (b: Buffer) => void) {
  const BLOCK = 65536;
  let out = Buffer.allocUnsafe(BLOCK * 2);
  let o = 0;
  /** bytes handed to `write` so far */
  let written = 0;
  const flush = () => {
    if (o > 0) write(out.subarray(0, o));
    written += o;
    o = 0;
  };
  const room = (k: number) => {
    if (o + k > out.length) {
      flush();
      if (k > out.length) out = Buffer.allocUnsafe(k);
    }
  };
  return {
    /**
     * bytes [s, e) of a plain view (TypedArray#set: several times faster than Buffer#copy while
     * cold). Short runs too: a view per run costs less than a byte loop, which runs in the
     * interpreter in a listing of a few hundred rows (~3 ms of 686 rows, paired task-clock).
     */
    put(src: Uint8Array, s: number, e: number) {
      room(e - s);
      out.set(src.subarray(s, e), o);
      o += e - s;
    },
    byte(c: number) {
      room(1);
      out[o++] = c;
    },
    putStr(x: string) {
      room(x.length * 3);
      // the short ASCII strings of every row (the age, tabs) byte by byte: Buffer#write checks its
      // arguments through a wrapper that makes an array each call (most of a listing's garbage)
      const n = x.length;
      if (n <= 16) {
        let i = 0;
        for (; i < n; i++) {
          const c = x.charCodeAt(i);
          if (c > 127) break;
          out[o + i] = c;
        }
        if (i === n) {
          o += n;
          return;
        }
      }
      o += out.write(x, o, 'utf8');
    },
    /** at most `room` of the `n` bytes at `s` of a plain view; what is left of `room` */
    clipped(src: Uint8Array, s: number, n: number, left: number): number {
      const k = Math.min(n, left);
      if (k <= 0) return left;
      room(k);
      out.set(src.subarray(s, s + k), o);
      o += k;
      return left - k;
    },
    spaces(k: number) {
      if (k <= 0) return;
      room(k);
      out.fill(32, o, o + k);
      o += k;
    },
    /** how many bytes were put so far */
    pos() {
      return written + o;
    },
    /** at the end of a line: a full block goes out */
    endLine() {
      if (o >= BLOCK) flush();
    },
    flush,
  };
}

type BlockWriter = ReturnType<typeof blockWriter>;

export interface RowFilter {
  all?: boolean;
  harness?: Harness[];
  /** only sessions in this directory or below: for rows that can tell (dirFilterable) */
  dir?: string;
}

/**
 * Can a directory filter be applied to these rows? Each record's directory must be the session's
 * own once `~` is put back: the home one clean line, and no directory made one line (a control
 * character or a run of spaces in it). When not, the listing serves a directory filter.
 */
export function dirFilterable(r: RowBin): boolean {
  if (oneLine(r.home) !== r.home) return false;
  const loc = locator(r);
  for (let k = 0; k < r.count; k++) if (!(loc(r, k).flags & (NO_DIR | EXACT_DIR))) return false;
  return true;
}

/** A record's directory as the session has it (its flags, and its directory field as the row shows it). */
function cwdOf(flags: number, dir: string, home: string): string | null {
  return flags & NO_DIR ? null : flags & TILDE ? home + dir.slice(1) : dir;
}

/** The harness codes a harness filter keeps (null: every harness). */
function harnessCodes(f: { harness?: Harness[] | null }): Set<number> | null {
  return f.harness ? new Set(f.harness.map((h) => HARNESSES.indexOf(h))) : null;
}

/** Does a record pass a harness filter (`want`: harnessCodes) and a directory filter (on rows that can tell: dirFilterable)? */
function inScope(rec: Rec, want: Set<number> | null, dir: string | null | undefined, home: string): boolean {
  return (!want || want.has(rec.u8[rec.p + 1])) && (!dir || under(cwdOf(rec.flags, dirField(rec.buf, rec.b), home), dir));
}

/** The directory field of the record whose B part starts at `b` (`harness\tdir\tbranch\t`). */
function dirField(buf: Buffer, b: number): string {
  const t1 = buf.indexOf(9, b);
  return buf.toString('utf8', t1 + 1, buf.indexOf(9, t1 + 1));
}

/** Where and for when the records are printed (printRowBin, printAligned, printCandidates). */
export interface PrintTo {
  /** the snapshot names by session id, read the first time an untitled Claude row is printed */
  readNames: () => Record<string, string>;
  /** the time the ages are told from */
  now: number;
  /** takes the output in blocks, so fzf sees the first screen at once; done with each block when it returns (the buffer is written over for the next) */
  write: (b: Buffer) => void;
  /** records what is written for a kept file (lib/index/rowsout.ts) */
  tape?: RowsTape;
}

/** `to.write`, with each block recorded on the tape first when there is one. */
function teed(to: PrintTo): (b: Buffer) => void {
  const { write, tape } = to;
  if (!tape) return write;
  return (b) => {
    tape.block(b);
    write(b);
  };
}

/** Print the rows that pass the filter (a directory filter only on rows that can tell: dirFilterable). */
export function printRowBin(r: RowBin, f: RowFilter, to: PrintTo): void {
  const { tape } = to;
  const nameOf = snapshotNames(to.readNames);
  const ages = agesAt(to.now);
  const want = harnessCodes(f);
  const out = blockWriter(teed(to));
  const loc = locator(r);
  for (let k = 0; k < r.count; k++) {
    const rec = loc(r, k);
    if ((!f.all && rec.flags & HIDDEN) || !inScope(rec, want, f.dir, r.home)) continue;
    putRow(out, rec, ages, nameOf, tape);
  }
  out.flush();
}

/** A record's row as printRowBin prints it (its age's place told to the tape). */
function putRow(
  out: BlockWriter,
  rec: Rec,
  ages: (t: number | null) => string,
  nameOf: ReturnType<typeof snapshotNames>,
  tape?: RowsTape,
): void {
  const { buf, u8, flags, a, b, l, e } = rec;
  out.put(u8, a, b);
  out.byte(9);
  if (tape) {
    // (rows.out: where this age lies and what it tells)
    const t = timeOf(rec);
    const at = out.pos();
    out.putStr(ages(t));
    tape.age(at, out.pos(), t);
  } else out.putStr(ages(timeOf(rec)));
  out.byte(9);
  const named = nameOf(buf, flags, e, rec.li);
  // the fields after the age and the label are one run of bytes unless a snapshot name replaces the label
  if (named == null) out.put(u8, b, e);
  else {
    out.put(u8, b, l);
    out.putStr(named);
  }
  out.putStr('\n');
  out.endLine();
}

/**
 * The records of `old` with those of `keys` taken out and `now` (sorted as allRecords sorts: time
 * newest first, then id) put in where they sort, as the parts of a file and the number of records;
 * `idOf` gives an old record's id when its time ties with one put in. The records kept are runs of
 * `old`'s buffer, not copies (most of a file is one or two runs).
 */
export function mergeRecords(
  old: RowBin,
  keys: Set<string>,
  now: { rec: Buffer; at: number; id: string }[],
  idOf: (key: string) => string | null,
): { parts: Buffer[]; count: number } | null {
  const parts: Buffer[] = [];
  const { buf, count } = old;
  const out = recordsOf(old, keys);
  let n = 0;
  // the start of the run of kept records not yet in `parts` (-1: none)
  let run = -1;
  const flush = (k: number) => {
    if (run >= 0) parts.push(buf.subarray(run, k < count ? old.at[k] : buf.length));
    run = -1;
  };
  let j = 0;
  for (let k = 0; k < count; k++) {
    const p = old.at[k];
    if (out.has(k)) {
      flush(k);
      continue;
    }
    if (j < now.length) {
      const time = buf.readDoubleLE(p + 2);
      // (an unknown time is NaN here and 0 in the database's order)
      const to = sortedUpTo(now, j, Number.isNaN(time) ? 0 : time, () => idOf(keyAt(buf, p)));
      if (to < 0) return null;
      if (to > j) flush(k);
      for (; j < to; j++, n++) parts.push(now[j].rec);
    }
    if (run < 0) run = p;
    n++;
  }
  flush(count);
  for (; j < now.length; j++, n++) parts.push(now[j].rec);
  return { parts, count: n };
}

/** up to this many keys, mergeRecords finds each one's record by searching the file's bytes for it */
const FEW_KEYS = 8;

/**
 * The indexes of the records of `keys` in `old`. A few keys (an append: one) are searched for in
 * the bytes, each found where a record's A starts (`key\t`): at 22,000 sessions that is ~0.3 ms a
 * key, where reading every record's key was ~6 ms and 22,000 strings for the collector.
 */
function recordsOf(old: RowBin, keys: Set<string>): Set<number> {
  const out = new Set<number>();
  const { buf, at, count } = old;
  if (keys.size <= FEW_KEYS) {
    for (const key of keys) {
      const needle = Buffer.from(`${key}\t`, 'utf8');
      for (let q = buf.indexOf(needle); q >= 0; q = buf.indexOf(needle, q + 1)) {
        const k = recordStarting(at, q - FIXED);
        if (k < 0) continue;
        out.add(k);
        break;
      }
    }
    return out;
  }
  // (keys compared as their bytes read as latin1: no UTF-8 decoding of 22,000 of them)
  const raw = new Set([...keys].map((k) => Buffer.from(k, 'utf8').toString('latin1')));
  for (let k = 0; k < count; k++) if (raw.has(keyAt(buf, at[k], 'latin1'))) out.add(k);
  return out;
}

/** The index of the record that starts at `p` (a binary search of `at`), or -1. */
function recordStarting(at: Uint32Array, p: number): number {
  let lo = 0;
  let hi = at.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >>> 1;
    if (at[mid] === p) return mid;
    if (at[mid] < p) lo = mid + 1;
    else hi = mid - 1;
  }
  return -1;
}

/** The key of the record at `p`: A up to its tab. */
function keyAt(buf: Buffer, p: number, enc: BufferEncoding = 'utf8'): string {
  const a = p + FIXED;
  const b = a + u32(buf, p + 10);
  const t = buf.indexOf(9, a);
  return buf.toString(enc, a, t >= 0 && t < b ? t : b);
}

/**
 * Where, from `j` on, the records of `now` stop sorting before an old record of time `at` (`idOf`:
 * its id, asked on a tie); -1 when that id is not known.
 */
function sortedUpTo(now: { at: number; id: string }[], j: number, at: number, idOf: () => string | null): number {
  let i = j;
  for (; i < now.length && now[i].at >= at; i++) {
    if (now[i].at !== at) continue;
    const id = idOf();
    if (id === null) return -1;
    if (byBytes(now[i].id, id) > 0) break;
  }
  return i;
}

/**
 * The label a record takes from the snapshot names instead of its own (a Claude session without a
 * title, flag 2: its id is the `len` bytes at `at`), as a row field; null when it takes none. The
 * names are read the first time one is needed.
 */
function snapshotNames(readNames: () => Record<string, string>): (buf: Buffer, flags: number, at: number, len: number) => string | null {
  let names: Record<string, string> | null = null;
  return (buf, flags, at, len) => {
    if (!(flags & UNTITLED) || len === 0) return null;
    names ??= readNames();
    const name = names[buf.toString('utf8', at, at + len)];
    return (name && oneLine(oneLine(name)).replace(/\t/g, ' ')) || null;
  };
}

/** A record of rows.bin as the row's fields, with what filters it. */
export interface BinRow {
  /** key, short id, age, harness, directory, branch, label: `resume rows` split at its tabs */
  fields: string[];
  hidden: boolean;
  harness: Harness;
  /** the session's directory, `~` put back (what a directory filter compares: see dirFilterable) */
  cwd: string | null;
}

/**
 * Every record as the fields of the row printRowBin prints for it (the same age and snapshot names),
 * in order: for the picker, which pads the columns and counts what a filter hides.
 */
export function eachRow(r: RowBin, readNames: () => Record<string, string>, now: number, cb: (row: BinRow) => void): void {
  const nameOf = snapshotNames(readNames);
  const loc = locator(r);
  for (let k = 0; k < r.count; k++) {
    const rec = loc(r, k);
    const fields = fieldsOf(rec, age(timeOf(rec), now), nameOf(rec.buf, rec.flags, rec.e, rec.li));
    cb({ fields, hidden: !!(rec.flags & HIDDEN), harness: HARNESSES[rec.u8[rec.p + 1]], cwd: cwdOf(rec.flags, fields[4], r.home) });
  }
}

/**
 * The picker's lines (fzf/feed.ts linesOf: `head`, given the counts, then every row that passes the
 * filter aligned as alignRows aligns eachRow's fields), written from the records' bytes: a row
 * whose fields are ASCII is measured by its byte counts and copied out with its padding, without
 * making its fields into strings (at 22,000 rows those strings and their garbage were a third of
 * the picker's list). Any other row (non-ASCII fields, or a label that is empty or ends in a blank,
 * which alignLine would trim) goes through alignLine itself. A directory filter only on rows that
 * can tell (dirFilterable), as printRowBin.
 */
export function printAligned(r: RowBin, f: AlignFilter, to: AlignTo): void {
  const al = measureAligned(r, f, to);
  to.tape?.ageWidth(al.w[1]);
  const wr: AlignWriting = { out: blockWriter(teed(to)), painted: new Map(), color: to.color, tape: to.tape };
  wr.out.putStr(to.head(al.shown, al.hidden));
  for (let i = 0; i < al.shown; i++) {
    const fields = al.slow.get(i);
    if (fields) slowAligned(wr, al, i, fields);
    else plainAligned(wr, al, i);
  }
  wr.out.flush();
}

/** The filter printAligned takes (the picker's). */
export type AlignFilter = { all: boolean; harness?: Harness[] | null; dir?: string | null };

/** Where printAligned writes, and how: colour, and the line before the rows given the counts. */
export interface AlignTo extends PrintTo {
  color: boolean;
  head: (shown: number, hidden: number) => string;
}

/** printAligned's first pass: the rows shown, what each needs written, and the columns' widths. */
interface Aligned {
  r: RowBin;
  /** per shown row: its record */
  rows: Uint32Array;
  /** per shown row: the tab positions in A and B, from the record's A */
  tabs: Int32Array;
  ages: string[];
  labels: (string | null)[];
  /** (rows.out: each shown row's time, NaN when unknown; only with a tape) */
  times: Float64Array | null;
  /** rows made by alignLine: their fields as strings */
  slow: Map<number, string[]>;
  /** the width of each column alignLine pads (id, age, harness, directory, branch) */
  w: number[];
  shown: number;
  hidden: number;
}

/** What printAligned's second pass writes with (one object for the run). */
interface AlignWriting {
  out: BlockWriter;
  /** the harness names coloured, by name */
  painted: Map<string, string>;
  color: boolean;
  tape: RowsTape | undefined;
}

/** printAligned's first pass over the records (see Aligned). */
function measureAligned(r: RowBin, f: AlignFilter, to: AlignTo): Aligned {
  const nameOf = snapshotNames(to.readNames);
  const want = harnessCodes(f);
  const al: Aligned = {
    r,
    rows: new Uint32Array(r.count),
    tabs: new Int32Array(r.count * 4),
    ages: [],
    labels: [],
    times: to.tape ? new Float64Array(r.count) : null,
    slow: new Map(),
    w: [0, 0, 0, 0, 0],
    shown: 0,
    hidden: 0,
  };
  const { rows, ages, labels, times, slow, w } = al;
  const loc = locator(r);
  for (let k = 0; k < r.count; k++) {
    const rec = loc(r, k);
    const { buf, flags, e } = rec;
    if (!inScope(rec, want, f.dir, r.home)) continue;
    if (flags & HIDDEN && !f.all) {
      al.hidden++;
      continue;
    }
    const label = nameOf(buf, flags, e, rec.li);
    const t = timeOf(rec);
    const ag = age(t, to.now);
    const i = al.shown++;
    if (times) times[i] = t ?? NaN;
    rows[i] = k;
    ages.push(ag);
    labels.push(label);
    widen(w, 1, ag.length);
    if (!measurePlain(al, i, rec, label)) {
      const fields = fieldsOf(rec, ag, label);
      slow.set(i, fields);
      for (let c = 1; c <= 5; c++) if (c !== 2) widen(w, c - 1, width(fields[c]));
    }
  }
  return al;
}

/** Column i is at least `cw` wide (up to its cap: a wider cell is not counted, its line is pushed right). */
function widen(w: number[], i: number, cw: number): void {
  if (cw <= ALIGN_CAPS[i] && cw > w[i]) w[i] = cw;
}

/**
 * Can shown row i be copied from its record's bytes (ASCII, its tabs where a row has them, a label
 * alignLine would not trim)? Then its tabs are noted and its columns measured.
 */
function measurePlain(al: Aligned, i: number, rec: Rec, label: string | null): boolean {
  const { buf, u8, a, b, l, e } = rec;
  const t0 = buf.indexOf(9, a);
  const t1 = buf.indexOf(9, b);
  const t2 = buf.indexOf(9, t1 + 1);
  const t3 = buf.indexOf(9, t2 + 1);
  const last = label == null ? (e > l ? u8[e - 1] : 0) : label.length ? label.charCodeAt(label.length - 1) : 0;
  const plain = t0 >= 0 && t0 < b && t3 === l - 1 && isAscii(u8.subarray(a, label == null ? e : l)) && last > 32 && last < 127;
  if (!plain) return false;
  // from the record's start: a record read through a window lies elsewhere when it is read again
  const { tabs, w } = al;
  tabs[i * 4] = t0 - a;
  tabs[i * 4 + 1] = t1 - a;
  tabs[i * 4 + 2] = t2 - a;
  tabs[i * 4 + 3] = t3 - a;
  widen(w, 0, b - t0 - 1);
  widen(w, 2, t1 - b);
  widen(w, 3, t2 - t1 - 1);
  widen(w, 4, t3 - t2 - 1);
  return true;
}

/** (rows.out) shown row i's time */
function timeAt(al: Aligned, i: number): number | null {
  const t = al.times ? al.times[i] : NaN;
  return Number.isNaN(t) ? null : t;
}

/** Shown row i made by alignLine from its fields. */
function slowAligned(wr: AlignWriting, al: Aligned, i: number, fields: string[]): void {
  const { out, tape } = wr;
  const { line, age: at } = alignLineAt(fields, al.w, wr.color);
  if (tape) {
    // (rows.out: where alignLine put the age, in bytes; a line without one keeps its age until it changes)
    if (at) {
      const s0 = out.pos() + Buffer.byteLength(line.slice(0, at[0]));
      tape.age(s0, s0 + Buffer.byteLength(line.slice(at[0], at[1])), timeAt(al, i));
    } else tape.fixed(timeAt(al, i));
  }
  out.putStr(`${line}\n`);
  out.endLine();
}

/** Before the column after the first: the two spaces apart (`sep`: a column was put already); true. */
function apart(out: BlockWriter, sep: boolean): true {
  if (sep) out.putStr('  ');
  return true;
}

/** Shown row i copied from its record's bytes, each column alignLine keeps padded to its width. */
function plainAligned(wr: AlignWriting, al: Aligned, i: number): void {
  const { out, tape, color } = wr;
  const { w, tabs } = al;
  const { buf, u8, a, b, l, e } = locate(al.r, al.rows[i]);
  const t0 = a + tabs[i * 4];
  const t1 = a + tabs[i * 4 + 1];
  const t2 = a + tabs[i * 4 + 2];
  const t3 = a + tabs[i * 4 + 3];
  const ag = al.ages[i];
  out.put(u8, a, t0 + 1);
  // each column alignLine keeps (a width above 0), two spaces after the one before
  let sep = false;
  if (w[0] > 0) {
    sep = apart(out, sep);
    out.put(u8, t0 + 1, b);
    out.spaces(w[0] - (b - t0 - 1));
  }
  if (w[1] > 0) {
    sep = apart(out, sep);
    const at = out.pos();
    out.putStr(color ? `${DIM}${ag}${RESET}` : ag);
    out.spaces(w[1] - ag.length);
    tape?.age(at, out.pos(), timeAt(al, i));
  } else tape?.fixed(timeAt(al, i));
  if (w[2] > 0) {
    sep = apart(out, sep);
    if (color) out.putStr(painted(wr, buf.toString('latin1', b, t1)));
    else out.put(u8, b, t1);
    out.spaces(w[2] - (t1 - b));
  }
  if (w[3] > 0) {
    sep = apart(out, sep);
    out.put(u8, t1 + 1, t2);
    out.spaces(w[3] - (t2 - t1 - 1));
  }
  if (w[4] > 0) {
    sep = apart(out, sep);
    out.put(u8, t2 + 1, t3);
    out.spaces(w[4] - (t3 - t2 - 1));
  }
  if (sep) out.putStr('  ');
  const label = al.labels[i];
  if (label == null) out.put(u8, l, e);
  else out.putStr(label);
  out.putStr('\n');
  out.endLine();
}

/** A harness name in its colour, each made once. */
function painted(wr: AlignWriting, h: string): string {
  let c = wr.painted.get(h);
  if (c === undefined) {
    c = harnessColor(h, true);
    wr.painted.set(h, c);
  }
  return c;
}

/** What `ls` shows (lsRows): the rows that pass its filter, and what its hidden count needs of the hidden ones. */
export interface LsPick {
  shown: LsRow[];
  hidden: Pick<LsRow, 'hidden' | 'harness' | 'cwd' | 'hiddenReason'>[];
}

/**
 * The records that pass the filter, at most `limit` of them (0: all), as what `resume ls` shows of
 * each (the values lib/output.ts lsRow takes from the listing: the directory whole again, the
 * snapshot names as printRowBin gives them), in order; and every hidden record for the count of
 * those left out. Null when the records cannot give these exactly: a home that is not already one
 * clean line (putting it back in front of a directory shortened to `~` would then differ from the
 * directory made one line), a hidden reason without a code here, or a directory filter on rows
 * that cannot tell (dirFilterable). The listing serves then.
 */
export function lsRows(r: RowBin, readNames: () => Record<string, string>, f: RowFilter = {}, limit = 0): LsPick | null {
  const { home } = r;
  if (oneLine(home) !== home || (f.dir && !dirFilterable(r))) return null;
  const nameOf = snapshotNames(readNames);
  const want = harnessCodes(f);
  const shown: LsRow[] = [];
  const hidden: LsPick['hidden'] = [];
  const loc = locator(r);
  for (let k = 0; k < r.count; k++) {
    const rec = loc(r, k);
    const { buf, u8, p, flags, b } = rec;
    const reason = u8[p + 26];
    if (reason >= REASONS.length) return null;
    const harness = HARNESSES[u8[p + 1]];
    // the directory, for a directory filter (the hidden count takes it too)
    const where = f.dir ? cwdOf(flags, dirField(buf, b), home) : null;
    if (flags & HIDDEN) hidden.push({ hidden: true, harness, cwd: where, hiddenReason: REASONS[reason] });
    if (
      (!f.all && flags & HIDDEN) ||
      (want && !want.has(u8[p + 1])) ||
      (f.dir && !under(where, f.dir)) ||
      (limit > 0 && shown.length >= limit)
    )
      continue;
    const [, short, , , dir, branch, label] = fieldsOf(rec, '', nameOf(buf, flags, rec.e, rec.li));
    shown.push({
      short,
      time: timeOf(rec),
      harness,
      cwd: cwdOf(flags, dir, home),
      branch: branch || null,
      prompts: u32(u8, p + 27),
      label,
      hidden: !!(flags & HIDDEN),
      hiddenReason: REASONS[reason],
    });
  }
  return { shown, hidden };
}

/**
 * The completion candidates of the records that pass the filter, one `candidate` (lib/output.ts)
 * of each row's fields (key, short id, age, harness, directory, branch, label) as
 * lib/commands/complete.ts candidateLines writes them (`<value>\t<description>` a line, the
 * descriptions' columns as wide as their widest part: candidateColumns), written from the records'
 * bytes: at 22,000 rows, making every row's fields into strings and a candidate of them was most
 * of a TAB. Two passes: the columns' widths, then the lines. A row whose bytes are ASCII with a
 * plain id and no snapshot name is copied out, its description clipped by bytes (one byte a
 * character); any other goes through `candidate` itself. False, with nothing written, where the
 * rows cannot tell: a directory filter the rows cannot tell (dirFilterable), a key with a space
 * among the rows shown (it may stand for a tab or line break of the id), or a word that starts no
 * shown id. `tape`: records what is written for complete.out (lib/index/rowsout.ts).
 */
export function printCandidates(r: RowBin, word: string, f: RowFilter, to: PrintTo): boolean {
  const picked = pickCandidates(r, word, f);
  if (!picked) return false;
  const nameOf = snapshotNames(to.readNames);
  const ages = agesAt(to.now);
  const c: CandRow = {
    out: blockWriter(teed(to)),
    word,
    tape: to.tape,
    rec: REC,
    t: null,
    ag: '',
    named: null,
    t0: 0,
    t1: 0,
    t2: 0,
    t3: 0,
    vs: 0,
    ve: 0,
    cols: [0, 0, 0],
  };
  const at = (i: number) => {
    const rec = locate(r, picked.rows[i]);
    c.rec = rec;
    c.t = timeOf(rec);
    c.ag = ages(c.t);
    c.named = nameOf(rec.buf, rec.flags, rec.e, rec.li);
  };
  // the columns' widths; the rows not copied from their bytes, as their parts
  const slow = new Map<number, SlowCandidate>();
  const w = c.cols;
  for (let i = 0; i < picked.shown; i++) {
    at(i);
    if (plainSpans(c)) {
      w[0] = Math.max(w[0], c.ag.length);
      w[1] = Math.max(w[1], c.t1 - c.rec.b);
      w[2] = Math.max(w[2], c.t2 - c.t1 - 1);
    } else {
      const sc = slowParts(c);
      slow.set(i, sc);
      for (let k = 0; k < 3; k++) w[k] = Math.max(w[k], width(sc.parts[k]));
    }
  }
  for (let i = 0; i < picked.shown; i++) {
    at(i);
    const sc = slow.get(i);
    if (sc) slowCandidate(c, sc);
    else {
      plainSpans(c);
      c.out.put(c.rec.u8, c.vs, c.ve);
      c.out.byte(9);
      describe(c);
    }
  }
  c.out.flush();
  return true;
}

/** A word lower-cased, and whether it is printable ASCII (startsLow). */
interface LowWord {
  low: string;
  ascii: boolean;
}

/** The records printCandidates shows, in order (`rows[0, shown)`); null where the rows cannot tell (see there). */
function pickCandidates(r: RowBin, word: string, f: RowFilter): { rows: Uint32Array; shown: number } | null {
  if (f.dir && !dirFilterable(r)) return null;
  const low = word.toLowerCase();
  if (word !== '' && !anyIdStarts(r, low)) return null;
  const lw: LowWord = { low, ascii: PRINTABLE.test(low) };
  const want = harnessCodes(f);
  const loc = locator(r);
  const rows = new Uint32Array(r.count);
  let shown = 0;
  for (let k = 0; k < r.count; k++) {
    const rec = loc(r, k);
    const { buf, u8, flags, a, b } = rec;
    if ((flags & HIDDEN && !f.all) || !inScope(rec, want, f.dir, r.home)) continue;
    let t0 = u8.indexOf(9, a);
    if (t0 < 0 || t0 > b) t0 = b;
    // (in the key's bytes alone: a row without a space after it would send an open search far)
    if (u8.subarray(a, t0).indexOf(32) >= 0) return null;
    if (word !== '' && !startsLow(u8, buf, idStart(u8, a, t0), t0, lw)) continue;
    rows[shown++] = k;
  }
  if (word !== '' && shown === 0) return null;
  return { rows, shown };
}

/**
 * The candidate row being written: one object for the whole run, its fields set for each row (no
 * object per row). `t0`-`t3`: the tabs after the key and in B; [vs, ve): the value's bytes.
 */
interface CandRow {
  out: BlockWriter;
  word: string;
  tape: RowsTape | undefined;
  rec: Rec;
  t: number | null;
  ag: string;
  named: string | null;
  t0: number;
  t1: number;
  t2: number;
  t3: number;
  vs: number;
  ve: number;
  /** the descriptions' columns (candidateColumns), found by the first pass */
  cols: CandidateColumns;
}

/** Find the row's tabs and value (into `c`); can it be copied from its bytes (see printCandidates)? */
function plainSpans(c: CandRow): boolean {
  const { u8, a, b, l, e } = c.rec;
  // (a plain view's indexOf: Buffer#indexOf checks its arguments through a wrapper that makes an array each call)
  const t0 = u8.indexOf(9, a);
  const t1 = u8.indexOf(9, b);
  const t2 = t1 < 0 ? -1 : u8.indexOf(9, t1 + 1);
  const t3 = t2 < 0 ? -1 : u8.indexOf(9, t2 + 1);
  // the value: the short id, or the whole id when the word is longer than it
  const whole = t0 >= 0 && t0 < b && c.word.length > b - t0 - 1;
  const vs = t0 < 0 || t0 >= b ? -1 : whole ? idStart(u8, a, t0) : t0 + 1;
  const ve = whole ? t0 : b;
  c.t0 = t0;
  c.t1 = t1;
  c.t2 = t2;
  c.t3 = t3;
  c.vs = vs;
  c.ve = ve;
  const tab = u8.indexOf(9, l);
  return (
    c.named == null &&
    vs >= 0 &&
    t3 === l - 1 &&
    // (a directory or branch longer than a candidate shows is cut by `candidateParts`)
    t2 - t1 - 1 <= CANDIDATE_DIR &&
    t3 - t2 - 1 <= CANDIDATE_BRANCH &&
    // (a label that `candidate` would trim: none, or one that ends in a blank)
    e > l &&
    c.rec.u8[e - 1] !== 32 &&
    (tab < 0 || tab >= e) &&
    isAscii(u8.subarray(a, e)) &&
    graphic(u8, t0 + 1, b) &&
    graphic(u8, vs, ve) &&
    PRINTABLE.test(c.ag)
  );
}

/** A row that cannot be copied from its bytes: its value and its description's parts (candidateParts). */
interface SlowCandidate {
  value: string;
  parts: string[];
}

function slowParts(c: CandRow): SlowCandidate {
  const [key = '', short = '', when = '', harness = '', dir = '', branch = '', text = ''] = fieldsOf(c.rec, c.ag, c.named);
  return {
    value: c.word.length > short.length ? key.slice(key.indexOf(':') + 1) : short,
    parts: candidateParts(when, harness, dir, branch, text),
  };
}

/** Such a row, through `candidate` itself. */
function slowCandidate(c: CandRow, sc: SlowCandidate): void {
  const { out, tape, t } = c;
  const cand = candidate(sc.value, sc.parts, c.cols);
  if (tape) {
    // (complete.out: the description starts with the age when there is one)
    const at = out.pos() + Buffer.byteLength(cand.value) + 1;
    const when = sc.parts[0];
    if (when && c.cols[0] > 0) tape.age(at, at + Buffer.byteLength(when), t);
    else tape.fixed(t);
  }
  out.putStr(`${cand.value}\t${cand.desc}\n`);
  out.endLine();
}

/**
 * A copied row's description and its line's end: age, harness and directory, each padded to its
 * column (0: left out), two spaces apart, then the label and ` (branch)`, clipped to
 * CANDIDATE_WIDTH characters (here bytes) with `…`.
 */
function describe(c: CandRow): void {
  const { out, tape, t, ag, t1, t2, t3, cols } = c;
  const { u8, b, l, e } = c.rec;
  const W = CANDIDATE_WIDTH;
  const nAge = ag.length;
  const nHarness = t1 - b;
  const nDir = t2 - t1 - 1;
  const nBranch = t3 - t2 - 1;
  const nText = e - l;
  let total = nText + (nBranch > 0 ? nBranch + 3 : 0);
  for (const w of cols) if (w > 0) total += w + 2;
  // bytes left to put before the clip
  let room = total > W ? W - 1 : total;
  const pad = (k: number) => {
    const n = Math.min(k, room);
    out.spaces(n);
    room -= n;
  };
  if (cols[0] > 0) {
    const at = out.pos();
    const k = Math.min(nAge, room);
    out.putStr(k === nAge ? ag : ag.slice(0, k));
    room -= k;
    if (nAge > 0) tape?.age(at, out.pos(), t);
    else tape?.fixed(t);
    pad(cols[0] - nAge + 2);
  } else tape?.fixed(t);
  if (cols[1] > 0) {
    room = out.clipped(u8, b, nHarness, room);
    pad(cols[1] - nHarness + 2);
  }
  if (cols[2] > 0) {
    room = out.clipped(u8, t1 + 1, nDir, room);
    pad(cols[2] - nDir + 2);
  }
  room = out.clipped(u8, l, nText, room);
  if (nBranch > 0) {
    room = out.clipped(PUNCT, 0, 2, room);
    room = out.clipped(u8, t2 + 1, nBranch, room);
    out.clipped(PUNCT, 2, 1, room);
  }
  if (total > W) out.putStr('…');
  out.byte(10);
  out.endLine();
}

/** Where the id of a key (`harness:id`) in bytes [a, t0) starts: after the first colon, or at the start. */
function idStart(u8: Uint8Array, a: number, t0: number): number {
  const c = u8.indexOf(58, a);
  return c >= 0 && c < t0 ? c + 1 : a;
}

/** Bytes [s, e) all printable ASCII and not a space (what `oneLine` keeps as it is). */
function graphic(u8: Uint8Array, s: number, e: number): boolean {
  for (let i = s; i < e; i++) if (u8[i] <= 32 || u8[i] >= 127) return false;
  return true;
}

/** the brackets of a candidate's branch, and the space before them, as bytes */
const PUNCT = Buffer.from(' ()', 'latin1');
const PRINTABLE = /^[\x20-\x7e]*$/;

/**
 * Does any record's id (its key after `harness:`) start with `low` (lower case)? The keys alone are
 * read: completion asks before it writes a row for a word that names no id.
 */
export function anyIdStarts(r: RowBin, low: string): boolean {
  const loc = locator(r);
  const lw: LowWord = { low, ascii: PRINTABLE.test(low) };
  for (let k = 0; k < r.count; k++) {
    const { buf, u8, a, b: end } = loc(r, k);
    const colon = u8.indexOf(58, a);
    if (colon < 0 || colon >= end) continue;
    const tab = u8.indexOf(9, colon);
    if (startsLow(u8, buf, colon + 1, tab < 0 || tab > end ? end : tab, lw)) return true;
  }
  return false;
}

/**
 * Whether the text of bytes [s, e) lower-cased starts with `word.low` (`word.ascii`: it is printable ASCII).
 * An ASCII word is compared with the bytes as they come, until a byte out of ASCII: that text is
 * decoded and lower-cased then (a character out of ASCII may lower-case into it: the Kelvin sign).
 */
function startsLow(u8: Uint8Array, buf: Buffer, s: number, e: number, word: LowWord): boolean {
  const { low } = word;
  if (word.ascii) {
    let i = 0;
    for (; i < low.length && s + i < e; i++) {
      let c = u8[s + i];
      if (c >= 0x80) break;
      if (c >= 65 && c <= 90) c += 32;
      if (c !== low.charCodeAt(i)) return false;
    }
    if (i === low.length) return true;
    if (s + i >= e) return false;
  }
  return buf.toString('utf8', s, e).toLowerCase().startsWith(low);
}
