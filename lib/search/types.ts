// Shared types of deep search: what a harness's text extractor returns for one decoded record.

/** `metadata`: what the index or a transcript's header says about a session (title, branch, directory, commit) */
export type Role = 'user' | 'assistant' | 'tool-call' | 'tool-output' | 'task' | 'metadata';

/** Every role in one order, where a role is kept as a number (a worker's posted hits, the index's pieces). */
export const ROLES: readonly Role[] = ['user', 'assistant', 'tool-call', 'tool-output', 'task', 'metadata'];
/** A role's number in ROLES. */
export const ROLE_AT: ReadonlyMap<Role, number> = new Map(ROLES.map((r, i) => [r, i]));

/** One piece of searchable text from a transcript record. */
export interface Piece {
  role: Role;
  text: string;
  /** epoch ms of the record, when it has one */
  ts?: number | null;
  /** a copy of another session's turn (fork/spawn history) or of this session's own (compaction) */
  copied?: boolean;
  /** a tool call that writes or edits files */
  write?: boolean;
  /** a summary the harness wrote of earlier turns (compaction, branch summary) */
  summary?: boolean;
  /** score.ts pieceKey of it, when known already (a piece from the index) */
  key?: number;
  /** the terms it holds, when known without its text (a piece the index's full-text table gave) */
  mask?: number;
  /** a prompt: whether it is its session's first, when told without its text (a piece from the index) */
  first?: boolean | undefined;
}

/** A piece of text from a store several sessions share (prompt history), with the session it counts for. */
export interface SharedPiece {
  key: string;
  p: Piece;
  file: string;
  via: string;
}

/** Per-file context handed to an extractor: `st` is free per-file state (the first line is always decoded). */
export interface ExtractCtx {
  first: boolean;
  st: Record<string, unknown>;
}

/** Turns one decoded record (a JSONL line, a JSON document, a database row) into text pieces. */
export type Extractor = (rec: unknown, cx: ExtractCtx) => Piece[];

/** What a harness's search hooks may use to read a store that is not a transcript file. */
export interface ScanIO {
  /** the database, opened read-only once per scan (null when it cannot be opened: counted unreadable) */
  db(file: string): import('../harness/sqlite.js').Db | null;
  /** ` AND (instr(lower(col), ?) > 0 OR …)` with its arguments: the rows that may hold a term ('' when none can be said in SQL) */
  sqlFilter(col: string): { sql: string; args: string[] };
  /** a whole JSON document, prefiltered by the terms (undefined when too big, no term in it, or not JSON) */
  readDoc(file: string): unknown;
  /** count one file (or database) read */
  counted(bytes?: number): void;
}

/** Text from a store several sessions share (Claude's `history.jsonl`), with the session each line belongs to. */
export interface SharedSource {
  file: string;
  /** what the store is, for the results (`prompt history`) */
  label: string;
  /** the session a record belongs to (by key `<harness>:<id>`), or null */
  owner(rec: unknown): string | null;
  /** the text of a record */
  extract(rec: unknown): Piece[];
}

/**
 * What deep search asks of a harness beyond its text extractor (lib/harness/<name>/text.ts exports
 * them as `search`). Every hook is optional: a harness with plain JSONL transcripts needs none.
 */
export interface SearchHooks {
  /** Transcript files kept beside a session that are not sessions of their own (subagents), searched with it. */
  children?(s: import('../types.js').Session): string[];
  /** Read a session whose store is not a JSONL/JSON transcript (a database, a directory of parts); false: not handled here. */
  scan?(s: import('../types.js').Session, io: ScanIO, emit: (p: Piece, file: string) => void): boolean;
  /** Bytes a JSONL line starts with (within its first 4 KiB) when it holds only tool output: a long one is never decoded. */
  rawHead?: string[];
  /**
   * Whether a JSONL line can hold only tool output (judged from its bytes, true only when that is
   * certain): such a line is not decoded once its text could no longer change the results.
   */
  outputOnly?(line: Buffer): boolean;
  /** Parents the index does not record (workers of a session): session key → parent id. */
  parents?(all: import('../types.js').Session[]): Map<string, string>;
  /** The id of a transcript record, for `abandoned` (null: no id). */
  recordId?(rec: unknown): string | null;
  /**
   * A fresh reader of a transcript's tree: it is shown every line in file order (`line`: the bytes
   * of one line, a view valid during the call; `parse`: the line decoded, null when it is not JSON;
   * decoding every line costs several times the scan, so look at the bytes first), then asked for
   * the ids of the records that lie only on abandoned branches (null when that cannot be told).
   * Search shows it the lines while it searches them, so a transcript is read once.
   */
  branches?(): BranchTracker;
  /**
   * The tree reader looks at no more than this many bytes at the start of a line (where the harness
   * writes a record's own ids): a long line read in pieces is then not assembled for it.
   */
  branchHead?: number;
  /**
   * With `branchHead`: and at no more than this many bytes at the end of a line (where the harness
   * writes the rest of them). A long line read in pieces is then handed to the tree reader as its
   * head and tail joined (exactly `branchHead` bytes, then at most `branchTail`), with `cut` set:
   * what is not in them must be had from `parse`, which reads the line whole again from the file.
   */
  branchTail?: number;
  /** Stores shared by sessions (prompt history), found from the sessions' files. */
  shared?(all: import('../types.js').Session[]): SharedSource[];
}

/** What `SearchHooks.branches` returns: fed every line of one transcript, in order. */
export interface BranchTracker {
  /** `cut`: `line` is only the head and tail of a longer line (SearchHooks.branchTail) */
  visit(line: Buffer, parse: () => unknown, cut?: boolean): void;
  /** the ids of records only on abandoned branches, or null when that cannot be told */
  result(): Set<string> | null;
}
