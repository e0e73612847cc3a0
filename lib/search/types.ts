// Shared types of deep search: what a harness's text extractor returns for one decoded record.

/** `metadata`: what the index or a transcript's header says about a session (title, branch, directory, commit) */
export type Role = 'user' | 'assistant' | 'tool-call' | 'tool-output' | 'task' | 'metadata';

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
}

/** Per-file context handed to an extractor: `st` is free per-file state (the first line is always decoded). */
export interface ExtractCtx {
  first: boolean;
  st: Record<string, any>;
}

/** Turns one decoded record (a JSONL line, a JSON document, a database row) into text pieces. */
export type Extractor = (rec: any, cx: ExtractCtx) => Piece[];
