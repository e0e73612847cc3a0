// Storage readers: a session's text from a JSONL transcript (streamed, prefiltered: scan.ts), a
// whole JSON document, or whatever store its harness's `scan` hook reads (a database, a directory
// of parts). Every piece found goes to `on` with the file it is in.
import fs from 'node:fs';
import { type Db, openReadonly } from '../harness/sqlite.js';
import type { Harness, Session } from '../types.js';
import { readFully } from '../util/fsx.js';
import { canHoldLines, Held } from './held.js';
import type { Term } from './query.js';
import { EXTRACTORS, HOOKS, rawHeads } from './registry.js';
import { LINE_BARE, LINE_FIRST, type LineTracker, PARSE_CAP, rawText, type ScanSink, scanFile, trackFile } from './scan.js';
import { STOP } from './score.js';
import type { BranchTracker, ExtractCtx, Extractor, Piece, ScanIO } from './types.js';

export interface SearchStats {
  sessions: number;
  files: number;
  bytes: number;
  hugeLines: number;
  /** files that could not be read (vanished, unreadable, database errors) */
  unreadable: number;
  /** files with no current signature (sigs.ts), which were read whatever they hold */
  unindexed: number;
}

export const noStats = (): SearchStats => ({ sessions: 0, files: 0, bytes: 0, hugeLines: 0, unreadable: 0, unindexed: 0 });

/** `rid`: the id of the record the piece came from, when the harness names one (branch tracking). */
export type OnPiece = (p: Piece, file: string, child: boolean, rid?: string | null) => void;

export interface ReadCtx {
  terms: Term[];
  needles: string[];
  /** needles usable in SQL `instr(lower(x), ?)`: ASCII only; null when a term has none */
  sqlNeedles: string[] | null;
  stats: SearchStats;
  dbs: Map<string, Db | null>;
  /** the bytes of a transcript found to hold no needle before the scan (prefilter.ts), else undefined */
  clean?: (file: string) => number | undefined;
}

export function readCtx(terms: Term[], needles: string[], stats: SearchStats, clean?: (file: string) => number | undefined): ReadCtx {
  const ascii = terms.map((t) => t.needles.filter((n) => /^[\x20-\x7e]+$/.test(n)));
  const sqlNeedles = ascii.every((a) => a.length > 0) ? [...new Set(ascii.flat())] : null;
  return { terms, needles, sqlNeedles, stats, dbs: new Map(), clean };
}

export function closeCtx(cx: ReadCtx): void {
  for (const d of cx.dbs.values()) d?.close();
}

/**
 * What the scan of a file asks of and tells its group: the transcripts with a hit from a record
 * with an id (their tree may mark it abandoned), the trees read along with the search, and whether
 * tool output can still matter.
 */
export interface GroupScan {
  /** whether the group has every term by now: only then is a tree read along */
  full(): boolean;
  /** a transcript had a hit from a record with an id (once per transcript) */
  told(file: string, harness: Harness): void;
  /** a transcript's abandoned records, from the tree read along with its search (null: cannot be told) */
  read(file: string, dead: Set<string> | null): void;
  /** a piece of tool output (from a record with an id in `file`, when given) could no longer change the group's results (score.ts `outputMoot`) */
  outputMoot(file?: string): boolean;
}

const parseLine = (line: Buffer) => () => {
  try {
    return JSON.parse(line.toString('utf8'));
  } catch {
    return null; // a partial or bad line
  }
};

/** where parseAt reads a line (kept for the thread: a fresh buffer is touched page by page) */
let parseBuf: Buffer | null = null;

/** The line of `length` bytes at byte `at` of `file`, read again and decoded (null: not JSON, or not there whole now). */
const parseAt = (file: string, at: number, length: number) => () => {
  if (length > PARSE_CAP) return null;
  let fd = -1;
  try {
    fd = fs.openSync(file, 'r');
    if (!parseBuf || parseBuf.length < length) parseBuf = Buffer.allocUnsafe(Math.max(length, 64 << 10));
    if (readFully(fd, parseBuf, 0, length, at) < length) return null;
    return JSON.parse(parseBuf.toString('utf8', 0, length));
  } catch {
    return null;
  } finally {
    if (fd >= 0) fs.closeSync(fd);
  }
};

