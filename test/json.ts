// The JSON the CLI prints, as the tests read it: `ls --json` is lib/output.ts's JsonSession; the
// shapes of `search --json` (lib/commands/search.ts toJson) and `doctor --json` (lib/commands/doctor.ts
// Report) are not exported from lib, so they are written out here, the fields the tests read.

import type { Root } from '../lib/types.js';

export type { JsonSession as Listed } from '../lib/output.js';

/** One piece of evidence of a `search --json` result. */
export interface FoundEvidence {
  role: 'user' | 'assistant' | 'tool-call' | 'tool-output' | 'task' | 'metadata';
  file: string;
  subagent: boolean;
  copied: boolean;
  abandoned: boolean;
  via: string | null;
  text: string;
  matches: [number, number][];
}

/** One result of `search --json`. */
export interface Found {
  harness: string;
  id: string;
  short: string;
  cwd: string | null;
  title: string | null;
  started: string | null;
  updated: string | null;
  date: string;
  file: string;
  subagentFiles: string[];
  hidden: string | null;
  kind: 'original' | 'follow-up';
  original: boolean;
  confidence: 'high' | 'medium' | 'low';
  score: number;
  evidence: FoundEvidence[];
  resume: { cwd: string | null; argv: string[]; env?: Record<string, string> } | null;
}

interface Program {
  name: string;
  path: string;
  version: string | null;
}

/** One harness of `doctor --json`. */
export interface DoctorHarness {
  name: string;
  label: string;
  roots: Root[];
  files: number;
  filesByKind: Record<string, number>;
  sessions: number;
  hidden: Record<string, number>;
  skipped: { badLines: number; hugeLines: number; reasons: Record<string, number>; failedFiles: number; failed: string | null };
  unknownTypes: { type: string; count: number }[];
  newest: { id: string; updated: string | null; cwd: string | null; title: string | null } | null;
  noPrompt: { count: number; files: string[] };
  tested: string | null;
  binary: Program | null;
  newerThanTested: boolean;
}

/** `doctor --json`. */
export interface Doctor {
  version: string;
  demo: boolean;
  config: { file: string; state: 'read' | 'absent' | 'unreadable' | 'bad'; error: string | null };
  index: { dir: string; files: { path: string; size: number; files: number; modified: string }[] };
  fzf: Program | null;
  shell: string | null;
  sqlite: { ok: boolean; version: string | null; error: string | null };
  skipped: { notRegular: number; unreadable: number };
  harnesses: DoctorHarness[];
  claudeCare: { live: number; snapshots: number; store: string; warnings: string[] };
  hooks: {
    configured: number;
    installed: boolean;
    loaded: boolean | null;
    loadedDetail: string;
    recorded: string | null;
    pending: string[];
    lastRun: { time: string; event: string; hook: number | null; result: string } | null;
    warnings: string[];
  };
}

/** A session of a recorded set's manifest.json (test/real/record.mjs). */
export interface Recorded {
  id: string;
  cwd: string;
  prompts: string[];
  title: string | null;
  mode: string;
  parent: string | null;
  forkedFrom: string | null;
  titleCopiedFromParent?: boolean;
  copiedPrompts?: string[];
  /** in a `-starts` set: argv (interactive, first prompt on the command line), typed, or print */
  started?: string;
  workspaceName?: string;
  userNamed?: boolean;
}

/** A recorded set's manifest.json: the client, its version, and what each session is. */
export interface Manifest {
  client: string;
  version: string;
  sessions: Recorded[];
}

/**
 * A transcript line decoded, in whichever client's format (docs/harnesses.md): a test's predicate
 * reads it field by field, as the adapters do, so it is not typed here.
 */
// biome-ignore lint/suspicious/noExplicitAny: a decoded transcript line in any client's format, read field by field
export type Decoded = any;
