// Restore on resume: before a Claude session is resumed, its snapshotted tasks go back into its task
// directory (tasks.ts: missing files only, high-water mark only raised). A fork starts a new session
// with its own list, so for a fork the snapshotted tasks are reported, not restored.
import fs from 'node:fs';
import path from 'node:path';
import type { Ctx, Session } from '../../../types.js';
import { tildify } from '../../../util/paths.js';
import { clip, oneLine } from '../../../util/text.js';
import { rootOfTranscript } from './registry.js';
import { readNames, readSnapshot, storeDir } from './store.js';
import { planRestore, restore, taskDir } from './tasks.js';
import { compareVersions, installedVersion, parseVersion } from './version.js';

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
    return [
      `the fork starts with its own task list; ${ids.length} snapshotted task(s) of ${s.id} stay in ${show(path.join(storeDir(ctx), `${s.id}.json`))}: ${subjects.join('; ')}${ids.length > 5 ? '; …' : ''}`,
    ];
  }
  // The directory this session's list lives in: the recorded pairing, else <root>/tasks/<id>.
  const root = rootOfTranscript(s.file) ?? snap.root;
  const dir = snap.taskDir ?? taskDir(root, snap.taskListId || s.id);
  if (!dir) return [];
  const list = { tasks: snap.tasks, highwatermark: snap.highwatermark };
  const plan = planRestore(dir, list);
  const done = o.dryRun ? plan : restore(plan, list);
  const verb = o.dryRun ? 'would restore' : 'restored';
  if (!done.add.length && !done.hwm)
    return o.dryRun ? [`tasks: all ${ids.length} snapshotted task(s) already in ${show(dir)}; nothing to restore`] : [];
  const parts = [`${verb} ${done.add.length} task(s)${done.add.length ? ` (#${done.add.join(', #')})` : ''} into ${show(dir)}`];
  if (done.present.length) parts.push(`${done.present.length} already there (kept)`);
  if (done.hwm) parts.push(`.highwatermark ${done.hwm.from ?? 'none'} → ${done.hwm.to}`);
  return [`tasks: ${parts.join('; ')}`];
}

/**
 * The first claude checked to take `--name` together with `--resume`: it appends a `custom-title`
 * record with that name to the resumed transcript (2.1.332, against a mock model). Older builds are
 * not known to accept the flag, and an unknown flag would stop the launch.
 */
export const NAME_FLAG_SINCE = '2.1.332';
const NAME_FLAG_SINCE_PARTS = NAME_FLAG_SINCE.split('.').map(Number);

/**
 * The `/rename` name `resume snapshot` kept, when the transcript has lost it (no `custom-title`
 * record of its own) and the user gave no `--name`/`-n` after `--`: `--name NAME` for the launch, so
 * claude writes it back itself (resume never writes Claude's transcript for it). A note for stderr
 * either way; nothing for a fork (a new session) or a session with no kept name.
 */
export function nameBack(ctx: Ctx, s: Session, fork: boolean, extra: string[]): { args: string[]; note: string | null } {
  const none = { args: [], note: null };
  if (s.harness !== 'claude' || fork) return none;
  const name = readNames(storeDir(ctx))[s.id];
  if (!name || extra.some((a) => a === '--name' || a === '-n' || a.startsWith('--name='))) return none;
  let text: string;
  try {
    text = fs.readFileSync(s.file, 'utf8');
  } catch {
    return none;
  }
  if (/"type"\s*:\s*"custom-title"/.test(text)) return none;
  const shownName = JSON.stringify(oneLine(name));
  const v = installedVersion(ctx);
  if ('error' in v)
    return {
      args: [],
      note: `the name ${shownName} kept by resume snapshot is not given back: the installed claude version cannot be told (${v.error})`,
    };
  const have = parseVersion(v.version);
  if (!have || compareVersions(have, NAME_FLAG_SINCE_PARTS) < 0)
    return {
      args: [],
      note: `the name ${shownName} kept by resume snapshot is not given back: claude ${v.version} is older than ${NAME_FLAG_SINCE}, the first checked to take --name with --resume`,
    };
  return {
    args: ['--name', name],
    note: `the name ${shownName} kept by resume snapshot goes back to claude (--name): its transcript has lost it`,
  };
}
