// The line scanner of deep search. A file is read in 128 KiB chunks; each run of complete lines is
// case-folded into a copy (fold.ts: SIMD, about 40 GB/s) and the folded prefilter needles are
// looked for with a native `indexOf` over the whole run. Only the lines holding a needle (and the first line of the file,
// which carries session metadata) are handed on to be decoded; every other line is never split,
// copied or parsed. Lines up to PARSE_CAP bytes are kept whole; a longer line is not parsed: it is
// scanned in pieces (with an overlap so no needle is missed at a seam) and each needle hit in it
// is reported as raw bytes around the hit. Memory stays below ~PARSE_CAP + CHUNK a window whatever
// the file (a thread keeps two: the scan's, and one for the lines a tracker reads again). A line
// longer than CHUNK (lib/util/fsx.ts) grows the window up to the parse cap.
import fs from 'node:fs';
import { headHas } from '../harness/jsonl.js';
import { CHUNK } from '../util/fsx.js';
import { type Reader, zstReader } from '../util/zstd.js';
import { Folder, findIn, Needle } from './fold.js';

export const PARSE_CAP = 8 << 20;
/** bytes of a line too long to parse folded at a time */
const SLICE = 1 << 20;
/** bytes kept on each side of a hit inside a line too long to parse */
export const RAW_WINDOW = 2048;
/**
 * raw hits reported per line too long to parse, at most: one per needle in each MiB of the line
 * (where it first occurs there), whatever the size of the reads the line arrives in
 */
const RAW_HITS_PER_LINE = 4;
/**
 * A line longer than this whose first bytes mark it as tool output is not decoded either: only
 * raw text around its hits could be shown of it, and decoding megabytes of output costs more than
 * finding them.
 */
export const RAW_LINE = 32 << 10;
const HEAD = 4096;

/** `buf[s, e)` is a line of tool output too long to be worth decoding: past RAW_LINE, and its head carries one of the harness's markers. */
export function rawOutputLine(buf: Buffer, s: number, e: number, rawHead: readonly Buffer[]): boolean {
  return e - s > RAW_LINE && rawHead.some((m) => headHas(buf, s, e, m, HEAD));
}

let theFolder: Folder | null = null;
/** the read buffer of the last scan on this thread, handed to the next one */
let spare: Buffer | null = null;
/**
 * the same for a reading for a tracker alone (a file's first lines read again while the scan that
 * asked for it holds `spare`, or a file read for its tree): it grows to the longest line it
 * assembles, and a fresh one for each file was touched page by page again (~12 µs a page on this
 * project's VM)
 */
let trackSpare: Buffer | null = null;
/** where a line read in pieces is assembled for a tracker (parse cap bytes, one per thread) */
let sideSpare: Buffer | null = null;
/** the last bytes of that line, for a tracker with a tail (one per thread) */
let tailSpare: Buffer | null = null;
/** This thread's folder (its WebAssembly instance is made once), for a scan or a check of a file's bytes before one (search.ts stillPossible). */
export function sharedFolder(): Folder {
  theFolder ??= new Folder();
  return theFolder;
}

/** the needles of the last scan, folded: a search hands the same array to every file it reads */
let lastNeedles: { of: string[]; folded: Needle[] } | null = null;
function foldedOf(needles: string[]): Needle[] {
  if (lastNeedles?.of !== needles) lastNeedles = { of: needles, folded: needles.map((n) => new Needle(n)) };
  return lastNeedles.folded;
}

/** Fill `buf[off, off+len)`; return the byte count, 0 at the end. */
export type { Reader };

/** ScanSink.line's `kind`: the file's first line */
export const LINE_FIRST = 1;
/** ScanSink.line's `kind`: the first line, handed on only for being the first */
export const LINE_BARE = 2;

export interface ScanSink {
  /**
   * a complete line (the first line of the file, or one that holds a needle); `at`: where it starts
   * in the stream read (the file's byte offset, for a plain file); `kind`: LINE_FIRST marks line 0,
   * LINE_BARE line 0 handed on only for being the first (it holds no needle: what it says of the
   * session matters only to lines decoded after it)
   */
  line(buf: Buffer, start: number, end: number, at: number, kind: number): void;
  /** a needle hit inside a line too long to parse: raw bytes around it */
  raw(bytes: Buffer, hitAt: number): void;
  /**
   * Set by the sink to end the search of this file: no more lines or hits are handed on, and the
   * rest of the file is read only for a tracker that is on.
   */
  stop?: boolean;
}

