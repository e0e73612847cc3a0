// The search index's text: every piece of a transcript that is not tool output (prompts, replies,
// tool calls, delegated tasks, summaries), kept in the index database (`pieces`) with a full-text
// table over it (`words`, SQLite FTS5). The picker's search as you type ranks a session from its
// pieces alone when they hold every word (pool.ts is then never asked to read it); what they cannot
// settle is read as before, narrowed by the signatures (sigs.ts).
//
// Why not tool output: it is nearly all of a transcript's bytes (96% of the bench's), it weighs
// least in the ranking, and the size of a full-text index over it would pass the index's budget
// (bench/sqlite/README.md). Why a word tokenizer (unicode61): a query's words are substrings, but
// the table is only asked which pieces may hold them; each piece it gives is checked with the
// word's own pattern (query.ts `re`), and a word it cannot find (inside another word: `retrier` in
// `webhookretrier`) leaves the session to be read.
//
// The pieces come from the same pass over a file's bytes as its signature, with the harness's own
// text extractor (lib/harness/<name>/text.ts), from the end of the last complete line read before
// (a harness may be writing the next), the extractor's per-file state carried in the database.
import type { Db } from '../index/store.js';
import type { Statement } from '../os/sqlite.js';
import type { Harness, Session } from '../types.js';
import { sanitizeText } from '../util/redact.js';
import type { Term } from './query.js';
import { EXTRACTORS, HOOKS, rawHeads } from './registry.js';
import { rawOutputLine } from './scan.js';
import { pieceKey, startsAsFirst } from './score.js';
import { type ExtractCtx, type Piece, ROLE_AT, ROLES } from './types.js';

/** characters of a piece kept (a pasted log in a prompt: the rest is found by reading the file) */
const PIECE_CAP = 4 << 10;
/** a line longer than this is not decoded for pieces (tool output, mostly: read when it matters) */
const LINE_CAP = 1 << 20;

const F_COPIED = 1;
const F_SUMMARY = 2;
const F_WRITE = 4;
/** (FilePieces only, never stored) a prompt told to be its session's first (F_FIRST) or not, without its text */
const F_TOLD = 8;
const F_FIRST = 16;

/** A piece as the index keeps it. */
export interface Kept {
  role: number;
  flags: number;
  /** score.ts pieceKey of it, made as it is kept (a search then need not read its text to tell repeats) */
  key: number;
  text: string;
}

/**
 * The pieces of one file the full-text table gave a search, a column each: a word in every session
 * at 22,000 sessions gave 274,000 of them, and an object each (then another to weigh it) was about
 * a third of the picker's reload.
 */
export class FilePieces {
  constructor(
    /** its transcript (undefined: no longer in the index) */
    readonly file: string | undefined,
    /** the first prompt of the session it is the own transcript of (Within.firsts); undefined: not told */
    readonly firstPrompt: string | null | undefined,
  ) {}
  readonly role: number[] = [];
  readonly flags: number[] = [];
  readonly key: number[] = [];
  /** the terms each holds (bit i: term i) when the table tells; empty when each is checked against its text */
  readonly mask: number[] = [];
  /** each one's text ('' when not read: the table told which terms it holds, and it is no prompt) */
  readonly text: string[] = [];

  get length(): number {
    return this.key.length;
  }

  /** Piece `i`, written into `p`: one object for every piece weighed (score.ts collect keeps nothing of it). */
  at(i: number, p: Piece): Piece {
    const f = this.flags[i];
    p.role = ROLES[this.role[i]] ?? 'assistant';
    p.text = this.text[i];
    p.copied = (f & F_COPIED) !== 0;
    p.summary = (f & F_SUMMARY) !== 0;
    p.write = (f & F_WRITE) !== 0;
    p.key = this.key[i];
    p.mask = this.mask.length ? this.mask[i] : undefined;
    p.first = (f & F_TOLD) !== 0 ? (f & F_FIRST) !== 0 : undefined;
    return p;
  }
}

/** A piece to write FilePieces.at into. */
export const blankPiece = (): Piece => ({
  role: 'user',
  text: '',
  copied: false,
  summary: false,
  write: false,
  key: 0,
  mask: undefined,
  first: undefined,
});

/**
 * Reads the lines of a file as its bytes are fed (in order, from a line's start) and keeps the
 * pieces of those that are not tool output. `st`: the extractor's state where the last reading
 * ended (JSON), `first`: the feed starts at the file's first byte.
 */
