// `resume snapshot`: for every live Claude session (the registry), record what its exit destroys:
// the /rename name (only in the registry) and its task files (Claude deletes the session's task
// directory when it ends), with the task-directory pairing and recovery metadata. Records merge by
// task id and never shrink.
import fs from 'node:fs';
import type { Ctx } from '../../../types.js';
import { oneLine } from '../../../util/text.js';
import { findTranscript, liveEntries, procEnviron, type RegEntry } from './registry.js';
import {
  listSnapshots,
  merge,
  type PruneResult,
  prune,
  readSnapshot,
  type Snapshot,
  saveSnapshot,
  storeDir,
  updateNames,
  validId,
} from './store.js';
import { readTasks, taskDir } from './tasks.js';

export interface Captured {
  id: string;
  name: string | null;
  tasks: number;
  added: number;
}

/** The task list a live process uses: CLAUDE_CODE_TASK_LIST_ID from its environment, else its session id. */
export function taskListOf(e: RegEntry): string {
  const env = procEnviron(e.pid);
  const v = env?.CLAUDE_CODE_TASK_LIST_ID;
  return v && /^[A-Za-z0-9_-]{1,128}$/.test(v) ? v : e.sessionId;
}

export function captureOne(dir: string, e: RegEntry, now: number): Captured | null {
  if (!validId(e.sessionId)) return null;
  const listId = taskListOf(e);
  const tdir = taskDir(e.root, listId);
  const list = tdir ? readTasks(tdir) : { tasks: {}, highwatermark: null };
  const old = readSnapshot(dir, e.sessionId);
  const fresh: Snapshot = {
    format: 1,
    id: e.sessionId,
    root: e.root,
    cwd: e.cwd,
    version: e.version,
    name: e.name ? oneLine(e.name) : null,
    transcript: findTranscript(e.root, e.sessionId),
    taskListId: listId,
    taskDir: tdir,
    highwatermark: list.highwatermark,
    tasks: list.tasks,
    pid: e.pid,
    startedAt: e.startedAt,
    first: now,
    last: now,
  };
  const merged = merge(old, fresh);
  const before = old ? Object.keys(old.tasks).length : 0;
  if (!old || JSON.stringify({ ...old, last: 0 }) !== JSON.stringify({ ...merged, last: 0 })) saveSnapshot(dir, merged);
  return { id: e.sessionId, name: merged.name, tasks: Object.keys(merged.tasks).length, added: Object.keys(merged.tasks).length - before };
}

export interface SnapshotRun {
  dir: string;
  captured: Captured[];
  failed: { id: string; error: string }[];
  prune: PruneResult | null;
}

/** Capture every live session, then prune (at most daily). Never throws: errors are collected. */
export function snapshotAll(ctx: Ctx, now = Date.now()): SnapshotRun {
  const dir = storeDir(ctx);
  const run: SnapshotRun = { dir, captured: [], failed: [], prune: null };
  let live: RegEntry[] = [];
  try {
    live = liveEntries(ctx);
  } catch (err) {
    run.failed.push({ id: '-', error: (err as Error).message });
  }
  const names: Record<string, string> = {};
  for (const e of live) {
    try {
      const c = captureOne(dir, e, now);
      if (c) {
        run.captured.push(c);
        if (c.name) names[c.id] = c.name;
      }
    } catch (err) {
      run.failed.push({ id: e.sessionId, error: (err as NodeJS.ErrnoException).code ?? (err as Error).message });
    }
  }
  try {
    if (Object.keys(names).length) updateNames(dir, names);
  } catch (err) {
    run.failed.push({ id: 'names.json', error: (err as NodeJS.ErrnoException).code ?? (err as Error).message });
  }
  try {
    if (fs.existsSync(dir) && listSnapshots(dir).length) {
      const liveIds = new Set(live.map((e) => e.sessionId));
      // A live session is never retired (a new one has no transcript until its first turn).
      run.prune = prune(
        ctx,
        dir,
        (s) => (liveIds.has(s.id) ? 'live' : s.transcript && fs.existsSync(s.transcript) ? s.transcript : findTranscript(s.root, s.id)),
        now,
      );
    }
  } catch (err) {
    run.failed.push({ id: 'prune', error: (err as NodeJS.ErrnoException).code ?? (err as Error).message });
  }
  return run;
}