/**
 * Every line of a file, for a reader of its tree (branches), taken from the same read as the
 * search. It is off until `wanted()` says so (asked after each run of lines); then the lines before
 * are read again (`reread`) and from there on each line is handed to `visit` in file order: lines
 * up to the parse cap whole (one read in pieces as tool output is assembled for it), longer ones
 * never, as a scan with no needles would.
 */
export interface LineTracker {
  /** the tracker looks at no more than the first `head` bytes of a line: a line read in pieces is not assembled, only its head kept */
  head?: number;
  /**
   * with `head`: and at no more than the last `tail` bytes; a line read in pieces is then handed as
   * its first `head` and last `tail` bytes joined, with where it lies in the stream (`at`) and its
   * length, for what the tracker must read of it whole
   */
  tail?: number;
  wanted(): boolean;
  visit(line: Buffer, at?: number, length?: number): void;
  /** a fresh reader of the same file from its start */
  reread(): Reader;
}

export interface ScanStats {
  bytes: number;
  lines: number;
  hugeLines: number;
}

export function fdReader(fd: number): Reader {
  let pos = 0;
  return (buf, off, len) => {
    const n = fs.readSync(fd, buf, off, len, pos);
    pos += n;
    return n;
  };
}

/**
 * Scan the lines of a stream. `needles` are byte keys (see query.ts `byteKey`); with none, every
 * line is handed on. `rawHead`: the markers (the harness's search hook) of a line that holds only
 * tool output, never decoded when long.
 */
export function scanLines(read: Reader, needles: string[], sink: ScanSink, how: ScanHow = {}): ScanStats {
  return new LineScan(read, needles, sink, how).run();
}

/** What a scan of lines may be given besides its stream, needles and sink. */
export interface ScanHow {
  /** lines longer are not parsed (PARSE_CAP unless given) */
  parseCap?: number;
  /** the markers of a line that holds only tool output, never decoded when long (the harness's search hook) */
  rawHead?: Buffer[];
  /** a reader of the file's tree, handed every line once it is on */
  track?: LineTracker;
  /** a reading for the tracker alone (a file's first lines read again, `reread`; or a file read for its tree): every line goes to it from the start */
  trackOnly?: boolean;
}

/** Where the line holding byte `i` of the run [a, b) of `buf` starts, from a (lastIndexOf(10, a - 1) would search from the end). */
function lineStart(buf: Buffer, a: number, i: number): number {
  return buf.lastIndexOf(10, a + i) + 1 - a;
}

/** Where the line holding byte `i` of the run [a, b) ends (its newline, or b), from a. */
function lineEnd(buf: Buffer, a: number, b: number, i: number): number {
  const e = buf.indexOf(10, a + i);
  return e < 0 || e > b ? b - a : e - a;
}

/**
 * One scan of a stream (scanLines). Its steps are methods, not closures made for each file: V8
 * compiles a closure made once for the closure alone, so the scan's hottest code was compiled again
 * for the second and the third file each thread read (`slice` three times at ~40 ms each, in every
 * isolate), and a search on two threads spent a third of its CPU compiling (BENCHMARKS.md).
 */
class LineScan {
  readonly stats: ScanStats = { bytes: 0, lines: 0, hugeLines: 0 };
  /** the window: a long line grows it up to the parse cap */
  private cap: number;
  private buf: Buffer;
  private len = 0;
  private first = true;
  private huge = false;
  private hugeHits = 0;
  /** where buf[0] lies in the huge line being read */
  private hugePos = 0;
  /** per needle, the last MiB of the huge line (SLICE) it was reported in (-1: none) */
  private readonly hugeSlot: number[];
  private readonly overlap: number;
  private readonly folded: Needle[];
  private readonly folder: Folder;
  /** the tracker is on: every line goes to it */
  private tracking = false;
  /** a line read in pieces, assembled for the tracker (null: longer than the parse cap) */
  private side: Buffer | null = null;
  private sideLen = 0;
  /** the length of that line so far (only its head is kept when the tracker says it needs no more) */
  private sideTotal = 0;
  /** where that line starts in the stream */
  private sideAt = 0;
  /** its last bytes so far (a tracker with a tail: `tailKeep` of them, and one for a carriage return) */
  private tailBuf: Buffer | null = null;
  private tailLen = 0;
  private readonly keep: number;
  private readonly tailKeep: number;

