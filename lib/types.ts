// The session model and the one interface every harness adapter implements.
// Adding a harness = a folder under lib/harness/<name>/ plus its line in lib/harness/registry.ts:
// the harness names (`HARNESSES`, the `Harness` type) are derived from that list.

export { HARNESSES, type Harness } from './harness/registry.js';

import type { Harness } from './harness/registry.js';

/** What the index keeps per session (no conversation: prompts clipped to 400 characters). */
export interface SessionCore {
  harness: Harness;
  id: string;
  cwd: string | null;
  /** Explicit title (custom name, AI title, summary); null when the harness has none. */
  title: string | null;
  firstPrompt: string | null;
  lastPrompt: string | null;
  /** Last assistant reply, clipped; for the preview. */
  lastReply: string | null;
  prompts: number;
  branch: string | null;
  model: string | null;
  /** epoch milliseconds */
  started: number | null;
  updated: number | null;
  file: string;
  hidden: boolean;
  hiddenReason: string | null;
  parent: string | null;
  forkedFrom: string | null;
  /** Extra files that belong to this session (subagent transcripts), for search and doctor. */
  children?: string[];
  /**
   * Every prompt, each clipped to 400 characters (promptText), in order: for naming by words. Kept
   * in the index's per-source state, never in the listing (`rows` does not load it); see
   * lib/index/prompts.ts.
   */
  allPrompts?: string[];
  /**
   * Adapter-private key of sessions that may share history (Claude: the first prompt's uuid), for
   * an adapter whose `finish` only relates sessions with the same key (`Finish.byLink`).
   */
  link?: string | null;
}

export interface Session extends SessionCore {
  /** stable key, unique across harnesses: `<harness>:<id>` */
  key: string;
}

/** Environment an adapter reads its roots from (tests pass a fake one). */
export interface Ctx {
  env: NodeJS.ProcessEnv;
  home: string;
  /** the demo: the user's own config file, read for the picker's settings only (lib/launch/config.ts) */
  userConfig?: string;
}

export interface Root {
  path: string;
  /** what chose it: an env variable name, a setting, or `default` */
  via: string;
  exists: boolean;
  /** adapter-defined role of the root (e.g. `data`, `config`, `projects`) */
  role?: string;
}

/** A file the index tracks. The adapter names it; the index stats it. */
export interface Source {
  path: string;
  harness: Harness;
  /** adapter-defined: `session`, `subagent`, `archived`, `titles`, `db`, … */
  kind: string;
  /**
   * `lines`: append-only JSONL; parsed incrementally from the cached byte offset.
   * `whole`: re-read whole when it (or one of `deps`) changed.
   */
  mode: 'lines' | 'whole';
  /** Extra files whose size/mtime count for change detection (SQLite -wal). */
  deps?: string[];
  /** Adapter-private hint carried from discovery to parsing (JSON-serialisable). */
  hint?: unknown;
}

export interface Counters {
  /** lines that were not JSON objects */
  badLines: number;
  /** lines skipped for size without decoding */
  hugeLines: number;
  /** record types the parser does not know, with counts */
  unknownTypes: Record<string, number>;
  /** records or rows skipped, by reason (`message rows with bad JSON: 3`), for doctor */
  skipped?: Record<string, number>;
}

/**
 * Incremental parse state of one `lines` source. Must be JSON-serialisable: it is stored in the
 * index and continued when the file grows. Its `all` (a session's prompts, jsonl.ts Talk) is stored
 * apart, as the prompts the index keeps, and put back, sanitised, when the parse continues: a parser
 * must not tell a prompt from its sanitised form, and a finish pass that needs prompts' texts keeps
 * its own copy of them in the state (Claude Code's `pt`), since stored states have no `all`.
 */
export type LineState = Record<string, unknown> & { counters?: Counters };

export interface LaunchSpec {
  argv: string[];
  /** variables to set for the harness (only ever to point it at a non-default store) */
  env?: Record<string, string>;
}

