// The snapshot store: one JSON record per Claude session under `$XDG_CONFIG_HOME/resume/sessions/`
// (else `~/.config/resume/sessions/`; macOS: `~/Library/Application Support/resume/sessions/`),
// directory 0700, files 0600, every write a temp file and a rename. `names.json` beside the records
// maps session id → snapshotted name, so a listing reads one small file, not the whole store.

import fs from 'node:fs';
import path from 'node:path';
import type { Ctx } from '../../../types.js';
import { makeDir, writeAtomic } from '../../../util/fsx.js';
import { byId, type TaskBody } from './tasks.js';

export const FORMAT = 1;

export interface Snapshot {
  format: number;
  id: string;
  /** the Claude config directory the session lives in */
  root: string;
  cwd: string | null;
  version: string | null;
  /** the /rename name from the live registry (null when never named) */
  name: string | null;
  /** transcript path when it was seen */
  transcript: string | null;
  /** task directory pairing: list id and directory (the list id is the session id unless CLAUDE_CODE_TASK_LIST_ID was set) */
  taskListId: string;
  taskDir: string | null;
  highwatermark: number | null;
  tasks: Record<string, TaskBody>;
  pid: number | null;
  startedAt: number | null;
  /** first and latest snapshot, epoch ms */
  first: number;
  last: number;
}

export function storeDir(ctx: Ctx, platform = process.platform): string {
  if (platform === 'darwin') return path.join(ctx.home, 'Library', 'Application Support', 'resume', 'sessions');
  const xdg =
    ctx.env.XDG_CONFIG_HOME && path.isAbsolute(ctx.env.XDG_CONFIG_HOME) ? ctx.env.XDG_CONFIG_HOME : path.join(ctx.home, '.config');
  return path.join(xdg, 'resume', 'sessions');
}

const ID = /^[A-Za-z0-9_-]{1,128}$/;

export function validId(id: string): boolean {
  return ID.test(id);
}

function ensureDir(dir: string): void {
  makeDir(dir);
  try {
    fs.chmodSync(dir, 0o700);
  } catch {
    /* not ours to fix */
  }
}

/** Write a file atomically with mode 0600, in a private directory (0700 even when it existed). */
function writeStored(file: string, text: string): void {
  ensureDir(path.dirname(file));
  writeAtomic(file, text);
}

export function readSnapshot(dir: string, id: string): Snapshot | null {
  if (!validId(id)) return null;
  try {
    const o = JSON.parse(fs.readFileSync(path.join(dir, `${id}.json`), 'utf8'));
    if (!o || typeof o !== 'object' || o.id !== id || typeof o.tasks !== 'object' || !o.tasks) return null;
    return o as Snapshot;
  } catch {
    return null;
  }
}

/** Session ids with a record in the store. */
export function listSnapshots(dir: string): string[] {
  let names: string[];
  try {
    names = fs.readdirSync(dir);
  } catch {
    return [];
  }
  return names.filter((n) => n.endsWith('.json') && n !== 'names.json' && validId(n.slice(0, -5))).map((n) => n.slice(0, -5));
}

/** Merge a new capture into the earlier record: tasks by id (a later body wins, none is dropped), never shrinking. */
export function merge(old: Snapshot | null, now: Snapshot): Snapshot {
  if (!old) return now;
  const tasks: Record<string, TaskBody> = { ...old.tasks, ...now.tasks };
  const sorted: Record<string, TaskBody> = Object.fromEntries(Object.entries(tasks).sort(([a], [b]) => byId(a, b)));
  const hwm = Math.max(old.highwatermark ?? -1, now.highwatermark ?? -1);
  return {
    ...now,
    name: now.name ?? old.name,
    cwd: now.cwd ?? old.cwd,
    version: now.version ?? old.version,
    transcript: now.transcript ?? old.transcript,
    taskDir: now.taskDir ?? old.taskDir,
    highwatermark: hwm >= 0 ? hwm : null,
    tasks: sorted,
    first: Math.min(old.first ?? now.first, now.first),
  };
}

export function saveSnapshot(dir: string, s: Snapshot): void {
  if (!validId(s.id)) return;
  writeStored(path.join(dir, `${s.id}.json`), `${JSON.stringify(s, null, 2)}\n`);
}

/** id → name, from names.json (empty when missing or bad). */
/** The names kept for sessions (`/rename`), in the store `dir`. */
export function namesFile(dir: string): string {
  return path.join(dir, 'names.json');
}