/**
 * What a tree reader is handed of a line: its bytes, and how to decode it: from those bytes, or,
 * when they are only its head and tail (`at`, `length`: a long line read in pieces), from the file.
 */
function visitOf(file: string, tree: () => BranchTracker): (line: Buffer, at?: number, length?: number) => void {
  return (line, at, length) =>
    at === undefined ? tree().visit(line, parseLine(line)) : tree().visit(line, parseAt(file, at, length ?? 0), true);
}

/** The bytes at the end of a line a harness's tree reader looks at (none for a compressed file: its lines are not read again by offset). */
const tailOf = (harness: Harness, file: string): number | undefined => (file.endsWith('.zst') ? undefined : HOOKS[harness]?.branchTail);

/** Which transcript a reading is of, and whose. */
interface Of {
  harness: Harness;
  file: string;
  /** a subagent's or child's transcript, named by a member */
  child: boolean;
}

/**
 * Read one JSONL transcript. Its tree (the harness's `branches` hook) is read along with the search
 * once the transcript has a hit from a record with an id and the group has every term (the lines
 * before that are read again); when the evidence is enough (STOP) the rest of the file is still
 * read for the tree, without searching it, and STOP is thrown after.
 */
function scanJsonl(cx: ReadCtx, of: Of, on: OnPiece, gs: GroupScan): void {
  // read already and found to hold no needle: what a read would give, a file with no hit
  const clean = cx.clean?.(of.file);
  if (clean !== undefined) {
    cx.stats.files++;
    cx.stats.bytes += clean;
    return;
  }
  new JsonlRead(cx, of, on, gs).run();
}

/** One reading of a JSONL transcript (scanJsonl): the sink its lines are handed to. */
class JsonlRead implements ScanSink {
  stop = false;
  private readonly ex: Extractor;
  private readonly recordId: ((rec: unknown) => string | null) | undefined;
  private readonly outputOnly: ((line: Buffer) => boolean) | undefined;
  private readonly ecx: ExtractCtx = { first: false, st: {} };
  private readonly plain: boolean;
  private told = false;
  private tree: BranchTracker | null = null;
  /**
   * The first line, when it holds no needle: its pieces cannot match, and what it tells the
   * extractor (a session header, a fork's start) matters only to a line decoded after it, so it is
   * decoded then, or never (most files of a search for a rare word).
   */
  private bareFirst: Buffer | null = null;
  // Tool output is held back to the end of the file (held.ts): it weighs least, and once the rest
  // of the file has given the group its hits it seldom matters, so most of it is never decoded.
  private readonly held: Held;
  private readonly moot = (line: boolean) => (line ? this.gs.outputMoot(this.of.file) : this.gs.outputMoot());
  private readonly stopping = () => this.stop;

  constructor(
    private readonly cx: ReadCtx,
    private readonly of: Of,
    private readonly on: OnPiece,
    private readonly gs: GroupScan,
  ) {
    const hooks = HOOKS[of.harness];
    this.ex = EXTRACTORS[of.harness];
    this.recordId = hooks?.recordId;
    this.outputOnly = hooks?.outputOnly;
    this.plain = of.file.endsWith('.txt');
    this.held = new Held(
      of.file,
      canHoldLines(of.file) ? this.outputOnly : undefined,
      (buf, s, e, first) => this.decode(buf, s, e, first),
      (bytes, at) => this.rawPiece(bytes, at),
    );
  }

  private stopped(err: unknown): void {
    if (err !== STOP) throw err;
    this.stop = true;
  }

  /** the transcript has a hit from a record with an id (said once) */
  private tell(): void {
    if (this.told) return;
    this.told = true;
    this.gs.told(this.of.file, this.of.harness);
  }