export class PieceReader {
  readonly kept: Kept[] = [];
  /** bytes of complete lines consumed */
  consumed = 0;
  private readonly ecx: ExtractCtx;
  private readonly ex: (rec: unknown, cx: ExtractCtx) => Piece[];
  private readonly outputOnly: ((line: Buffer) => boolean) | undefined;
  private readonly heads: Buffer[];
  private readonly plain: boolean;
  private first: boolean;
  /** the start of a line not complete yet (null: longer than LINE_CAP, skipped to its end) */
  private part: Buffer[] | null = [];
  private partLen = 0;

  constructor(harness: Harness, file: string, st: string | null, first: boolean) {
    this.ex = EXTRACTORS[harness];
    this.outputOnly = HOOKS[harness]?.outputOnly;
    this.heads = rawHeads(harness);
    this.plain = file.endsWith('.txt');
    this.first = first;
    let state: Record<string, unknown> = {};
    try {
      state = st ? (JSON.parse(st) as Record<string, unknown>) : {};
    } catch {
      state = {};
    }
    this.ecx = { first, st: state };
  }

  /** the extractor's state to carry to the next reading */
  state(): string {
    return JSON.stringify(this.ecx.st);
  }

  feed(buf: Buffer, n: number): void {
    let s = 0;
    for (;;) {
      const e = buf.indexOf(10, s);
      if (e < 0 || e >= n) break;
      this.lineEnd(buf, s, e);
      s = e + 1;
    }
    if (s < n) this.hold(buf, s, n);
  }

  private hold(buf: Buffer, s: number, e: number): void {
    this.partLen += e - s;
    if (!this.part) return;
    if (this.partLen > LINE_CAP) this.part = null;
    else this.part.push(Buffer.from(buf.subarray(s, e)));
  }

  private lineEnd(buf: Buffer, s: number, e: number): void {
    const len = this.partLen + (e - s);
    let line: Buffer | null;
    if (this.partLen === 0) line = buf.subarray(s, e);
    else {
      this.hold(buf, s, e);
      line = this.part ? Buffer.concat(this.part) : null;
    }
    this.part = [];
    this.partLen = 0;
    this.consumed += len + 1;
    const first = this.first;
    this.first = false;
    if (line && line.length <= LINE_CAP) this.decode(line, first);
  }

  private decode(line: Buffer, first: boolean): void {
    if (!first && this.outputOnly?.(line)) return;
    if (!first && rawOutputLine(line, 0, line.length, this.heads)) return;
    let o: unknown;
    try {
      o = JSON.parse(line.toString('utf8'));
    } catch {
      if (this.plain) this.keep({ role: 'assistant', text: line.toString('utf8') });
      return;
    }
    this.ecx.first = first;
    try {
      for (const p of this.ex(o, this.ecx)) this.keep(p);
    } catch {
      /* a record the extractor cannot read: as the scan, nothing of it */
    }
  }

  /** the pieces of a whole JSON document (a legacy Gemini session, opencode's old files) */
  whole(doc: unknown): void {
    try {
      for (const p of this.ex(doc, { first: true, st: {} })) this.keep(p);
    } catch {
      /* as above */
    }
  }

  private keep(p: Piece): void {
    if (p.role === 'tool-output' || !p.text) return;
    const flags = (p.copied ? F_COPIED : 0) | (p.summary ? F_SUMMARY : 0) | (p.write ? F_WRITE : 0);
    // kept as every other text of the index is: control characters out, secrets redacted (a word
    // inside a secret is then not settled here: that session is read)
    const text = sanitizeText(p.text.length > PIECE_CAP ? p.text.slice(0, PIECE_CAP) : p.text);
    const role = ROLE_AT.get(p.role) ?? 1;
    this.kept.push({ role, flags, key: pieceKey({ role: ROLES[role], text }), text });
  }
}

/**
 * A piece's id is its file's `sigs` id times FILE_SPAN plus its place in the file: a file's pieces
 * are one range of ids, found without an index of files (which, with a column naming each piece's
 * file, was 7% of the search index). A file has room for 2^24 pieces; past that (a transcript of
 * more than 16 million prompts and replies) the rest are not kept, and a search weighs that
 * session from the pieces it has when they hold every word.
 */
const SPAN_BITS = 24;
const FILE_SPAN = 2 ** SPAN_BITS;
/** the file of a piece id, in SQL */
const FILE_OF = `(p.id >> ${SPAN_BITS})`;

interface PieceStmts {
  id: Statement;
  last: Statement;
  add: Statement;
  addWords: Statement;
  dropWords: Statement;
  drop: Statement;
}

const stmts = new WeakMap<Db, PieceStmts>();

