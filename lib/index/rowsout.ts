// rows.out: the bytes the last no-change `resume rows` printed, kept so the next one with the same
// listing prints them again instead of reading rows.bin and putting every row together (at 22,000
// sessions that was ~50 of a ~200 ms run). A row's only part that changes with time is its age, and
// ages are coarse: a session of last month reads `1mo` for weeks. So each run that rendered the
// rows notes, for every row, when its age text next changes (nextAgeChange). Rows whose age
// changes within the hour are kept with where their age lies and their time, and get a fresh age
// each time the file is printed; every other row is printed as it was, until the first of them would
// change (`until`). Past that, or with another listing (any change to the index gives a new build
// id), another home, another snapshot-names file, or a clock that went back, the file is not used:
// the rows are put together from rows.bin as before and the file is written again. A run with a
// harness or directory filter neither reads nor writes it. One file per variant: `rows.out` (what
// `resume rows` shows) and `rows-all.out` (`--all`).
//
// The picker's padded list (`rows --align`, its reloads, its first lines) keeps one the same way
// (`rows-align….out`, by its flags): a renewed age is put in with its colour and padded to the age
// column's width, and the file is not used when the renewed ages would make that column wider or
// narrower (every line's padding would change). TAB on an empty session word keeps its candidates
// (`complete.out`, rowbin.ts printCandidates): their descriptions are clipped after the age, so the
// file is not used when a renewed age would be longer or shorter than the one it replaces.
//
// Layout: a header line `o<version> <build id> <rendered at> <until> <names> <dynamic> <body
// bytes> <age width> <colour> <widest> <fit> <home>\n` (times in epoch ms; <names>: the snapshot-names
// file as `<hash of its path>:<its stat>`; <age width> 0 for plain rows, else the age column's
// width in the aligned lines, with <colour> 0 or 1 and <widest> the widest age printed as it is;
// <fit> 1 when each renewed age must be as long as the one it replaces),
// then `dynamic` records of a u32 LE start, a u32 LE end (where the row's age text lies in
// the body) and a f64 LE time, in order, then the body: exactly what was printed. Anything
// malformed is ignored (the rows are put together again), never trusted in part. The file is written
// atomically (0600) like the rest of the index, and holds nothing rows.bin does not.
import fs from 'node:fs';
import { namesFile, storeDir } from '../harness/claude/care/store.js';
import { ALIGN_CAPS, ageColumn } from '../output.js';
import type { Ctx } from '../types.js';
import { fnv1a } from '../util/fnv.js';
import { openKept, readFirstLine, readFully, writeCacheFile } from '../util/fsx.js';
import { ageCode, ageText, nextAgeChange } from '../util/time.js';

export const ROWSOUT_VERSION = 3;
/** a row whose age text changes sooner than this is printed with a fresh age every time */
export const HORIZON_MS = 60 * 60 * 1000;
/** bytes of a dynamic row's record: start, end, time */
const DYN = 16;
/** the widest age the picker's aligned lines pad to (a longer one is not counted: its line is pushed right) */
const AGE_CAP = ALIGN_CAPS[1];

/** The file `resume rows` (`--all`) keeps its rows in. */
export const rowsOutName = (all: boolean): string => (all ? 'rows-all.out' : 'rows.out');

/** The file `resume ls` into a pipe (`--all`) keeps its lines in. */
export const lsOutName = (all: boolean): string => (all ? 'ls-all.out' : 'ls.out');

/** The file TAB's candidates for an empty session word are kept in (rowbin.ts printCandidates). */
export const CANDIDATES_OUT = 'complete.out';

/** The file the picker's aligned lines are kept in, for their flags (rows.out's aligned kind). */
export function alignedName(all: boolean, status: boolean, color: boolean): string {
  return `rows-align${all ? '-all' : ''}${status ? '-status' : ''}${color ? '-color' : ''}.out`;
}

/** Every file of printed output kept in the index directory, by name (a build removes them all). */
export const KEPT_NAMES: readonly string[] = [false, true]
  .flatMap((a) => [rowsOutName(a), lsOutName(a), ...[false, true].flatMap((st) => [false, true].map((c) => alignedName(a, st, c)))])
  .concat(CANDIDATES_OUT);

