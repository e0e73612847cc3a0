// `resume init claude-hook [--write]`: the Stop hook that runs `resume snapshot --quiet` after every
// turn. Hooks run without an interactive shell's PATH, so the command names this binary by its
// absolute path. --write merges the fragment into the `hooks` object of Claude's settings.json
// (CLAUDE_CONFIG_DIR, else ~/.claude), keeping every other setting, after a backup; run again, it
// changes nothing.

import fs from 'node:fs';
import path from 'node:path';
import type { Ctx } from '../../../types.js';
import { writeAtomic } from '../../../util/fsx.js';
import { expandHome } from '../../../util/paths.js';
import { quoteSh } from '../../../util/quote.js';

export function settingsFile(ctx: Ctx): string {
  const cfg = ctx.env.CLAUDE_CONFIG_DIR;
  const root = cfg ? path.resolve(expandHome(cfg, ctx.home)) : path.join(ctx.home, '.claude');
  return path.join(root, 'settings.json');
}

export function hookCommand(bin: string): string {
  return `${quoteSh(bin)} snapshot --quiet`;
}

export function fragment(bin: string): { hooks: { Stop: { hooks: { type: string; command: string }[] }[] } } {
  return { hooks: { Stop: [{ hooks: [{ type: 'command', command: hookCommand(bin) }] }] } };
}

/** Is this a hook command of ours (any resume binary's `snapshot --quiet`)? */
function ours(cmd: unknown): boolean {
  return typeof cmd === 'string' && /(^|[/'"\s])resume'?\s+snapshot\s+--quiet\s*$/.test(cmd);
}

export type WriteResult = { file: string; changed: false } | { file: string; changed: true; backup: string | null; replaced: boolean };

/**
 * Merge the Stop hook into settings.json. An existing hook of ours with another binary path is
 * updated in place; one with this path leaves the file untouched. A settings file that is not a JSON
 * object is an error (nothing is written).
 */
export function writeHook(ctx: Ctx, bin: string, now = new Date()): WriteResult {
  const file = settingsFile(ctx);
  let text: string | null = null;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw new Error(`cannot read ${file}: ${(err as NodeJS.ErrnoException).code}`);
  }
  let settings: Record<string, any> = {};
  if (text != null && text.trim()) {
    try {
      settings = JSON.parse(text);
    } catch (err) {
      throw new Error(`${file} is not valid JSON (${(err as Error).message}); fix it or add the hook by hand (resume init claude-hook)`);
    }
    if (!settings || typeof settings !== 'object' || Array.isArray(settings)) throw new Error(`${file} is not a JSON object`);
  }
  const want = hookCommand(bin);
  if (settings.hooks != null && (typeof settings.hooks !== 'object' || Array.isArray(settings.hooks)))
    throw new Error(`${file}: "hooks" is not an object`);
  const hooks: Record<string, any> = settings.hooks ?? {};
  if (hooks.Stop != null && !Array.isArray(hooks.Stop)) throw new Error(`${file}: "hooks.Stop" is not an array`);
  const stop: any[] = hooks.Stop ?? [];
  let found = false;
  let replaced = false;
  for (const group of stop) {
    if (!group || !Array.isArray(group.hooks)) continue;
    for (const h of group.hooks) {
      if (h && h.type === 'command' && ours(h.command)) {
        found = true;
        if (h.command !== want) {
          h.command = want;
          replaced = true;
        }
      }
    }
  }
  if (found && !replaced) return { file, changed: false };
  if (!found) stop.push(fragment(bin).hooks.Stop[0]);
  settings.hooks = { ...hooks, Stop: stop };
  let backup: string | null = null;
  let mode = 0o600;
  if (text != null) {
    backup = backupName(file, now);
    try {
      mode = fs.statSync(file).mode & 0o777;
    } catch {
      /* keep 0600 */
    }
    fs.writeFileSync(backup, text, { mode: 0o600, flag: 'wx' });
  }
  writeAtomic(file, JSON.stringify(settings, null, 2) + '\n', mode);
  return { file, changed: true, backup, replaced };
}

/** How many hook entries of ours were (or, dry, would be) removed, and the backup written first (null: none removed). */
export type RemoveResult = { file: string; removed: number; backup: string | null };

/** The backup of settings.json written before a change, named by the time. */
const backupName = (file: string, now: Date) => `${file}.resume-backup-${now.toISOString().replace(/[:.]/g, '-')}`;

/**
 * `resume uninstall`: take our Stop hook out of settings.json again, after a backup, keeping every
 * other setting and hook. A group left with no hooks goes, then an empty `Stop`, then an empty
 * `hooks` (as --write found the file when it had none). `dryRun`: count only, write nothing.
 * A settings file that is not a JSON object is an error (nothing is written).
 */
export function removeHook(ctx: Ctx, now = new Date(), dryRun = false): RemoveResult {
  const file = settingsFile(ctx);
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { file, removed: 0, backup: null };
    throw new Error(`cannot read ${file}: ${(err as NodeJS.ErrnoException).code}`);
  }
  if (!text.trim()) return { file, removed: 0, backup: null };
  let settings: any;
  try {
    settings = JSON.parse(text);
  } catch (err) {
    throw new Error(
      `${file} is not valid JSON (${(err as Error).message}); take the Stop hook out by hand (its command ends in "resume snapshot --quiet")`,
    );
  }
  if (!settings || typeof settings !== 'object' || Array.isArray(settings)) throw new Error(`${file} is not a JSON object`);
  const hooks = settings.hooks;
  if (!hooks || typeof hooks !== 'object' || Array.isArray(hooks) || !Array.isArray(hooks.Stop)) return { file, removed: 0, backup: null };
  let removed = 0;
  const stop = hooks.Stop.flatMap((group: any) => {
    if (!group || !Array.isArray(group.hooks)) return [group];
    const kept = group.hooks.filter((h: any) => !(h && h.type === 'command' && ours(h.command)));
    if (kept.length === group.hooks.length) return [group];
    removed += group.hooks.length - kept.length;
    return kept.length ? [{ ...group, hooks: kept }] : [];
  });
  if (!removed || dryRun) return { file, removed, backup: removed ? backupName(file, now) : null };
  if (stop.length) hooks.Stop = stop;
  else delete hooks.Stop;
  if (!Object.keys(hooks).length) delete settings.hooks;
  let mode = 0o600;
  try {
    mode = fs.statSync(file).mode & 0o777;
  } catch {
    /* keep 0600 */
  }
  const backup = backupName(file, now);
  fs.writeFileSync(backup, text, { mode: 0o600, flag: 'wx' });
  writeAtomic(file, JSON.stringify(settings, null, 2) + '\n', mode);
  return { file, removed, backup };
}