  /** decode one line and hand on its pieces */
  private decode(buf: Buffer, s: number, e: number, first: boolean): void {
    if (this.bareFirst) {
      const b = this.bareFirst;
      this.bareFirst = null;
      this.decode(b, 0, b.length, true);
    }
    const { file, child } = this.of;
    try {
      let o: unknown;
      try {
        o = JSON.parse(buf.toString('utf8', s, e));
      } catch {
        if (this.plain) this.on({ role: 'assistant', text: buf.toString('utf8', s, e) }, file, child);
        return;
      }
      this.ecx.first = first;
      const ps = this.ex(o, this.ecx);
      if (ps.length === 0) return;
      const rid = this.recordId?.(o) ?? null;
      if (rid) this.tell();
      for (const p of ps) this.on(p, file, child, rid);
    } catch (err) {
      this.stopped(err);
    }
  }

  private rawPiece(bytes: Buffer, at: number): void {
    try {
      this.on({ role: 'tool-output', text: rawText(bytes, at).text }, this.of.file, this.of.child);
    } catch (err) {
      this.stopped(err);
    }
  }

  line(buf: Buffer, s: number, e: number, at: number, kind: number): void {
    const first = (kind & LINE_FIRST) !== 0;
    if ((kind & LINE_BARE) !== 0) {
      this.bareFirst = Buffer.from(buf.subarray(s, e));
      return;
    }
    if (!first && this.outputOnly?.(buf.subarray(s, e))) {
      // a line of tool output that could not change the results is not decoded
      if (this.gs.outputMoot(this.of.file)) return;
      if (this.held.line(buf, s, e, at)) {
        // a record with an id, most likely: its tree is read along from here (a hit of it kept
        // later would otherwise have the file read again for it, in branchPass)
        if (this.recordId) this.tell();
        return;
      }
    }
    this.decode(buf, s, e, first);
  }

  raw(bytes: Buffer, at: number): void {
    // a line too long to decode: the text around the hit, as tool output (what such lines hold)
    if (!this.gs.outputMoot()) this.held.raw(bytes, at, this.moot, this.stopping);
  }

  /** the reader of the transcript's tree, when its harness has one */
  private tracker(): Omit<LineTracker, 'reread'> | undefined {
    const { harness, file } = this.of;
    const makeTree = HOOKS[harness]?.branches;
    if (!makeTree) return undefined;
    return {
      head: HOOKS[harness]?.branchHead,
      tail: tailOf(harness, file),
      wanted: () => {
        // (held tool output may give the group its last term: its tree is read along, rather than
        // the file read again for it once a held hit is kept)
        if (!this.told || !(this.gs.full() || this.held.holding)) return false;
        this.tree = makeTree();
        return true;
      },
      // (set by wanted() before the first line is handed over)
      visit: visitOf(file, () => this.tree as BranchTracker),
    };
  }

  run(): void {
    const { cx, of } = this;
    const st = scanFile(of.file, cx.needles, this, rawHeads(of.harness), this.tracker());
    cx.stats.files++;
    cx.stats.bytes += st.bytes;
    cx.stats.hugeLines += st.hugeLines;
    if (this.tree) {
      let dead: Set<string> | null = null;
      try {
        dead = this.tree.result();
      } catch {
        cx.stats.unreadable++;
      }
      this.gs.read(of.file, dead);
    }
    // what was held back, in file order, while it can still change the results
    this.held.flush(this.moot, this.stopping);
    if (this.stop) throw STOP;
  }
}

/** a whole JSON document larger than this is not read (search, and the search index's pieces) */
export const WHOLE_CAP = 64 << 20;

/** A whole JSON document (Gemini legacy session, opencode legacy files), prefiltered before parsing. */
function readDoc(cx: ReadCtx, file: string): unknown {
  const st = fs.statSync(file);
  if (st.size > WHOLE_CAP) return undefined;
  const b = fs.readFileSync(file);
  cx.stats.files++;
  cx.stats.bytes += b.length;
  const low = b.toString('latin1').toLowerCase();
  if (!cx.needles.some((n) => low.includes(n))) return undefined;
  try {
    return JSON.parse(b.toString('utf8'));
  } catch {
    return undefined;
  }
}

