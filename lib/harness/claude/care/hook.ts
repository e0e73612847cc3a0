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

type JsonObject = Record<string, unknown>;

function isObject(v: unknown): v is JsonObject {
  return typeof v === 'object' && v !== null;
}

/** Is this hook entry a command hook of ours? */
function ourEntry(h: unknown): h is JsonObject {
  return isObject(h) && h.type === 'command' && ours(h.command);
}

/** The text of settings.json, null when it does not exist. */
function readSettingsText(file: string): string | null {
  try {
    return fs.readFileSync(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw new Error(`cannot read ${file}: ${(err as NodeJS.ErrnoException).code}`);
  }
}

/** Parse settings.json; `byHand` says what to do when it is not JSON. */
function parseSettings(file: string, text: string, byHand: string): JsonObject {
  let settings: unknown;
  try {
    settings = JSON.parse(text);
  } catch (err) {
    throw new Error(`${file} is not valid JSON (${(err as Error).message}); ${byHand}`);
  }
  if (!isObject(settings) || Array.isArray(settings)) throw new Error(`${file} is not a JSON object`);
  return settings;
}

/** The permission bits of the file, 0600 when it cannot be read. */
function fileMode(file: string): number {
  try {
    return fs.statSync(file).mode & 0o777;
  } catch {
    return 0o600;
  }
}

/** Point every hook of ours in `stop` at `want`: was one found, was one changed? */
function updateOurs(stop: unknown[], want: string): { found: boolean; replaced: boolean } {
  let found = false;
  let replaced = false;
  for (const group of stop) {
    if (!isObject(group) || !Array.isArray(group.hooks)) continue;
    for (const h of group.hooks as unknown[]) {
      if (!ourEntry(h)) continue;
      found = true;
      if (h.command !== want) {
        h.command = want;
        replaced = true;
      }
    }
  }
  return { found, replaced };
}

/**
 * Merge the Stop hook into settings.json. An existing hook of ours with another binary path is
 * updated in place; one with this path leaves the file untouched. A settings file that is not a JSON
 * object is an error (nothing is written).
 */
export function writeHook(ctx: Ctx, bin: string, now = new Date()): WriteResult {
  const file = settingsFile(ctx);
  const text = readSettingsText(file);
  const settings: JsonObject = text?.trim() ? parseSettings(file, text, 'fix it or add the hook by hand (resume init claude-hook)') : {};
  const want = hookCommand(bin);
  if (settings.hooks != null && (typeof settings.hooks !== 'object' || Array.isArray(settings.hooks)))
    throw new Error(`${file}: "hooks" is not an object`);
  const hooks = (settings.hooks ?? {}) as JsonObject;
  if (hooks.Stop != null && !Array.isArray(hooks.Stop)) throw new Error(`${file}: "hooks.Stop" is not an array`);
  const stop = (hooks.Stop ?? []) as unknown[];
  const { found, replaced } = updateOurs(stop, want);
  if (found && !replaced) return { file, changed: false };
  if (!found) stop.push(...fragment(bin).hooks.Stop);
  settings.hooks = { ...hooks, Stop: stop };
  let backup: string | null = null;
  let mode = 0o600;
  if (text != null) {
    backup = backupName(file, now);
    mode = fileMode(file);
    fs.writeFileSync(backup, text, { mode: 0o600, flag: 'wx' });
  }
  writeAtomic(file, `${JSON.stringify(settings, null, 2)}\n`, mode);
  return { file, changed: true, backup, replaced };
}

/** How many hook entries of ours were (or, dry, would be) removed, and the backup written first (null: none removed). */
export type RemoveResult = { file: string; removed: number; backup: string | null };

/** The backup of settings.json written before a change, named by the time. */
const backupName = (file: string, now: Date) => `${file}.resume-backup-${now.toISOString().replace(/[:.]/g, '-')}`;

/** `stop` without our hook entries (groups left empty go), and how many went. */
function withoutOurs(stop: unknown[]): { stop: unknown[]; removed: number } {
  let removed = 0;
  const kept = stop.flatMap((group) => {
    if (!isObject(group) || !Array.isArray(group.hooks)) return [group];
    const hooks = group.hooks as unknown[];
    const rest = hooks.filter((h) => !ourEntry(h));
    if (rest.length === hooks.length) return [group];
    removed += hooks.length - rest.length;
    return rest.length ? [{ ...group, hooks: rest }] : [];
  });
  return { stop: kept, removed };
}

/**
 * `resume uninstall`: take our Stop hook out of settings.json again, after a backup, keeping every
 * other setting and hook. A group left with no hooks goes, then an empty `Stop`, then an empty
 * `hooks` (as --write found the file when it had none). `dryRun`: count only, write nothing.
 * A settings file that is not a JSON object is an error (nothing is written).
 */
export function removeHook(ctx: Ctx, now = new Date(), dryRun = false): RemoveResult {
  const file = settingsFile(ctx);
  const text = readSettingsText(file);
  if (text == null || !text.trim()) return { file, removed: 0, backup: null };
  const settings = parseSettings(file, text, 'take the Stop hook out by hand (its command ends in "resume snapshot --quiet")');
  const hooks = settings.hooks;
  if (!isObject(hooks) || Array.isArray(hooks) || !Array.isArray(hooks.Stop)) return { file, removed: 0, backup: null };
  const { stop, removed } = withoutOurs(hooks.Stop);
  if (!removed || dryRun) return { file, removed, backup: removed ? backupName(file, now) : null };
  if (stop.length) hooks.Stop = stop;
  else delete hooks.Stop;
  if (!Object.keys(hooks).length) delete settings.hooks;
  const mode = fileMode(file);
  const backup = backupName(file, now);
  fs.writeFileSync(backup, text, { mode: 0o600, flag: 'wx' });
  writeAtomic(file, `${JSON.stringify(settings, null, 2)}\n`, mode);
  return { file, removed, backup };
}