/** What the printed rows depend on besides the time: the listing, the home and the snapshot names. */
export interface RowsOutKey {
  id: string;
  home: string;
  /** the snapshot-names file (namesSig) */
  names: string;
}

/** The key of listing `id` as this run sees it (its home, its snapshot-names file). */
export function rowsOutKey(ctx: Ctx, id: string): RowsOutKey {
  return { id, home: ctx.home, names: namesSig(namesFile(storeDir(ctx))) };
}

/** The snapshot-names file as the key holds it: its path's hash and its stat (`-`: there is none). */
export function namesSig(file: string): string {
  let st: fs.Stats | undefined;
  try {
    st = fs.statSync(file, { throwIfNoEntry: false });
  } catch {
    st = undefined;
  }
  const at = fnv1a(Buffer.from(file, 'utf8')).toString(16);
  return st ? `${at}:${st.ino}.${st.size}.${st.mtimeMs}.${st.ctimeMs}` : `${at}:-`;
}

/**
 * Print rows.out with fresh ages for its dynamic rows, when it is of this key and still good at
 * `now`; false (nothing written) when it is missing, malformed or not of this listing and time.
 * The file is checked whole before anything is written, then copied out through a window (at
 * 22,000 sessions it is 3 MB, and the first touch of that much fresh memory cost more than the
 * reads: ~6.5 ms against ~3.5).
 */
export function printRowsOut(file: string, key: RowsOutKey, now: number, write: (b: Buffer) => void): boolean {
  const f = openRowsOut(file);
  if (!f) return false;
  try {
    if (f.id !== key.id || f.home !== key.home || f.names !== key.names || !(now >= f.at && now < f.until)) return false;
    const { fd, body, dyn, size } = f;
    const win = Buffer.allocUnsafe(Math.max(1, Math.min(WINDOW, size - body)));
    const copy = (p: number, e: number) => copyOut(fd, win, p, e, write);
    const ages: string[] = [];
    for (let i = 0; i < dyn.length; i += 3) ages.push(ageText(ageCode(dyn[i + 2], now)));
    // aligned lines: each renewed age padded to the column's width, which must come out the same
    // (the widest age of them all, up to the cap: else every line's padding would change)
    if (f.width > 0 && Math.max(f.widest, ...ages.map((a) => (a.length <= AGE_CAP ? a.length : 0))) !== f.width) return false;
    // clipped lines: each renewed age as long as the one it replaces (else the clip would fall elsewhere)
    if (f.fit) for (let i = 0; i < dyn.length; i += 3) if (ages[i / 3].length !== dyn[i + 1] - dyn[i]) return false;
    const fresh = (i: number) => {
      const a = ages[i / 3];
      return Buffer.from(f.width === 0 ? a : ageColumn(a, f.width, f.color), 'latin1');
    };
    let p = body;
    const head = dyn.length > 0 ? dyn[dyn.length - 2] : 0;
    if (head <= win.length) {
      // the rows up to the last renewed age (the newest, at the top: a few) in one piece
      if (readFully(fd, win, 0, head, body) !== head) throw new Error('rows.out was cut short while it was read');
      const parts: Buffer[] = [];
      let q = 0;
      for (let i = 0; i < dyn.length; i += 3) {
        parts.push(win.subarray(q, dyn[i]), fresh(i));
        q = dyn[i + 1];
      }
      if (parts.length > 0) write(Buffer.concat(parts));
      p = body + q;
    } else {
      for (let i = 0; i < dyn.length; i += 3) {
        copy(p, body + dyn[i]);
        write(fresh(i));
        p = body + dyn[i + 1];
      }
    }
    copy(p, size);
    return true;
  } finally {
    fs.closeSync(f.fd);
  }
}

/** bytes read at a time */
const WINDOW = 256 << 10;

/** Bytes [p, e) of a kept file, a window (`win`) at a time (each done with before the next is read). */
function* windowsOf(fd: number, win: Buffer, p: number, e: number): Generator<Buffer> {
  while (p < e) {
    const n = readFully(fd, win, 0, Math.min(win.length, e - p), p);
    // a kept file is only ever replaced (a new file): an open one never shrinks, this is damage
    if (n <= 0) throw new Error('a kept listing was cut short while it was read');
    yield win.subarray(0, n);
    p += n;
  }
}