/**
 * One changed source of a harness with `finish.some`, as an update hands it over: what the pass
 * reads of its state (`finish.reads`) before the change (null for a new source) and after it (null
 * for a gone one), and its sessions now, before the pass (none when gone). `before` is a copy two
 * levels deep of the stored state (the parse continues that state in place): a harness with
 * `finish.some` replaces what lies deeper (a name's `[text, time]`), never changes it in place.
 */
export interface FinishChange<S> {
  src: Source;
  before: S | null;
  after: S | null;
  now: SessionCore[];
}

/** What an update gives `finish.some` to read. */
export interface FinishIO<S> {
  ctx: Ctx;
  /**
   * This harness's sessions in the index as it stands before the change that mention one of `ids`
   * anywhere in their record: every session with one of those ids, or linked to one (a superset: the
   * caller checks which fields hold it).
   */
  mentioning(ids: Iterable<string>): Session[];
  /** the paths of this harness's sources whose file name contains `part` */
  find(part: string): string[];
  /** The stored entries of these unchanged sources (their states, their sessions before the finish pass); one that cannot be read is left out. */
  load(paths: string[]): Map<string, { src: Source; state: S; sessions: SessionCore[] }>;
}

/**
 * A line as a reader hands it to an adapter: `buf[start, end)`, without its newline. `complete` is
 * false for a line cut at the size cap. `at` is where the line starts in the file when the caller
 * will call `settle` at the end of the file, so a line may be left undecoded and read back then;
 * without it, decode every line. (One object per reader, set again for each line: a call per line
 * with an object made for each was measurable on a build of a million lines.)
 */
export interface Line {
  buf: Buffer;
  start: number;
  end: number;
  complete: boolean;
  at?: number;
}
/**
 * How an adapter reads a `lines` source: line by line, from the start or from where the last read
 * stopped, continuing the state kept then (Adapter.lines).
 */
export interface LineReader<S extends LineState = LineState> {
  /** The state of a source read from its start. */
  begin(src: Source): S;
  /** One line of the file (a Line: the reader's one object, reused for every line, so keep none of it but copies). */
  line(state: S, l: Line): void;
  /**
   * At the end of the lines read (before `sessions`): decode what `line` put off, reading it back
   * with `read(at, length)` (null when the file no longer has those bytes). Only what the last lines
   * decide (the model, the last reply) is put off, and never kept in a stored state.
   */
  settle?(state: S, read: (at: number, length: number) => Buffer | null): void;
  /**
   * A line longer than one read (1 MiB), given its first 8 KiB: worth assembling whole? When not,
   * `line` gets only its first 8 KiB and last 1 KiB with `complete = false`. Default: assemble.
   */
  wantLong?(state: S, head: Buffer): boolean;
}

/**
 * A harness's cross-source pass (Adapter.finish): titles from side files, dedupe, linking forks and
 * children to their parents.
 */
export interface Finish<S extends LineState = LineState> {
  /** The pass over this harness's sessions. `states` maps source path to its state and source. */
  all(sessions: SessionCore[], ctx: Ctx, states: Map<string, { src: Source; state: S }>): SessionCore[];
  /**
   * The part of a source's state that the pass reads (it must give the same result from these as
   * from the whole states). The index stores it beside the whole state, and a build keeps only this
   * of each state once the source is written, so the prompts and texts of every source are not all
   * held at once; a pass over stored sources reads only this. Without it the whole state is used.
   */
  reads?(state: S, src: Source): S;
  /**
   * The pass over the sources a change concerns, not every source, so that an update can stay
   * partial. Returns the files whose sessions it gave again (every changed source that is not gone
   * among them) and those sessions, as `all` over every source would give them; null when only a
   * pass over every source is sure (the update then takes one).
   */
  some?(changes: FinishChange<S>[], io: FinishIO<S>): { files: string[]; sessions: SessionCore[] } | null;
  /**
   * With `Adapter.perSource`: the pass only relates sessions sharing a `link` key (forks). A change
   * to files whose sessions share their keys with no other session (an append, a new file once
   * parsed, a removed one) cannot change any link, so the index still updates those files alone;
   * one that shares its key takes a full pass.
   */
  byLink?: boolean;
}