  private readonly parseCap: number;
  private readonly rawHead: Buffer[];
  private readonly track: LineTracker | undefined;
  private readonly trackOnly: boolean;

  constructor(
    private readonly read: Reader,
    private readonly needles: string[],
    private readonly sink: ScanSink,
    how: ScanHow,
  ) {
    const parseCap = how.parseCap ?? PARSE_CAP;
    const track = how.track;
    const trackOnly = how.trackOnly === true;
    this.parseCap = parseCap;
    this.rawHead = how.rawHead ?? [];
    this.track = track;
    this.trackOnly = trackOnly;
    // Every file starts with the same window whatever buffer it reuses: how a long line is read (whole,
    // or in pieces) must not depend on the file scanned before it on this thread.
    this.cap = Math.min(CHUNK, parseCap + 1);
    // One buffer per thread, reused from file to file (a fresh megabyte per file was 10% of a scan).
    const kept = trackOnly ? trackSpare : spare;
    this.buf = kept && kept.length >= this.cap ? kept : Buffer.allocUnsafe(this.cap);
    if (trackOnly) trackSpare = null;
    else spare = null;
    this.tracking = trackOnly;
    this.hugeSlot = needles.map(() => -1);
    this.overlap = Math.max(0, Math.max(0, ...needles.map((n) => n.length)) - 1);
    this.folded = foldedOf(needles);
    this.folder = sharedFolder();
    this.keep = Math.min(parseCap, track?.head ?? parseCap);
    this.tailKeep = track?.head !== undefined && track.tail !== undefined ? Math.min(track.tail, parseCap) : 0;
  }

  private deliver(s: number, e: number, isFirst: boolean, bare = false): void {
    const buf = this.buf;
    if (isFirst && e - s >= 3 && buf[s] === 0xef && buf[s + 1] === 0xbb && buf[s + 2] === 0xbf) s += 3;
    if (e > s && buf[e - 1] === 13) e--;
    if (e > s) this.sink.line(buf, s, e, this.stats.bytes - this.len + s, (isFirst ? LINE_FIRST : 0) | (bare ? LINE_BARE : 0));
  }

  /** complete lines in [0, r) */
  private region(r: number): void {
    if (r <= 0) {
      if (this.first) this.first = false; // an empty first line
      return;
    }
    if (this.sink.stop) {
      this.first = false;
      return;
    }
    if (this.needles.length === 0) {
      let s = 0;
      while (s < r) {
        let e = this.buf.indexOf(10, s);
        if (e < 0 || e > r) e = r;
        this.stats.lines++;
        this.deliver(s, e, this.first);
        this.first = false;
        s = e + 1;
      }
      return;
    }
    this.slice(0, r);
    this.first = false;
  }

  /** the complete lines in [a, b) */
  private slice(a: number, b: number): void {
    const { buf, sink } = this;
    const low = this.folder.fold(buf, a, b);
    const { picked, firstHit } = this.pick(low, a, b);
    if (picked.size === 0) return;
    const starts = [...picked.keys()].sort((x, y) => x - y);
    for (const rs of starts) {
      if (sink.stop) return;
      const re = picked.get(rs) ?? rs;
      const s = a + rs;
      const e = a + re;
      const isFirst = this.first && s === 0;
      if (!isFirst && rawOutputLine(buf, s, e, this.rawHead)) {
        // a long tool-output line: the text around each hit is all that can be shown of it
        this.rawHits(low.subarray(rs, re), s, e);
        continue;
      }
      this.deliver(s, e, isFirst, isFirst && !firstHit);
      if (isFirst) this.first = false;
    }
  }

  /**
   * The lines of [a, b) that hold a needle (`low`: those bytes folded), by their start (from a) to
   * their end; line 0 of the file always, and whether it holds a needle.
   */
  private pick(low: Buffer, a: number, b: number): { picked: Map<number, number>; firstHit: boolean } {
    const buf = this.buf;
    const picked = new Map<number, number>();
    if (this.first && a === 0) picked.set(0, lineEnd(buf, a, b, 0));
    let firstHit = false;
    for (const nd of this.folded) {
      let p = 0;
      for (;;) {
        const i = findIn(low, nd, p);
        if (i < 0) break;
        // lastIndexOf(10, -1) would search from the end: a hit at 0 starts the region's first line
        const ls = a + i === 0 ? 0 : Math.max(0, lineStart(buf, a, i));
        const le = lineEnd(buf, a, b, i + nd.length);
        if (ls === 0 && a === 0) firstHit = true;
        picked.set(ls, le);
        p = le + 1;
      }
    }
    return { picked, firstHit };
  }

