// The line scanner of deep search. A file is read in 128 KiB chunks; each run of complete lines is
// case-folded into a copy (fold.ts: SIMD, about 40 GB/s) and the folded prefilter needles are
// looked for with a native `indexOf` over the whole run. Only the lines holding a needle (and the first line of the file,
// which carries session metadata) are handed on to be decoded; every other line is never split,
// copied or parsed. Lines up to PARSE_CAP bytes are kept whole; a longer line is not parsed: it is
// scanned in pieces (with an overlap so no needle is missed at a seam) and each needle hit in it
// is reported as raw bytes around the hit. Memory stays below ~PARSE_CAP + CHUNK whatever the file.
import fs from 'node:fs';
import { zstReader, type Reader } from '../util/zstd.js';
import { Folder, Needle, findIn } from './fold.js';
import { headHas } from '../harness/jsonl.js';

/**
 * bytes read at a time: 128 KiB stays in the core's cache between the kernel's copy and the scan
 * of it; 1 MiB reads ran ~3x slower here (24 MB file: 6 vs 18 ms), a search for an absent word on
 * one thread 1,084 -> 721 ms. A line longer than this grows the window up to the parse cap.
 */
export const CHUNK = 128 << 10;
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

let theFolder: Folder | null = null;
/** the read buffer of the last scan on this thread, handed to the next one */
let spare: Buffer | null = null;
/** where a line read in pieces is assembled for a tracker (parse cap bytes, one per thread) */
let sideSpare: Buffer | null = null;
function sharedFolder(): Folder {
  return (theFolder ??= new Folder());
}


/** the needles of the last scan, folded: a search hands the same array to every file it reads */
let lastNeedles: { of: string[]; folded: Needle[] } | null = null;
function foldedOf(needles: string[]): Needle[] {
  if (lastNeedles?.of !== needles) lastNeedles = { of: needles, folded: needles.map((n) => new Needle(n)) };
  return lastNeedles.folded;
}

/** Fill `buf[off, off+len)`; return the byte count, 0 at the end. */
export type { Reader };