/** Bytes [p, e) of a kept file to `write`, a window (`win`) at a time. */
function copyOut(fd: number, win: Buffer, p: number, e: number, write: (b: Buffer) => void): void {
  for (const b of windowsOf(fd, win, p, e)) write(b);
}

interface RowsOutFile {
  fd: number;
  size: number;
  id: string;
  at: number;
  until: number;
  names: string;
  home: string;
  /** offset of the body in the file */
  body: number;
  /** start, end (in the body) and time of each dynamic row, three numbers each */
  dyn: number[];
  /** the picker's aligned lines: the age column's width (0: the plain rows), colour, the widest age printed as it is */
  width: number;
  color: boolean;
  widest: number;
  /** each renewed age must be as long as the one it replaces */
  fit: boolean;
}

const HEAD = /^o(\d+) (\S+) (\d+) (\d+|Infinity) (\S+) (\d+) (\d+) (\d+) ([01]) (\d+) ([01]) (.*)$/s;

/** rows.out opened and checked (its header, the table of dynamic rows, its size); null when it is not a whole file of this version. */
function openRowsOut(file: string): RowsOutFile | null {
  return openKept(file, (fd, size) => {
    const first = readFirstLine(fd, 8192);
    if (!first || first.length === 0) return null;
    const nl = first.length;
    const m = HEAD.exec(first.toString('utf8'));
    if (!m || Number(m[1]) !== ROWSOUT_VERSION) return null;
    const n = Number(m[6]);
    const len = Number(m[7]);
    const body = nl + 1 + n * DYN;
    if (body + len !== size) return null;
    const table = Buffer.allocUnsafe(n * DYN);
    if (readFully(fd, table, 0, table.length, nl + 1) !== table.length) return null;
    const dyn: number[] = [];
    let last = 0;
    for (let i = 0; i < n; i++) {
      const s = table.readUInt32LE(i * DYN);
      const e = table.readUInt32LE(i * DYN + 4);
      const t = table.readDoubleLE(i * DYN + 8);
      // in order, within the body, and a time
      if (s < last || e < s || e > len || !Number.isFinite(t)) return null;
      dyn.push(s, e, t);
      last = e;
    }
    const width = Number(m[8]);
    const widest = Number(m[10]);
    if (width > AGE_CAP || widest > width) return null;
    return {
      fd,
      size,
      id: m[2],
      at: Number(m[3]),
      until: Number(m[4]),
      names: m[5],
      home: m[12],
      body,
      dyn,
      width,
      color: m[9] === '1',
      widest,
      fit: m[11] === '1',
    };
  });
}

/**
 * What a rendering of the rows records for rows.out as it prints them: each block written, and
 * where each row's age lies and what time it shows.
 */
export class RowsTape {
  private blocks: Buffer[] = [];
  private size = 0;
  private dyn: number[] = [];
  /** the first time a row printed as it is would read differently */
  private until = Infinity;
  /** the picker's aligned list: the age column's width, and the widest age of a row printed as it is */
  private width = 0;
  private widest = 0;

  /**
   * `aligned`: the rows are the picker's padded lines (printAligned), their ages coloured or not;
   * `fit`: lines clipped after their age (TAB's candidates), kept only while every renewed age is as long as its old one
   */
  constructor(
    private now: number,
    private aligned: { color: boolean } | null = null,
    private fit = false,
  ) {}

  /** the age column's width in the aligned lines (0: no age column; nothing is kept then) */
  ageWidth(w: number): void {
    this.width = w;
  }

  /** a block as it is written (copied: the writer reuses its buffer) */
  block(b: Uint8Array): void {
    this.blocks.push(Buffer.from(b));
    this.size += b.length;
  }

  /**
   * A row's age lies at [start, end) of everything written (blocks before this one included), for
   * time `t`: its text (in the aligned lines, with its colour and the padding after it).
   */
  age(start: number, end: number, t: number | null): void {
    const next = nextAgeChange(t, this.now);
    if (next - this.now < HORIZON_MS && t !== null) this.dyn.push(start, end, t);
    else this.fixed(t, next);
  }

