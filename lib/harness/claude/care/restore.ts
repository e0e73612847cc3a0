// Restore on resume: before a Claude session is resumed, its snapshotted tasks go back into its task
// directory (tasks.ts: missing files only, high-water mark only raised). A fork starts a new session
// with its own list, so for a fork the snapshotted tasks are reported, not restored.
import path from 'node:path';
import type { Ctx, Session } from '../../../types.js';
import { rootOfTranscript } from './registry.js';
import { readSnapshot, storeDir } from './store.js';
import { planRestore, restore, taskDir } from './tasks.js';
import { clip, oneLine } from '../../../util/text.js';
import { tildify } from '../../../util/paths.js';

export interface RestoreOpts {
  fork: boolean;
  dryRun: boolean;
}

/** Notes for stderr (empty when the session has no snapshot or no tasks in it). Throws on a write error. */
export function restoreBeforeLaunch(ctx: Ctx, s: Session, o: RestoreOpts): string[] {
  if (s.harness !== 'claude') return [];
  const snap = readSnapshot(storeDir(ctx), s.id);
  if (!snap) return [];
  const ids = Object.keys(snap.tasks);
  if (!ids.length) return [];
  const show = (p: string) => oneLine(tildify(p, ctx.home));
  if (o.fork) {
    const subjects = ids.slice(0, 5).map((id) => `#${id} ${clip(oneLine(String(snap.tasks[id]?.subject ?? '')), 40)}`);
    return [`the fork starts with its own task list; ${ids.length} snapshotted task(s) of ${s.id} stay in ${show(path.join(storeDir(ctx), `${s.id}.json`))}: ${subjects.join('; ')}${ids.length > 5 ? '; …' : ''}`];
  }
  // The directory this session's list lives in: the recorded pairing, else <root>/tasks/<id>.
  const root = rootOfTranscript(s.file) ?? snap.root;
  const dir = snap.taskDir ?? taskDir(root, snap.taskListId || s.id);
  if (!dir) return [];
  const list = { tasks: snap.tasks, highwatermark: snap.highwatermark };
  const plan = planRestore(dir, list);
  const done = o.dryRun ? plan : restore(plan, list);
  const verb = o.dryRun ? 'would restore' : 'restored';
  if (!done.add.length && !done.hwm) return o.dryRun ? [`tasks: all ${ids.length} snapshotted task(s) already in ${show(dir)}; nothing to restore`] : [];
  const parts = [`${verb} ${done.add.length} task(s)${done.add.length ? ` (#${done.add.join(', #')})` : ''} into ${show(dir)}`];
  if (done.present.length) parts.push(`${done.present.length} already there (kept)`);
  if (done.hwm) parts.push(`.highwatermark ${done.hwm.from ?? 'none'} → ${done.hwm.to}`);
  return [`tasks: ${parts.join('; ')}`];
}