export function readNames(dir: string): Record<string, string> {
  try {
    const o = JSON.parse(fs.readFileSync(namesFile(dir), 'utf8'));
    if (!o || typeof o !== 'object' || Array.isArray(o)) return {};
    const out: Record<string, string> = {};
    for (const [k, v] of Object.entries(o)) if (typeof v === 'string' && v) out[k] = v;
    return out;
  } catch {
    return {};
  }
}

/** Set (or, with null, drop) names in names.json; rewrites only when something changed. */
export function updateNames(dir: string, changes: Record<string, string | null>): void {
  const names = readNames(dir);
  let changed = false;
  for (const [id, name] of Object.entries(changes)) {
    if (name == null) {
      if (id in names) {
        delete names[id];
        changed = true;
      }
    } else if (names[id] !== name) {
      names[id] = name;
      changed = true;
    }
  }
  if (changed) writeStored(namesFile(dir), `${JSON.stringify(names, null, 2)}\n`);
}

// ---- pruning ----

const DAY = 24 * 3600 * 1000;
/** Nothing is kept longer than this after its last snapshot (a live session is snapshotted afresh). */
export const CEILING_DAYS = 180;

/** The usual true words of an environment switch: 1, yes, true, on (any case). */
export function envOn(v: string | undefined): boolean {
  return v != null && /^(1|yes|true|on)$/i.test(v.trim());
}
/** The guard: a pass that would retire more than half of a store of at least this many records refuses. */
export const GUARD_MIN = 5;

export interface PruneResult {
  ran: boolean;
  /** why it did not run or refused (a refusal only the first time in a row: see `.prune-refused`) */
  note: string | null;
  retired: string[];
  /** of `retired`, those past the 180-day ceiling (their transcript still there) */
  aged: string[];
}

/**
 * Retire records whose session's transcript is gone (whatever their age), and records not
 * snapshotted for 180 days (a live session never: `transcriptOf` says `live`). Runs at most once a
 * day (stamp file `.pruned`); off with RESUME_NO_PRUNE set to 1, yes, true or on. A pass that would
 * retire most of a store of five or more records for a missing transcript refuses: that is a broken
 * lookup (a moved config directory, an unmounted disk), not a clean-up. The refusal is said once:
 * `.prune-refused` remembers it until a pass is not refused.
 */
export function prune(ctx: Ctx, dir: string, transcriptOf: (s: Snapshot) => string | null, now = Date.now(), force = false): PruneResult {
  const noPrune = ctx.env.RESUME_NO_PRUNE;
  if (noPrune != null && envOn(noPrune))
    return { ran: false, note: `pruning is off (RESUME_NO_PRUNE=${noPrune.trim()})`, retired: [], aged: [] };
  const stamp = path.join(dir, '.pruned');
  const refusedMark = path.join(dir, '.prune-refused');
  if (!force) {
    try {
      if (now - fs.statSync(stamp).mtimeMs < DAY) return { ran: false, note: null, retired: [], aged: [] };
    } catch {
      /* never pruned */
    }
  }
  const ids = listSnapshots(dir);
  const gone: string[] = [];
  const aged: string[] = [];
  for (const id of ids) {
    const s = readSnapshot(dir, id);
    if (!s) continue; // unreadable: left alone
    const t = transcriptOf(s);
    if (!t) gone.push(id);
    else if (t !== 'live' && now - s.last > CEILING_DAYS * DAY) aged.push(id);
  }
  writeStored(stamp, `${new Date(now).toISOString()}\n`);
  if (ids.length >= GUARD_MIN && gone.length * 2 > ids.length) {
    const said = fs.existsSync(refusedMark);
    if (!said) writeStored(refusedMark, `${new Date(now).toISOString()}\n`);
    const note = said
      ? null
      : `pruning refused: ${gone.length} of ${ids.length} snapshot records have no transcript, which looks like a broken lookup (moved or unmounted Claude directory), not a clean-up; said once, until a pass finds them`;
    return { ran: true, note, retired: [], aged: [] };
  }
  fs.rmSync(refusedMark, { force: true });
  for (const id of [...gone, ...aged]) {
    try {
      fs.unlinkSync(path.join(dir, `${id}.json`));
    } catch {
      /* gone already */
    }
  }
  const retired = [...gone, ...aged];
  if (retired.length) updateNames(dir, Object.fromEntries(retired.map((id) => [id, null])));
  return { ran: true, note: null, retired, aged };
}
