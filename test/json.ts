// The JSON the CLI prints, as the tests read it: `ls --json` is lib/output.ts's JsonSession and
// `doctor --json` lib/commands/doctor.ts's Report; the shape of `search --json` (lib/commands/search.ts
// toJson) is not exported from lib, so it is written out here, the fields the tests read.

import type { HarnessReport, Report } from '../lib/commands/doctor.js';

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

/** One harness of `doctor --json` (its name a string: a build with a harness of its own prints it too). */
export type DoctorHarness = Omit<HarnessReport, 'name'> & { name: string };

/** `doctor --json`. */
export type Doctor = Omit<Report, 'harnesses'> & { harnesses: DoctorHarness[] };

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

/** The fields of every `ls --json` object (DESIGN.md), in its order. */
export const LS_JSON_FIELDS = [
  'harness',
  'id',
  'short',
  'cwd',
  'title',
  'firstPrompt',
  'lastPrompt',
  'prompts',
  'branch',
  'model',
  'started',
  'updated',
  'file',
  'hidden',
  'hiddenReason',
  'parent',
  'forkedFrom',
  'live',
  'pid',
  'resume',
];