  /** A long tool-output line [s, e) (`lineLow`: folded): the text around each needle's first hit, as raw hits. */
  private rawHits(lineLow: Buffer, s: number, e: number): void {
    let n = 0;
    for (const nd of this.folded) {
      const i = findIn(lineLow, nd);
      if (i < 0) continue;
      const at = s + i;
      const w0 = Math.max(s, at - RAW_WINDOW);
      this.sink.raw(Buffer.from(this.buf.subarray(w0, Math.min(e, at + nd.length + RAW_WINDOW))), at - w0);
      if (++n >= RAW_HITS_PER_LINE) break;
    }
  }

  /** a piece [0, r) of a line too long to parse: report hits, raw */
  private hugePiece(r: number): void {
    const { buf, folded, sink, hugeSlot } = this;
    if (this.needles.length === 0 || sink.stop) return;
    for (let a = 0; a < r && this.hugeHits < RAW_HITS_PER_LINE; a += SLICE) {
      const b = Math.min(r, a + SLICE + this.overlap);
      const low = this.folder.fold(buf, a, b);
      for (let k = 0; k < folded.length; k++) {
        const nd = folded[k];
        for (let from = 0; ; ) {
          const i = findIn(low, nd, from);
          if (i < 0 || (b < r && i >= SLICE)) break;
          const at = a + i;
          const slot = Math.floor((this.hugePos + at) / SLICE);
          // (one in this MiB of the line reported already: it is passed over)
          if (slot > hugeSlot[k]) {
            hugeSlot[k] = slot;
            const w0 = Math.max(0, at - RAW_WINDOW);
            sink.raw(Buffer.from(buf.subarray(w0, Math.min(r, at + nd.length + RAW_WINDOW))), at - w0);
            if (++this.hugeHits >= RAW_HITS_PER_LINE || sink.stop) return;
          }
          // the next MiB's first
          from = (slot + 1) * SLICE - this.hugePos - a;
        }
      }
    }
  }

  private shift(from: number): void {
    this.buf.copy(this.buf, 0, from, this.len);
    this.len -= from;
  }

  /** one line for the tracker, trimmed as `deliver` trims it */
  private visit(b: Buffer, s: number, e: number, isFirst: boolean): void {
    if (isFirst && e - s >= 3 && b[s] === 0xef && b[s + 1] === 0xbb && b[s + 2] === 0xbf) s += 3;
    if (e > s && b[e - 1] === 13) e--;
    if (e > s) this.track?.visit(b.subarray(s, e));
  }

  /** after the search of the complete lines in [0, r): hand them to the tracker, turning it on if it asks */
  private trackRegion(r: number, wasFirst: boolean): void {
    const track = this.track;
    if (!track) return;
    if (!this.tracking) {
      if (!track.wanted()) return;
      this.tracking = true;
      // the lines before this run, read again and handed to the tracker as the lines from here on
      // are (a line longer than the window in pieces, only its head kept when the tracker has one)
      const before = this.stats.bytes - this.len;
      if (before > 0) {
        const again = track.reread();
        let left = before;
        const limited: Reader = (b, off, n) => {
          if (left <= 0) return 0;
          const k = again(b, off, Math.min(n, left));
          left -= k;
          return k;
        };
        new LineScan(limited, [], TRACK_SINK, { parseCap: this.parseCap, track, trackOnly: true }).run();
      }
    }
    const buf = this.buf;
    for (let s = 0; s < r; ) {
      let e = buf.indexOf(10, s);
      if (e < 0 || e > r) e = r;
      this.visit(buf, s, e, wasFirst && s === 0);
      s = e + 1;
    }
  }