function io(cx: ReadCtx): ScanIO {
  return {
    db(file) {
      const had = cx.dbs.get(file);
      if (had !== undefined) return had;
      let d: Db | null = null;
      try {
        d = openReadonly(file);
      } catch {
        cx.stats.unreadable++;
      }
      cx.dbs.set(file, d);
      return d;
    },
    sqlFilter(col) {
      if (!cx.sqlNeedles || cx.sqlNeedles.length === 0) return { sql: '', args: [] };
      return { sql: ` AND (${cx.sqlNeedles.map(() => `instr(lower(${col}), ?) > 0`).join(' OR ')})`, args: cx.sqlNeedles };
    },
    readDoc: (file) => readDoc(cx, file),
    counted(bytes = 0) {
      cx.stats.files++;
      cx.stats.bytes += bytes;
    },
  };
}

/**
 * The ids of a transcript's records that lie only on abandoned branches (its harness's `branches`
 * hook over every line, read again), or null when that cannot be told. For a transcript whose group
 * had every term only after its search.
 */
export function branchPass(cx: ReadCtx, harness: Harness, file: string): Set<string> | null {
  const make = HOOKS[harness]?.branches;
  if (!make) return null;
  try {
    const t = make();
    const st = trackFile(file, { head: HOOKS[harness]?.branchHead, tail: tailOf(harness, file), visit: visitOf(file, () => t) });
    // read again: counted among the bytes read
    cx.stats.bytes += st.bytes;
    return t.result();
  } catch {
    cx.stats.unreadable++;
    return null;
  }
}

/** Read one session's own store. `br`: what its transcripts say about branches. */
export function scanSession(cx: ReadCtx, s: Session, child: boolean, on: OnPiece, gs: GroupScan): void {
  const f = s.file;
  try {
    if (HOOKS[s.harness]?.scan?.(s, io(cx), (p, file) => on(p, file, child))) return;
    if (f.endsWith('.json')) {
      const doc = readDoc(cx, f);
      if (doc !== undefined) for (const p of EXTRACTORS[s.harness](doc, { first: true, st: {} })) on(p, f, child);
      return;
    }
    scanJsonl(cx, { harness: s.harness, file: f, child }, on, gs);
  } catch (err) {
    if (err === STOP) throw err;
    cx.stats.unreadable++;
  }
}

/** Read a subagent transcript kept beside a session. */
export function scanChildFile(cx: ReadCtx, harness: Harness, f: string, on: OnPiece, gs: GroupScan): void {
  try {
    if (f.endsWith('.json')) {
      const doc = readDoc(cx, f);
      if (doc !== undefined) for (const p of EXTRACTORS[harness](doc, { first: true, st: {} })) on(p, f, true);
      return;
    }
    scanJsonl(cx, { harness, file: f, child: true }, on, gs);
  } catch (err) {
    if (err === STOP) throw err;
    cx.stats.unreadable++;
  }
}

/**
 * Stores shared by sessions (Claude's prompt history): each line holding a term, handed on with
 * the session key it belongs to.
 */
export function scanShared(cx: ReadCtx, all: Session[], on: (key: string, p: Piece, file: string, via: string) => void): void {
  for (const h of new Set(all.map((s) => s.harness))) {
    const shared = HOOKS[h]?.shared;
    if (!shared) continue;
    for (const src of shared(all.filter((s) => s.harness === h))) {
      try {
        const st = scanFile(src.file, cx.needles, {
          line(buf, s, e) {
            let o: unknown;
            try {
              o = JSON.parse(buf.toString('utf8', s, e));
            } catch {
              return;
            }
            const key = src.owner(o);
            if (!key) return;
            for (const p of src.extract(o)) on(key, p, src.file, src.label);
          },
          raw() {},
        });
        cx.stats.files++;
        cx.stats.bytes += st.bytes;
      } catch {
        cx.stats.unreadable++;
      }
    }
  }
}