export interface ScanSink {
  /**
   * a complete line (the first line of the file, or one that holds a needle); `first` marks line 0;
   * `at`: where it starts in the stream read (the file's byte offset, for a plain file); `bare`:
   * line 0 handed on only for being the first (it holds no needle: what it says of the session
   * matters only to lines decoded after it)
   */
  line(buf: Buffer, start: number, end: number, first: boolean, at: number, bare?: boolean): void;
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
  wanted(): boolean;
  visit(line: Buffer): void;
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
export function scanLines(read: Reader, needles: string[], sink: ScanSink, parseCap = PARSE_CAP, rawHead: Buffer[] = [], track?: LineTracker): ScanStats {
  const stats: ScanStats = { bytes: 0, lines: 0, hugeLines: 0 };
  // Every file starts with the same window whatever buffer it reuses: how a long line is read (whole,
  // or in pieces) must not depend on the file scanned before it on this thread.
  let cap = Math.min(CHUNK, parseCap + 1);
  // One buffer per thread, reused from file to file (a fresh megabyte per file was 10% of a scan).
  let buf = spare && spare.length >= cap ? spare : Buffer.allocUnsafe(cap);
  spare = null;
  let len = 0;
  let first = true;
  let huge = false;
  let hugeHits = 0;
  /** where buf[0] lies in the huge line being read */
  let hugePos = 0;
  /** per needle, the last MiB of the huge line (SLICE) it was reported in (-1: none) */
  const hugeSlot = needles.map(() => -1);
  const overlap = Math.max(0, Math.max(0, ...needles.map((n) => n.length)) - 1);
  const folded = foldedOf(needles);
  const folder = sharedFolder();
  /** the tracker is on: every line goes to it */
  let tracking = false;
  /** a line read in pieces, assembled for the tracker (null: longer than the parse cap) */
  let side: Buffer | null = null;
  let sideLen = 0;
  /** the length of that line so far (only its head is kept when the tracker says it needs no more) */
  let sideTotal = 0;
  const keep = Math.min(parseCap, track?.head ?? parseCap);

  const deliver = (s: number, e: number, isFirst: boolean, bare = false) => {
    if (isFirst && e - s >= 3 && buf[s] === 0xef && buf[s + 1] === 0xbb && buf[s + 2] === 0xbf) s += 3;
    if (e > s && buf[e - 1] === 13) e--;
    if (e > s) sink.line(buf, s, e, isFirst, stats.bytes - len + s, bare);
  };

  /** complete lines in [0, r) */
  const region = (r: number) => {
    if (r <= 0) {
      if (first) first = false; // an empty first line
      return;
    }
    if (sink.stop) {
      first = false;
      return;
    }
    if (needles.length === 0) {
      let s = 0;
      while (s < r) {
        let e = buf.indexOf(10, s);
        if (e < 0 || e > r) e = r;
        stats.lines++;
        deliver(s, e, first);
        first = false;
        s = e + 1;
      }
      return;
    }
    slice(0, r);
    first = false;
  };

  /** the complete lines in [a, b) */
  const slice = (a: number, b: number) => {
    const low = folder.fold(buf, a, b);
    const picked = new Map<number, number>();
    const lineStart = (i: number) => buf.lastIndexOf(10, a + i) + 1 - a;
    const lineEnd = (i: number) => {
      const e = buf.indexOf(10, a + i);
      return e < 0 || e > b ? b - a : e - a;
    };
    if (first && a === 0) picked.set(0, lineEnd(0));
    /** line 0 holds a needle */
    let firstHit = false;
    for (const nd of folded) {
      let p = 0;
      for (;;) {
        const i = findIn(low, nd, p);
        if (i < 0) break;
        // lastIndexOf(10, -1) would search from the end: a hit at 0 starts the region's first line
        const ls = a + i === 0 ? 0 : Math.max(0, lineStart(i));
        const le = lineEnd(i + nd.length);
        if (ls === 0 && a === 0) firstHit = true;
        picked.set(ls, le);
        p = le + 1;
      }
    }
    if (picked.size === 0) return;
    const starts = [...picked.keys()].sort((x, y) => x - y);
    for (const rs of starts) {
      if (sink.stop) return;
      const re = picked.get(rs)!;
      const s = a + rs;
      const e = a + re;
      const isFirst = first && s === 0;
      if (e - s > RAW_LINE && !isFirst && rawHead.some((m) => headHas(buf, s, e, m, HEAD))) {
        // a long tool-output line: the text around each hit is all that can be shown of it
        let n = 0;
        const lineLow = low.subarray(rs, re);
        for (const nd of folded) {
          const i = findIn(lineLow, nd);
          if (i < 0) continue;
          const at = s + i;
          const w0 = Math.max(s, at - RAW_WINDOW);
          sink.raw(Buffer.from(buf.subarray(w0, Math.min(e, at + nd.length + RAW_WINDOW))), at - w0);
          if (++n >= RAW_HITS_PER_LINE) break;
        }
        continue;
      }
      deliver(s, e, isFirst, isFirst && !firstHit);
      if (isFirst) first = false;
    }
  };

  /** a piece [0, r) of a line too long to parse: report hits, raw */
  const hugePiece = (r: number) => {
    if (needles.length === 0 || sink.stop) return;
    for (let a = 0; a < r && hugeHits < RAW_HITS_PER_LINE; a += SLICE) {
      const b = Math.min(r, a + SLICE + overlap);
      const low = folder.fold(buf, a, b);
      for (let k = 0; k < folded.length; k++) {
        const nd = folded[k]!;
        for (let from = 0; ; ) {
          const i = findIn(low, nd, from);
          if (i < 0 || (b < r && i >= SLICE)) break;
          const at = a + i;
          const slot = Math.floor((hugePos + at) / SLICE);
          // (one in this MiB of the line reported already: it is passed over)
          if (slot > hugeSlot[k]!) {
            hugeSlot[k] = slot;
            const w0 = Math.max(0, at - RAW_WINDOW);
            sink.raw(Buffer.from(buf.subarray(w0, Math.min(r, at + nd.length + RAW_WINDOW))), at - w0);
            if (++hugeHits >= RAW_HITS_PER_LINE || sink.stop) return;
          }
          // the next MiB's first
          from = (slot + 1) * SLICE - hugePos - a;
        }
      }
    }
  };

  const shift = (from: number) => {
    buf.copy(buf, 0, from, len);
    len -= from;
  };

  /** one line for the tracker, trimmed as `deliver` trims it */
  const visit = (b: Buffer, s: number, e: number, isFirst: boolean) => {
    if (isFirst && e - s >= 3 && b[s] === 0xef && b[s + 1] === 0xbb && b[s + 2] === 0xbf) s += 3;
    if (e > s && b[e - 1] === 13) e--;
    if (e > s) track!.visit(b.subarray(s, e));
  };
  /** after the search of the complete lines in [0, r): hand them to the tracker, turning it on if it asks */
  const trackRegion = (r: number, wasFirst: boolean) => {
    if (!tracking) {
      if (!track!.wanted()) return;
      tracking = true;
      // the lines before this run, read again (the same rules: no needles hands on every line)
      const before = stats.bytes - len;
      if (before > 0) {
        const again = track!.reread();
        let left = before;
        const limited: Reader = (b, off, n) => {
          if (left <= 0) return 0;
          const k = again(b, off, Math.min(n, left));
          left -= k;
          return k;
        };
        scanLines(limited, [], { line: (b, s, e) => track!.visit(b.subarray(s, e)), raw() {} }, parseCap);
      }
    }
    for (let s = 0; s < r; ) {
      let e = buf.indexOf(10, s);
      if (e < 0 || e > r) e = r;
      visit(buf, s, e, wasFirst && s === 0);
      s = e + 1;
    }
  };
  /** bytes [a, b) of a line read in pieces, kept for the tracker while it fits the parse cap */
  const sideAdd = (a: number, b: number) => {
    if (!side) return;
    sideTotal += b - a;
    if (sideTotal > parseCap) {
      side = null;
      return;
    }
    const n = Math.min(b - a, keep - sideLen);
    if (n > 0) {
      buf.copy(side, sideLen, a, a + n);
      sideLen += n;
    }
  };
  const sideEnd = () => {
    // the head of a longer line is shown as it is (what ends it is not there to trim)
    if (side) sideTotal > sideLen ? track!.visit(side.subarray(0, sideLen)) : visit(side, 0, sideLen, false);
    side = null;
  };

  for (;;) {
    if (sink.stop && !tracking) break;
    if (len === cap) {
      // a long line that starts like tool output is read in pieces at once (never decoded anyway)
      const rawNow = !huge && !first && len > RAW_LINE && rawHead.some((m) => headHas(buf, 0, len, m, HEAD));
      if (!huge && !rawNow && cap < parseCap + 1) {
        cap = Math.min(cap * 2, parseCap + 1);
        if (buf.length < cap) {
          const nb = Buffer.allocUnsafe(cap);
          buf.copy(nb, 0, 0, len);
          buf = nb;
        }
      } else {
        // no newline in a full buffer: the current line is too long to parse
        if (!huge) {
          huge = true;
          hugeHits = 0;
          hugePos = 0;
          hugeSlot.fill(-1);
          stats.hugeLines++;
          first = false;
          side = null;
          if (tracking && len <= parseCap) {
            // one buffer of the parse cap, kept for the thread: growing one per line cost more than the search
            side = sideSpare && sideSpare.length >= keep ? sideSpare : (sideSpare = Buffer.allocUnsafe(keep));
            sideLen = 0;
            sideTotal = 0;
            sideAdd(0, len);
          }
        }
        hugePiece(len);
        hugePos += len - overlap;
        shift(len - overlap);
      }
    }
    const n = read(buf, len, cap - len);
    stats.bytes += n;
    if (n <= 0) break;
    const old = len;
    len += n;
    if (huge) {
      let nl = buf.indexOf(10, old);
      if (nl >= len) nl = -1;
      if (tracking) sideAdd(old, nl < 0 ? len : nl);
      if (nl < 0) continue;
      hugePiece(nl);
      huge = false;
      if (tracking) sideEnd();
      shift(nl + 1);
      if (len === 0) continue;
    }
    const last = buf.lastIndexOf(10, len - 1);
    if (last < 0) continue;
    const wasFirst = first;
    region(last);
    if (track) trackRegion(last, wasFirst);
    shift(last + 1);
  }
  if (sink.stop && !tracking) {
    // the search was ended and nothing else wants the rest
  } else if (huge) {
    hugePiece(len);
    if (tracking) sideEnd();
  } else if (len > 0) {
    // a last line without a newline (maybe being written): decoded only if it parses
    const wasFirst = first;
    region(len);
    if (track) trackRegion(len, wasFirst);
  }
  if (buf.length <= 16 << 20) spare = buf;
  return stats;
}

/** Scan one transcript file (plain or `.zst`). */
export function scanFile(file: string, needles: string[], sink: ScanSink, rawHead: Buffer[] = [], track?: Omit<LineTracker, 'reread'>): ScanStats {
  const fd = fs.openSync(file, 'r');
  try {
    const reader = () => (file.endsWith('.zst') ? zstReader(fd) : fdReader(fd));
    const t: LineTracker | undefined = track && { head: track.head, wanted: () => track.wanted(), visit: (line) => track.visit(line), reread: reader };
    return scanLines(reader(), needles, sink, PARSE_CAP, rawHead, t);
  } finally {
    fs.closeSync(fd);
  }
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