  /** A row printed as it is until its age changes (its age's place not told). */
  fixed(t: number | null, next = nextAgeChange(t, this.now)): void {
    if (next < this.until) this.until = next;
    if (this.aligned) {
      const n = ageText(ageCode(t, this.now)).length;
      if (n <= AGE_CAP && n > this.widest) this.widest = n;
    }
  }

  /** What was recorded: the blocks, each dynamic row's age (start, end, time), and the first time a row printed as it is would change. */
  taken(): { blocks: Buffer[]; size: number; dyn: number[]; until: number } {
    return { blocks: this.blocks, size: this.size, dyn: this.dyn, until: this.until };
  }

  /**
   * rows.out's header line and its table of dynamic rows (start, end, time each), for the blocks
   * taken: the layout above, which openRowsOut reads. `shape`: the age width, colour and widest age
   * of the aligned kind (`0 0 0` for the plain rows).
   */
  private head(key: RowsOutKey, shape: string): Buffer[] {
    const dyn = this.dyn;
    const n = dyn.length / 3;
    const head = Buffer.from(
      `o${ROWSOUT_VERSION} ${key.id} ${this.now} ${this.until} ${key.names} ${n} ${this.size} ${shape} ${this.fit ? 1 : 0} ${key.home}\n`,
      'utf8',
    );
    const table = Buffer.alloc(n * DYN);
    for (let i = 0; i < n; i++) {
      table.writeUInt32LE(dyn[i * 3], i * DYN);
      table.writeUInt32LE(dyn[i * 3 + 1], i * DYN + 4);
      table.writeDoubleLE(dyn[i * 3 + 2], i * DYN + 8);
    }
    return [head, table];
  }

  /** Write rows.out for this key (quietly not, when it cannot be: it only costs the next run speed). */
  save(file: string, key: RowsOutKey): void {
    if (this.aligned && this.width === 0) return;
    const shape = this.aligned ? `${this.width} ${this.aligned.color ? 1 : 0} ${this.widest}` : '0 0 0';
    try {
      // (a listing that looks while it is replaced finds none and puts the rows together)
      writeCacheFile(file, [...this.head(key, shape), ...this.blocks]);
    } catch {
      /* only costs speed */
    }
  }
}

// ls.out and ls-all.out: what the last `resume ls` into a pipe printed (every session, or every one
// `--all`), with the line it said on stderr. Its lines hold times, not ages: they stand as long as
// the listing, the home and the snapshot-names file do. Layout: a JSON line `{"v", "id", "home",
// "names", "note"}`, then the lines printed. A run with a harness or directory filter or `-n`, or
// onto a terminal (a table sized to it), neither reads nor writes it.

const LSOUT_VERSION = 1;

/**
 * Print ls.out when it is of this key; the stderr line it keeps ('' for none), or null (nothing
 * printed) when it is missing, malformed or of another listing.
 */
export function printLsOut(file: string, key: RowsOutKey, write: (b: Buffer) => void): string | null {
  const f = openKept(file, (fd, size) => {
    const first = readFirstLine(fd, 16384);
    if (!first || first.length === 0) return null;
    const h = JSON.parse(first.toString('utf8')) as Record<string, unknown>;
    if (!h || h.v !== LSOUT_VERSION || typeof h.note !== 'string' || h.id !== key.id || h.home !== key.home || h.names !== key.names)
      return null;
    return { fd, size, body: first.length + 1, note: h.note };
  });
  if (!f) return null;
  try {
    copyOut(f.fd, Buffer.allocUnsafe(Math.max(1, Math.min(WINDOW, f.size - f.body))), f.body, f.size, write);
    return f.note;
  } finally {
    fs.closeSync(f.fd);
  }
}

/** Write ls.out: the lines printed (in the pieces they were written in) and the stderr line ('' for none). */
export function saveLsOut(file: string, key: RowsOutKey, lines: Uint8Array[], note: string): void {
  try {
    writeCacheFile(file, [
      Buffer.from(`${JSON.stringify({ v: LSOUT_VERSION, id: key.id, home: key.home, names: key.names, note })}\n`, 'utf8'),
      ...lines,
    ]);
  } catch {
    /* only costs speed */
  }
}