function prepared(db: Db): PieceStmts {
  let q = stmts.get(db);
  if (!q) {
    q = {
      id: db.prepare('SELECT id FROM sigs WHERE path = ?').pluck(),
      last: db.prepare('SELECT max(id) FROM pieces WHERE id BETWEEN ? AND ?').pluck(),
      add: db.prepare('INSERT INTO pieces(id, role, flags, key, text) VALUES(?,?,?,?,?)'),
      addWords: db.prepare('INSERT INTO words(rowid, text) VALUES(?, ?)'),
      // (an external-content table is told what it indexed to take it out)
      dropWords: db.prepare("INSERT INTO words(words, rowid, text) SELECT 'delete', id, text FROM pieces WHERE id BETWEEN ? AND ?"),
      drop: db.prepare('DELETE FROM pieces WHERE id BETWEEN ? AND ?'),
    };
    stmts.set(db, q);
  }
  return q;
}

/** the ids a file's pieces may have */
const spanOf = (id: number): [number, number] => [id * FILE_SPAN, id * FILE_SPAN + FILE_SPAN - 1];

/** the pieces of the ids [lo, hi] taken out, of the full-text table too */
function dropSpan(q: PieceStmts, lo: number, hi: number): void {
  q.dropWords.run(lo, hi);
  q.drop.run(lo, hi);
}

/**
 * Store a file's pieces (after those it has when `append`, else in place of them), under the id of
 * its row in `sigs` (written first).
 */
export function putPieces(db: Db, path: string, kept: Kept[], append: boolean): void {
  const q = prepared(db);
  const id = q.id.get(path) as number | undefined;
  if (id === undefined) return;
  const [lo, hi] = spanOf(id);
  if (!append) dropSpan(q, lo, hi);
  let next = append ? ((q.last.get(lo, hi) as number | null) ?? lo - 1) + 1 : lo;
  for (const k of kept) {
    if (next > hi) break;
    q.add.run(next, k.role, k.flags, k.key, k.text);
    q.addWords.run(next, k.text);
    next++;
  }
}

/** Forget a file's pieces (before its row in `sigs` goes). */
export function dropPieces(db: Db, path: string): void {
  const q = prepared(db);
  const id = q.id.get(path) as number | undefined;
  if (id !== undefined) dropSpan(q, ...spanOf(id));
}

/** The full-text query that finds the pieces that may hold a term: each of its words' tokens, as a prefix (null: none to look for). */
export function matchOf(t: Term): string | null {
  const toks = t.text.match(/[\p{L}\p{N}\p{M}\p{Co}]+/gu);
  if (!toks?.length) return null;
  return toks.map((k) => `"${k.replace(/"/g, '""')}"*`).join(' AND ');
}

/**
 * Whether a piece the full-text table gives for the term surely holds it: a word of ASCII letters and
 * digits only, looked for as one token's start (`webhook` in `webhooks`), is then in the text as the
 * term's own pattern finds it. Any other term (a phrase, punctuation, other letters, which the
 * tokenizer splits or folds otherwise) is checked against the text.
 */
const tokenOnly = (t: Term): boolean => !t.phrase && /^[A-Za-z0-9]+$/.test(t.text);

/**
 * The pieces that may hold a term, by file: those the full-text table gives. When every term is a
 * plain word (tokenOnly), which terms a piece holds is what the table says (a word inside a longer
 * one, `retrier` in `webhookretrier`, is not counted for a piece the table gave for another word),
 * and no text is read but a prompt's (to tell the first request); otherwise each is checked with the
 * terms' own patterns where it is weighed (score.ts collect keeps none that holds no term; a phrase's
 * words in another order do not). A term the table cannot look for gives none: the sessions holding
 * it are read. (Files by their row id, named once each: 274,000 pieces of a common word at 22,000
 * sessions each carried its file's path; their texts were most of such a reload's time.) `within`:
 * only some files' pieces, and the first prompts that make a prompt's text unneeded.
 */
export function piecesHolding(db: Db, terms: Term[], within: Within = {}): Map<string, FilePieces> {
  const { files } = within;
  if (files?.length === 0) return new Map();
  const pathOf = db.prepare('SELECT path FROM sigs WHERE id = ?').pluck();
  const g = new Gathered(terms.every(tokenOnly) && terms.length <= 31, terms.length === 1, (id) => {
    const file = pathOf.get(id) as string | undefined;
    return new FilePieces(file, file === undefined ? undefined : within.firsts?.get(file));
  });
  const user = ROLE_AT.get('user') ?? 0;
  const cols = `p.id, ${FILE_OF}, p.role, p.flags, p.key, ${g.byTable ? 'CASE WHEN p.role = ? THEN p.text END' : 'p.text'}`;
  const ids = files ? fileIds(db, files) : null;
  // only some files' pieces (a search from the group map): the table's answer cut to them in SQLite,
  // by the file its row id tells, before each piece is looked up (a word in every file, for 25 files
  // at 22,000 sessions: ~45 ms; cut by the piece's own id, after looking up all 274,000, ~120; those
  // into JavaScript, ~400; asking the table of each of the files' pieces by its row id was slower
  // still for a word's prefix, which the table expands again for every row asked about)
  const q = db
    .prepare(
      `SELECT ${cols} FROM words JOIN pieces p ON p.id = words.rowid WHERE words MATCH ?${ids === null ? '' : ` AND (words.rowid >> ${SPAN_BITS}) IN (SELECT value FROM json_each(?))`}`,
    )
    .raw();
  const args = (m: string): unknown[] => [...(g.byTable ? [user] : []), m, ...(ids === null ? [] : [ids])];
  for (let i = 0; i < terms.length; i++) {
    const m = matchOf(terms[i]);
    if (!m) continue;
    try {
      for (const r of q.iterate(...args(m)) as Iterable<PieceRow>) g.add(r, i);
    } catch {
      // a word the table's tokenizer splits otherwise (a phrase, which this table cannot answer):
      // the sessions it would have settled are read
    }
  }
  const byFile = new Map<string, FilePieces>();
  for (const fp of g.byId.values()) if (fp.file !== undefined) byFile.set(fp.file, fp);
  return byFile;
}