  /** bytes [a, b) of a line read in pieces, kept for the tracker while it fits the parse cap */
  private sideAdd(a: number, b: number): void {
    const side = this.side;
    if (!side) return;
    this.sideTotal += b - a;
    if (this.sideTotal > this.parseCap) {
      this.side = null;
      return;
    }
    // (with a tail: the head and the tail may meet, so as much as both is kept in one piece)
    const n = Math.min(b - a, this.keep + this.tailKeep - this.sideLen);
    if (n > 0) {
      this.buf.copy(side, this.sideLen, a, a + n);
      this.sideLen += n;
    }
    const tb = this.tailBuf;
    if (tb) {
      // the last bytes so far: this piece's, after what is left of the ones before
      const k = b - a;
      if (k >= tb.length) {
        this.buf.copy(tb, 0, b - tb.length, b);
        this.tailLen = tb.length;
      } else {
        const old = Math.min(this.tailLen, tb.length - k);
        tb.copy(tb, 0, this.tailLen - old, this.tailLen);
        this.buf.copy(tb, old, a, b);
        this.tailLen = old + k;
      }
    }
  }

  private sideEnd(): void {
    const side = this.side;
    const tb = this.tailBuf;
    this.side = null;
    this.tailBuf = null;
    if (!side) return;
    if (this.sideTotal <= this.sideLen) {
      this.visit(side, 0, this.sideLen, false);
    } else if (tb) {
      // its head and its tail joined (a carriage return that ends it trimmed, as `visit` trims)
      let e = this.tailLen;
      if (e > 0 && tb[e - 1] === 13) e--;
      const t = Math.min(this.tailKeep, e);
      tb.copy(side, this.keep, e - t, e);
      this.track?.visit(side.subarray(0, this.keep + t), this.sideAt, this.sideTotal);
    } else {
      // the head of a longer line is shown as it is (what ends it is not there to trim)
      this.track?.visit(side.subarray(0, this.sideLen));
    }
  }

  /** The window is full with no newline: grow it up to the parse cap, else go on with the line in pieces. */
  private full(): void {
    // a long line that starts like tool output is read in pieces at once (never decoded anyway)
    const rawNow = !this.huge && !this.first && rawOutputLine(this.buf, 0, this.len, this.rawHead);
    // (reading again for a tracker that looks at a line's head only: nothing else wants the rest)
    const headOnly = this.trackOnly && this.keep < this.cap;
    if (!this.huge && !rawNow && !headOnly && this.cap < this.parseCap + 1) {
      this.cap = Math.min(this.cap * 2, this.parseCap + 1);
      if (this.buf.length < this.cap) {
        const nb = Buffer.allocUnsafe(this.cap);
        this.buf.copy(nb, 0, 0, this.len);
        this.buf = nb;
      }
      return;
    }
    // no newline in a full buffer: the current line is too long to parse
    if (!this.huge) this.beginHuge();
    this.hugePiece(this.len);
    this.hugePos += this.len - this.overlap;
    this.shift(this.len - this.overlap);
  }

  /** A line too long to parse begins (in the window now): read in pieces from here, assembled for a tracker that is on. */
  private beginHuge(): void {
    this.huge = true;
    this.hugeHits = 0;
    this.hugePos = 0;
    this.hugeSlot.fill(-1);
    this.stats.hugeLines++;
    this.first = false;
    this.side = null;
    this.tailBuf = null;
    if (!this.tracking || this.len > this.parseCap) return;
    // one buffer of the parse cap, kept for the thread: growing one per line cost more than the search
    const room = this.keep + this.tailKeep;
    if (!sideSpare || sideSpare.length < room) sideSpare = Buffer.allocUnsafe(room);
    this.side = sideSpare;
    this.sideLen = 0;
    this.sideTotal = 0;
    this.sideAt = this.stats.bytes - this.len;
    if (this.tailKeep > 0) {
      if (!tailSpare || tailSpare.length !== this.tailKeep + 1) tailSpare = Buffer.allocUnsafe(this.tailKeep + 1);
      this.tailBuf = tailSpare;
      this.tailLen = 0;
    }
    this.sideAdd(0, this.len);
  }

  /**
   * Bytes read from `old` on, in a line too long to parse: its next piece searched; when it ends
   * here, what follows it is left in the window (true: lines follow to be read as usual).
   */
  private hugeEnds(old: number): boolean {
    let nl = this.buf.indexOf(10, old);
    if (nl >= this.len) nl = -1;
    if (this.tracking) this.sideAdd(old, nl < 0 ? this.len : nl);
    if (nl < 0) return false;
    this.hugePiece(nl);
    this.huge = false;
    if (this.tracking) this.sideEnd();
    this.shift(nl + 1);
    return this.len > 0;
  }

