// Claude Code's task lists: `<config dir>/tasks/<task list id>/<task id>.json`, one JSON object per
// task ({id, subject, description, activeForm?, owner?, status, blocks, blockedBy, metadata?} in
// 2.1.332), and `.highwatermark`, the highest task id handed out so far. The task list id is the
// session id unless CLAUDE_CODE_TASK_LIST_ID names a shared list.
//
// Restoring is one of the two places this tool writes into Claude's directory (DESIGN.md): it only
// adds task files that are missing (a file the live list already has always wins, nothing is
// overwritten) and raises `.highwatermark`, never lowers it. Run twice, the second run changes nothing.

import fs from 'node:fs';
import path from 'node:path';
import { makeDir, writeAtomic } from '../../../util/fsx.js';

export type TaskBody = Record<string, unknown>;

export interface TaskList {
  tasks: Record<string, TaskBody>;
  highwatermark: number | null;
}

const TASK_FILE = /^([A-Za-z0-9_-]{1,64})\.json$/;

/** The task directory for a list id under a config directory (null for an id that is not a plain name). */
export function taskDir(root: string, listId: string): string | null {
  if (!/^[A-Za-z0-9_-]{1,128}$/.test(listId)) return null;
  return path.join(root, 'tasks', listId);
}

/** The tasks in a directory (a missing directory is an empty list; unreadable or bad files are skipped). */
export function readTasks(dir: string): TaskList {
  const out: TaskList = { tasks: {}, highwatermark: readHwm(dir) };
  let names: string[];
  try {
    names = fs.readdirSync(dir);
  } catch {
    return out;
  }
  for (const n of names) {
    const id = TASK_FILE.exec(n)?.[1];
    if (!id) continue;
    try {
      const o = JSON.parse(fs.readFileSync(path.join(dir, n), 'utf8'));
      if (o && typeof o === 'object' && !Array.isArray(o)) out.tasks[id] = o;
    } catch {
      /* being written: the next snapshot sees it */
    }
  }
  return out;
}

function readHwm(dir: string): number | null {
  try {
    const n = Number(fs.readFileSync(path.join(dir, '.highwatermark'), 'utf8').trim());
    return Number.isInteger(n) && n >= 0 ? n : null;
  } catch {
    return null;
  }
}

/** The highest numeric task id among the given ids (task ids are counters in 2.1.x). */
export function maxNumericId(ids: string[]): number | null {
  let max: number | null = null;
  for (const id of ids) if (/^\d+$/.test(id)) max = Math.max(max ?? 0, Number(id));
  return max;
}

export interface RestorePlan {
  dir: string;
  /** task ids that would be (or were) written */
  add: string[];
  /** snapshotted task ids the directory already has (the live file wins) */
  present: string[];
  hwm: { from: number | null; to: number } | null;
}

/** What restoring `snap` into `dir` would do (writes nothing). */
export function planRestore(dir: string, snap: TaskList): RestorePlan {
  const have = readTasks(dir);
  const add: string[] = [];
  const present: string[] = [];
  for (const id of Object.keys(snap.tasks).sort(byId))
    (id in have.tasks || fs.existsSync(path.join(dir, `${id}.json`)) ? present : add).push(id);
  const want = Math.max(snap.highwatermark ?? 0, maxNumericId(Object.keys(snap.tasks)) ?? 0);
  // A client that keeps no .highwatermark (2.1.332 with every task present) is left without one:
  // the mark is written only alongside restored files, or raised where one exists.
  const touch = add.length > 0 || have.highwatermark != null;
  const hwm = touch && want > (have.highwatermark ?? 0) ? { from: have.highwatermark, to: want } : null;
  return { dir, add, present, hwm };
}

/** Restore: write the missing task files (exclusive create: a file that appears meanwhile wins), raise the high-water mark. */
export function restore(plan: RestorePlan, snap: TaskList): RestorePlan {
  const written: string[] = [];
  const present = [...plan.present];
  if (plan.add.length || plan.hwm) makeDir(plan.dir);
  for (const id of plan.add) {
    const f = path.join(plan.dir, `${id}.json`);
    try {
      fs.writeFileSync(f, JSON.stringify(snap.tasks[id], null, 2), { flag: 'wx', mode: 0o600 });
      written.push(id);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'EEXIST') present.push(id);
      else throw err;
    }
  }
  let hwm = plan.hwm;
  if (hwm) {
    // Read again just before writing: only ever raise it.
    const now = readHwm(plan.dir);
    if (now != null && now >= hwm.to) hwm = null;
    else {
      writeAtomic(path.join(plan.dir, '.highwatermark'), String(hwm.to));
    }
  }
  return { dir: plan.dir, add: written, present: present.sort(byId), hwm };
}

export function byId(a: string, b: string): number {
  const na = /^\d+$/.test(a) ? Number(a) : NaN;
  const nb = /^\d+$/.test(b) ? Number(b) : NaN;
  if (!Number.isNaN(na) && !Number.isNaN(nb)) return na - nb;
  return a < b ? -1 : a > b ? 1 : 0;
}