/** Which pieces piecesHolding gives: of `files` only, when given; `firsts`: the first prompt of each session's own transcript. */
export interface Within {
  files?: string[];
  /**
   * transcript → the first prompt of the one session whose own transcript it is (Session.file,
   * Session.firstPrompt): a prompt from it is then told to be that first prompt or not as it comes,
   * and its text is not kept. (A common word's 125,000 prompts at 22,000 sessions were kept for
   * that alone until the sessions were weighed, and copied by every collection on the way.)
   */
  firsts?: Map<string, string | null>;
}

/**
 * Each transcript that is one session's own, and that session's first prompt (Within.firsts). A
 * transcript two sessions name as their own is left out: its prompts are told apart when weighed.
 */
export function firstPrompts(sessions: Iterable<Session>): Map<string, string | null> {
  const out = new Map<string, string | null>();
  const twice = new Set<string>();
  for (const s of sessions) {
    if (out.has(s.file)) twice.add(s.file);
    out.set(s.file, s.firstPrompt ?? null);
  }
  for (const f of twice) out.delete(f);
  return out;
}

/** The row ids of these files' signatures, as a JSON array for json_each. */
function fileIds(db: Db, files: string[]): string {
  return JSON.stringify(
    db.prepare('SELECT id FROM sigs WHERE path IN (SELECT value FROM json_each(?))').pluck().all(JSON.stringify(files)),
  );
}

/** A row of piecesHolding's query: id, file id, role, flags, key, text (null: not read). */
type PieceRow = [number, number, number, number, number, string | null];

/** The pieces the table gave, by file id, each once, with the terms each was given for. */
class Gathered {
  readonly byId = new Map<number, FilePieces>();
  /**
   * file id → (a piece's place in its file → its place in the file's columns). By the place in the
   * file, a small integer: a map of the whole ids (past 2^31: not small integers to a map) was most
   * of gathering two words' pieces (~350 of ~1,400 ms at 22,000 sessions, with its garbage).
   */
  private readonly seen = new Map<number, Map<number, number>>();
  constructor(
    /** the terms a piece holds are the table's (tokenOnly), not checked against its text */
    readonly byTable: boolean,
    /** one term: no piece comes twice, and no map of 274,000 of them is kept */
    private readonly one: boolean,
    /** the columns of a file, by its id, with what Within tells of it */
    private readonly newFile: (id: number) => FilePieces,
  ) {}

  add(r: PieceRow, term: number): void {
    let fp = this.byId.get(r[1]);
    const place = r[0] % FILE_SPAN;
    const seen = this.one || !fp ? undefined : this.seen.get(r[1]);
    const had = seen?.get(place);
    if (fp && had !== undefined) {
      if (this.byTable) fp.mask[had] |= 1 << term;
      return;
    }
    if (!fp) {
      fp = this.newFile(r[1]);
      this.byId.set(r[1], fp);
    }
    if (!this.one) {
      if (seen) seen.set(place, fp.length);
      else this.seen.set(r[1], new Map([[place, fp.length]]));
    }
    // (a prompt's text is read only to tell the first; told here, it is not kept)
    const first = this.byTable && r[5] !== null ? fp.firstPrompt : undefined;
    fp.role.push(r[2]);
    fp.key.push(r[4]);
    if (first === undefined) {
      fp.flags.push(r[3]);
      fp.text.push(r[5] ?? '');
    } else {
      fp.flags.push(r[3] | F_TOLD | (startsAsFirst(first, r[5] ?? '') ? F_FIRST : 0));
      fp.text.push('');
    }
    if (this.byTable) fp.mask.push(1 << term);
  }
}