  /** At the end of the stream: the rest of a line too long to parse, or a last line without a newline (maybe being written: decoded only if it parses). */
  private lastLine(): void {
    if (this.huge) {
      this.hugePiece(this.len);
      if (this.tracking) this.sideEnd();
    } else if (this.len > 0) {
      const wasFirst = this.first;
      this.region(this.len);
      if (this.track) this.trackRegion(this.len, wasFirst);
    }
  }

  run(): ScanStats {
    // (the reader is called as the plain function it was handed as)
    const { sink, stats, track, read } = this;
    for (;;) {
      if (sink.stop && !this.tracking) break;
      if (this.len === this.cap) this.full();
      const n = read(this.buf, this.len, this.cap - this.len);
      stats.bytes += n;
      if (n <= 0) break;
      const old = this.len;
      this.len += n;
      if (this.huge && !this.hugeEnds(old)) continue;
      const last = this.buf.lastIndexOf(10, this.len - 1);
      if (last < 0) continue;
      const wasFirst = this.first;
      this.region(last);
      if (track) this.trackRegion(last, wasFirst);
      this.shift(last + 1);
    }
    // (unless the search was ended and nothing else wants the rest)
    if (!sink.stop || this.tracking) this.lastLine();
    if (this.buf.length <= 16 << 20) {
      if (this.trackOnly) trackSpare = this.buf;
      else spare = this.buf;
    }
    return stats;
  }
}

/** what a reading for a tracker alone hands its lines to: nothing (they go to the tracker) */
const TRACK_SINK: ScanSink = { stop: true, line() {}, raw() {} };

/** One transcript file (plain or `.zst`) open for `fn`, given a fresh reader of it from its start each time it asks. */
function withFile(file: string, fn: (reader: () => Reader) => ScanStats): ScanStats {
  const fd = fs.openSync(file, 'r');
  try {
    return fn(() => (file.endsWith('.zst') ? zstReader(fd) : fdReader(fd)));
  } finally {
    fs.closeSync(fd);
  }
}

/**
 * Every line of one transcript file (plain or `.zst`) to a tracker, as a scan hands them once it
 * is on: lines up to the window whole, longer ones up to the parse cap read in pieces and handed
 * whole, or as the head (and tail) the tracker asks for; longer ones never.
 */
export function trackFile(file: string, track: Omit<LineTracker, 'reread' | 'wanted'>): ScanStats {
  return withFile(file, (reader) => new LineScan(reader(), [], TRACK_SINK, { track: fileTracker(track, reader), trackOnly: true }).run());
}

/** Scan one transcript file (plain or `.zst`). */
export function scanFile(
  file: string,
  needles: string[],
  sink: ScanSink,
  rawHead: Buffer[] = [],
  track?: Omit<LineTracker, 'reread'>,
): ScanStats {
  return withFile(file, (reader) => scanLines(reader(), needles, sink, { rawHead, track: track && fileTracker(track, reader) }));
}

/** A caller's tracker as a scan of one file takes it: `wanted` from the start when it has none, `reread` a fresh reader of the file. */
function fileTracker(track: Omit<LineTracker, 'reread' | 'wanted'> & { wanted?(): boolean }, reader: () => Reader): LineTracker {
  return {
    head: track.head,
    tail: track.tail,
    wanted: () => track.wanted?.() ?? true,
    visit: (line, at, length) => track.visit(line, at, length),
    reread: reader,
  };
}

/** a JSON string escape (or a character cut in two, which decodes as U+FFFD): one pass, left to right */
const JSON_ESCAPE = /\\(?:u([0-9a-fA-F]{4})|([nrt])|(["\\/]))|\uFFFD/g;
const unescape1 = (_: string, hex?: string, ctl?: string, lit?: string): string =>
  hex ? String.fromCharCode(parseInt(hex, 16)) : ctl ? (ctl === 'n' ? '\n' : ctl === 'r' ? '\r' : '\t') : (lit ?? '');

/**
 * Text around a hit in raw JSON bytes that could not be parsed: JSON string escapes undone as far
 * as they are whole, a multi-byte character cut at either end dropped.
 */
export function rawText(bytes: Buffer, hitAt: number): { text: string; at: number } {
  const before = bytes.toString('utf8', 0, hitAt);
  const after = bytes.toString('utf8', hitAt);
  const un = (s: string) => s.replace(JSON_ESCAPE, unescape1);
  const b = un(before);
  return { text: b + un(after), at: b.length };
}