/**
 * What deep search and the transcript view load of a harness, lazily (lib/harness/<name>/text.ts),
 * so a listing never pays for it and lib/search knows no harness by name.
 */
export interface SearchParts {
  /** The text extractor: a transcript record's prompts, replies, tool calls and output. */
  text(): Promise<import('./search/types.js').Extractor>;
  /** The hooks: children, database scanners, raw-head markers, branches, shared stores. */
  hooks?(): Promise<import('./search/types.js').SearchHooks>;
}

/**
 * Everything resume knows about one harness. `N` is the adapter's name as a literal type: the
 * registry derives the `Harness` union from its list of adapters, so every adapter states it.
 *
 * The core every adapter has: who it is (name to testedVersion), where its sessions are (`roots`,
 * `discover`), how to read them (`lines` and/or `whole`, as its sources' `mode` asks, then
 * `sessions`) and how to start one (`launch`). Then the parts a harness has or not: a cross-source
 * pass (`finish`) and deep search (`search`); and two promises the index takes at their word
 * (`listsOnly`, `perSource`).
 */
export interface Adapter<S extends LineState = LineState, N extends string = Harness> {
  /** `[a-z][a-z0-9]*`: the `--harness` word, the `<harness>:` of keys and of `<harness>:<prefix>`. */
  name: N;
  /** Human name for messages. */
  label: string;
  /** Binaries that run this harness, preferred first. */
  binaries: string[];
  /**
   * Every environment variable `roots`/`discover` read (RESUME_<NAME>_DIRS included): `--demo`
   * clears them so the demo never reads the real stores. test/new-harness.test.ts checks the list.
   */
  envVars: readonly string[];
  /** xterm-256 colour index of the harness name in listings, the picker and previews. */
  color: number;
  /**
   * The newest client version the adapter was checked against (the version whose transcripts are
   * recorded in test/fixtures/real/, kept in sync with test/real/clients.json); null when none is
   * recorded. `resume doctor` reports an installed client newer than this as possible drift.
   */
  testedVersion: string | null;
  roots(ctx: Ctx): Root[];
  /** Names the sources under the existing roots. Only readdir here: never open a transcript. */
  discover(ctx: Ctx, roots: Root[]): Source[];
  /**
   * `discover` reads the filesystem only through lib/util/fsx.ts (`entries`, `walk`,
   * `direntIsDir`), so its result follows from the directories it listed: while their stats stand
   * (and the roots are the same), the index reuses the sources found last time without running it
   * (lib/index/discmemo.ts). Sources with `deps` or a `hint`, and symlinked directories, still run it.
   */
  listsOnly?: boolean;
  /** Reads a source of `mode: 'lines'`. */
  lines?: LineReader<S>;
  /** Reads a source of `mode: 'whole'` (and its deps) into a state. */
  whole?(src: Source, ctx: Ctx): Promise<S> | S;
  /** Sessions described by one source's state (0 or more). */
  sessions(state: S, src: Source): SessionCore[];
  /**
   * Each source's sessions depend on that source alone and carry its path in `file`, so a change
   * replaces only that source's sessions in the index: true without `finish`, or with a `finish`
   * that relates sessions by their link key only (`finish.byLink`).
   */
  perSource?: boolean;
  finish?: Finish<S>;
  search?: SearchParts;
  /**
   * How to resume (or fork) a session; a string is a refusal the user can fix. With `ctx` (the
   * user's environment), `env` points the harness at the store the session was found in when that
   * is not the store the harness would use by default (`CLAUDE_CONFIG_DIR`, `CODEX_HOME`, …).
   */
  launch(s: SessionCore, opts: { fork: boolean; ctx?: Ctx }): LaunchSpec | string;
}
