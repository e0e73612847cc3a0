// The audit trail of `resume hooks run`: `runs.jsonl` in the state directory, one JSON object a
// line, mode 0600 in a 0700 directory, rotated at 1 MiB (the previous file is kept as runs.jsonl.1).
// It holds the program's base name only (never its arguments) and a scrubbed tail of its stderr:
// secrets redacted and the hook's own argument values replaced (a webhook URL passed as an argument
// and echoed in an error message is a secret no pattern knows).
import fs from 'node:fs';
import path from 'node:path';
import { makeDir } from '../util/fsx.js';
import { sanitize } from '../util/redact.js';

export const ROTATE_AT = 1 << 20;
export const TAIL = 240;

/** What started a `hooks run`: the installed watcher, a person (`manual`), or `hooks install` (its baseline). */
export const TRIGGERS = ['watcher', 'manual', 'install'] as const;
export type Trigger = (typeof TRIGGERS)[number];

export interface RunRecord {
  time: string;
  harness: string;
  /** absent in records written before it was kept */
  trigger?: Trigger;
  /** hook: one hook ran; baseline: first version recorded; retry-abandoned; unsettled; error; interrupted */
  event: 'hook' | 'baseline' | 'unsettled' | 'error' | 'interrupted' | 'retry-abandoned';
  old_version: string | null;
  new_version: string | null;
  /** 1-based position in [[resume.on_update]], or null */
  hook: number | null;
  /** "restart" or "command" */
  kind: 'restart' | 'command' | null;
  /** the program's base name only (never the arguments), or null */
  program: string | null;
  /** exit code (restart: 0 complete, 1 not), or null when it did not exit by itself */
  exit_code: number | null;
  /** set when it was stopped: "timeout", "signal SIGKILL", … */
  stopped: string | null;
  duration_ms: number | null;
  /** a scrubbed, one-line tail of its stderr (at most 240 characters), or a note */
  stderr_tail: string;
  /** which retry of a pending restart (1 = the first run) */
  attempt?: number;
}

/** Argument values shorter than this stay: `-v`, `on`, `1` would blank out ordinary words. */
export const ARG_MIN = 5;

/**
 * The last `TAIL` characters of text, one line, control characters stripped, secrets redacted, and
 * each of `args` (the hook's arguments, argv[1..]) of ARG_MIN characters or more replaced by
 * `[REDACTED:argument-N]`, as is the value of a `--name=value` argument.
 */
export function scrubTail(text: string, n = TAIL, args: readonly string[] = []): string {
  // Redact a window much larger than what is kept, so a secret is matched whole before the cut.
  let win = text.length > 8192 ? text.slice(-8192) : text;
  const vals: [string, number][] = [];
  args.forEach((a, i) => {
    vals.push([a, i + 1]);
    const [, value] = /^-[^=]*=(.+)$/s.exec(a) ?? [];
    if (value !== undefined) vals.push([value, i + 1]);
  });
  // longest first, so a value inside another is not replaced half
  for (const [v, i] of vals.filter(([v]) => v.length >= ARG_MIN).sort((a, b) => b[0].length - a[0].length))
    win = win.split(v).join(`[REDACTED:argument-${i}]`);
  const clean = sanitize(win);
  const cps = Array.from(clean);
  return cps.length <= n ? clean : cps.slice(-n).join('');
}

function ensureDir(dir: string): void {
  makeDir(dir);
  try {
    fs.chmodSync(dir, 0o700);
  } catch {
    /* not ours */
  }
}

/** Append one record; rotate first when the file has reached 1 MiB. */
export function appendRun(file: string, rec: RunRecord, rotateAt = ROTATE_AT): void {
  ensureDir(path.dirname(file));
  try {
    if (fs.statSync(file).size >= rotateAt) fs.renameSync(file, `${file}.1`);
  } catch {
    /* no file yet */
  }
  const fd = fs.openSync(file, 'a', 0o600);
  try {
    fs.fchmodSync(fd, 0o600);
    fs.writeSync(fd, `${JSON.stringify(rec)}\n`);
  } finally {
    fs.closeSync(fd);
  }
}

function readLines(file: string): RunRecord[] {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch {
    return [];
  }
  const out: RunRecord[] = [];
  for (const l of text.split('\n')) {
    if (!l) continue;
    try {
      out.push(JSON.parse(l) as RunRecord);
    } catch {
      /* a torn line */
    }
  }
  return out;
}

/** The last n records, oldest first (reaching into runs.jsonl.1 when the current file has fewer). */
export function lastRuns(file: string, n: number): RunRecord[] {
  let recs = readLines(file);
  if (recs.length < n) recs = [...readLines(`${file}.1`), ...recs];
  return recs.slice(-n);
}
