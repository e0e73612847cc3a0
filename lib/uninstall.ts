// `resume uninstall`: take away what resume wrote outside its cache, then its own stores. Each thing
// is one step, said on stderr as it is done (or, with --dry-run, as it would be):
//   1. shell lines: resume never writes a shell's rc file, so the `resume init` lines a person added
//      are named (file, line) for them to remove; no rc file is edited;
//   2. the Claude Code Stop hook `resume init claude-hook --write` merged into settings.json: that
//      entry only, after a backup;
//   3. the watcher `resume hooks install` wrote (systemd user units, a launchd agent): stopped and
//      disabled first where systemctl/launchctl can be reached, then its files;
//   4. the cache (the index), the snapshot store and the state directory (update hooks' state).
// A directory is removed whole only when everything in it is a name resume writes there; anything
// else is left and named. The harnesses' own stores are never touched, nor the config (the user's).
import fs from 'node:fs';
import path from 'node:path';
import { removeHook, settingsFile } from './harness/claude/care/hook.js';
import { storeDir } from './harness/claude/care/store.js';
import { call, LABEL, launchdFile, systemdDir, UNIT, userBus } from './hooks/install.js';
import type { Ctx } from './types.js';
import { cacheDir, configFile, stateDir, tildify } from './util/paths.js';
import { oneLine } from './util/text.js';
import { onPath } from './util/which.js';

export interface Step {
  /** the line said when it is done (or, for a step the person does by hand, what to do) */
  done: string;
  /** the line --dry-run says instead */
  dry: string;
  /** the removal; none for a step the person does by hand */
  run?: () => void;
}

/** A step that removes `what`. */
const removal = (what: string, run: () => void): Step => ({ done: `removed ${what}`, dry: `would remove ${what}`, run });
/** What stays, and why. */
const leaving = (what: string): Step => ({ done: `left ${what}`, dry: `would leave ${what}` });
/** What the person is to do (the same with --dry-run). */
const byHand = (what: string): Step => ({ done: what, dry: what });

export interface Plan {
  steps: Step[];
  /** cache directories this run empties: the code cache the run itself writes at exit goes again (removeAgainAtExit) */
  recheck: string[];
}

const show = (ctx: Ctx, p: string) => tildify(p, ctx.home);

/** The rc files a person puts `resume init` in (resume itself writes none of them). */
export function rcFiles(ctx: Ctx): string[] {
  const home = ctx.home;
  const zdot = ctx.env.ZDOTDIR && path.isAbsolute(ctx.env.ZDOTDIR) ? ctx.env.ZDOTDIR : home;
  const xdg = ctx.env.XDG_CONFIG_HOME && path.isAbsolute(ctx.env.XDG_CONFIG_HOME) ? ctx.env.XDG_CONFIG_HOME : path.join(home, '.config');
  const fish = path.join(xdg, 'fish');
  let confd: string[] = [];
  try {
    confd = fs
      .readdirSync(path.join(fish, 'conf.d'))
      .filter((n) => n.endsWith('.fish'))
      .sort()
      .map((n) => path.join(fish, 'conf.d', n));
  } catch {
    /* no conf.d */
  }
  const files = [
    ...['.zshrc', '.zshenv', '.zprofile', '.zlogin'].map((n) => path.join(zdot, n)),
    ...['.bashrc', '.bash_profile', '.bash_login', '.profile'].map((n) => path.join(home, n)),
    path.join(fish, 'config.fish'),
    ...confd,
  ];
  return [...new Set(files)];
}

/** A line that loads the integration (`eval "$(resume init zsh)"`, `resume init fish | source`, any path to resume); comments aside. */
const INIT_LINE = /^(?!\s*#).*\bresume['"]?\s+init\s+['"]?(zsh|bash|fish)\b/;

export function shellLines(ctx: Ctx): { file: string; line: number; text: string }[] {
  const out: { file: string; line: number; text: string }[] = [];
  for (const file of rcFiles(ctx)) {
    let text: string;
    try {
      text = fs.readFileSync(file, 'utf8');
    } catch {
      continue;
    }
    text.split('\n').forEach((l, i) => {
      if (INIT_LINE.test(l)) out.push({ file, line: i + 1, text: oneLine(l.trim()) });
    });
  }
  return out;
}

/**
 * Names resume writes in its cache directory (lib/index/index.ts indexFiles and the files of older
 * versions it removes, lib/index/rowsout.ts, the code cache, the demo's index), each also as a temp
 * file (`NAME.tmp-…`). Exact: RESUME_CACHE_DIR may name a directory that holds other files too.
 */
const CACHE_NAME =
  /^(index\.db(-wal|-shm|-journal)?|list\.json|rows\.json|rows\.bin|list\.patch|check\.bin|check\.patch|list\.idx|links\.bin|reach\.json|dirs\.json|index\.lock|state|state\.json|files\.json|code|demo|dirs|(rows|ls)(-all)?\.out|complete\.out|rows-align[\w-]*\.out)(\.tmp-[\w-]+)?$/;
/** …in the snapshot store (store.ts): one record per session, names.json, the prune stamp. */
const STORE_NAME = /^[A-Za-z0-9_-]{1,128}\.json$|^\.pruned$|\.tmp-/;
/** …in the state directory (hooks/run.ts, hooks/audit.ts, care/restart.ts); on macOS it holds the snapshot store too. */
const STATE_NAME = /^(hooks\.json|runs\.jsonl(\.1)?|hooks\.lock|restart\.lock|sessions)$|\.tmp-/;

/** Is `dir` one that must never be removed whole: /, HOME, or above HOME? */
function tooHigh(dir: string, home: string): boolean {
  const rel = path.relative(dir, home);
  return dir === path.parse(dir).root || rel === '' || !rel.startsWith('..');
}

function entries(dir: string): fs.Dirent[] | null {
  try {
    return fs.readdirSync(dir, { withFileTypes: true });
  } catch {
    return null;
  }
}

/** A store of resume's: its directory, what to call it, the names in it that are resume's, and paths in it left alone. */
interface Store {
  dir: string;
  what: string;
  ours: RegExp;
  skip?: string[];
}

/** Steps that remove a store of resume's: whole when all of it is resume's, else the names that are, the rest named. */
function storeSteps(ctx: Ctx, { dir, what, ours, skip = [] }: Store, plan: Plan): void {
  const list = entries(dir);
  if (!list) return;
  const mine = list.filter((e) => ours.test(e.name) && !skip.includes(path.join(dir, e.name)));
  const other = list.filter((e) => !ours.test(e.name) && !skip.includes(path.join(dir, e.name)));
  const kept = list.length - mine.length - other.length;
  if (tooHigh(dir, ctx.home)) {
    plan.steps.push(leaving(`${what} ${show(ctx, dir)}: it is your home directory or above it; remove resume's files there by hand`));
    return;
  }
  if (!other.length && !kept) {
    plan.steps.push(removal(`${what} ${show(ctx, dir)}`, () => fs.rmSync(dir, { recursive: true, force: true })));
    return;
  }
  if (mine.length) {
    plan.steps.push(
      removal(`${what} in ${show(ctx, dir)}: ${mine.map((e) => e.name).join(', ')}`, () => {
        for (const e of mine) fs.rmSync(path.join(dir, e.name), { recursive: true, force: true });
      }),
    );
  }
  if (other.length) plan.steps.push(leaving(`${show(ctx, dir)}: ${other.map((e) => oneLine(e.name)).join(', ')} (not written by resume)`));
}

/** The files of the watcher `resume hooks install` writes on this platform. */
function unitPaths(ctx: Ctx, platform: NodeJS.Platform): string[] {
  if (platform === 'darwin') return [launchdFile(ctx)];
  return ['path', 'timer', 'service'].map((x) => path.join(systemdDir(ctx), `${UNIT}.${x}`));
}

const WRITTEN_BY = /Written by `resume hooks install`/;

function unitSteps(ctx: Ctx, platform: NodeJS.Platform, plan: Plan): void {
  const files = unitPaths(ctx, platform).filter((f) => fs.existsSync(f));
  const mine = files.filter((f) => {
    try {
      return WRITTEN_BY.test(fs.readFileSync(f, 'utf8'));
    } catch {
      return false;
    }
  });
  for (const f of files) if (!mine.includes(f)) plan.steps.push(leaving(`${show(ctx, f)} (not written by resume hooks install)`));
  const dir = systemdDir(ctx);
  // what `systemctl --user enable` linked (removed by disable; by hand where systemctl is not reached)
  const wants =
    platform === 'darwin'
      ? []
      : [path.join(dir, 'default.target.wants', `${UNIT}.path`), path.join(dir, 'timers.target.wants', `${UNIT}.timer`)].filter((l) =>
          isLink(l),
        );
  if (!mine.length && !wants.length) return;
  if (platform === 'darwin') {
    const target = `gui/${process.getuid?.() ?? 501}/${LABEL}`;
    if (onPath('launchctl', ctx.env.PATH ?? '')) {
      plan.steps.push({
        done: `unloaded the launchd agent ${LABEL} (launchctl bootout ${target})`,
        dry: `would unload the launchd agent ${LABEL} (launchctl bootout ${target})`,
        run: () => void call(ctx, 'launchctl', ['bootout', target]),
      });
    }
  } else {
    const units = [`${UNIT}.path`, `${UNIT}.timer`];
    if (onPath('systemctl', ctx.env.PATH ?? '') && userBus(ctx)) {
      const what = `${units.join(', ')} and ${UNIT}.service (systemctl --user disable --now)`;
      plan.steps.push({
        done: `stopped and disabled ${what}`,
        dry: `would stop and disable ${what}`,
        run: () => {
          const c = call(ctx, 'systemctl', ['--user', 'disable', '--now', ...units]);
          if (!c.ok) throw new Error(`systemctl --user disable --now failed: ${oneLine(c.out).slice(0, 200)}`);
          call(ctx, 'systemctl', ['--user', 'stop', `${UNIT}.service`]);
        },
      });
    } else {
      plan.steps.push(
        byHand(
          `no systemd user bus reached from here: if ${units.join(' and ')} run in your session, run there: systemctl --user stop ${units.join(' ')} && systemctl --user daemon-reload`,
        ),
      );
    }
  }
  for (const l of wants) {
    // (gone by then when disable ran; force: nothing to say twice)
    plan.steps.push(removal(`${show(ctx, l)} (the link systemctl enable made)`, () => fs.rmSync(l, { force: true })));
  }
  for (const f of mine) plan.steps.push(removal(show(ctx, f), () => fs.rmSync(f, { force: true })));
  if (platform !== 'darwin' && mine.length && onPath('systemctl', ctx.env.PATH ?? '') && userBus(ctx)) {
    plan.steps.push({
      done: 'reloaded systemd (systemctl --user daemon-reload)',
      dry: 'would reload systemd (systemctl --user daemon-reload)',
      run: () => void call(ctx, 'systemctl', ['--user', 'daemon-reload']),
    });
  }
}

function isLink(p: string): boolean {
  try {
    return fs.lstatSync(p).isSymbolicLink();
  } catch {
    return false;
  }
}

/** Everything uninstall would do, in order; nothing is changed until a step runs. */
export function plan(ctx: Ctx, opts: { platform?: NodeJS.Platform; now?: Date } = {}): Plan {
  const platform = opts.platform ?? process.platform;
  // (one time for the backup's name: the one said is the one written)
  const now = opts.now ?? new Date();
  const p: Plan = { steps: [], recheck: [] };
  // 1. shell lines: named, never edited
  for (const l of shellLines(ctx)) {
    p.steps.push(byHand(`remove by hand from ${show(ctx, l.file)}, line ${l.line}: ${l.text}`));
  }
  // 2. the Claude Stop hook
  let hook = false;
  try {
    const r = removeHook(ctx, now, true);
    if (r.removed) {
      hook = true;
      p.steps.push(
        removal(
          `the Stop hook (resume snapshot --quiet) from ${show(ctx, r.file)} (backup: ${r.backup ? show(ctx, r.backup) : 'none'})`,
          () => void removeHook(ctx, now),
        ),
      );
    }
  } catch (err) {
    p.steps.push(leaving(`the Stop hook: ${(err as Error).message}`));
  }
  const file = settingsFile(ctx);
  const backups = (entries(path.dirname(file)) ?? []).filter((e) => e.name.startsWith(`${path.basename(file)}.resume-backup-`));
  // (the one this run writes is counted too)
  const n = backups.length + (hook ? 1 : 0);
  if (n)
    p.steps.push(
      leaving(
        `${n} backup${n > 1 ? 's' : ''} of ${show(ctx, file)} (${path.basename(file)}.resume-backup-*): yours to delete once you no longer need them`,
      ),
    );
  // 3. the update hooks' watcher
  unitSteps(ctx, platform, p);
  // 4. the stores
  const cache = cacheDir(ctx);
  storeSteps(ctx, { dir: cache, what: 'the cache', ours: CACHE_NAME }, p);
  if (!tooHigh(cache, ctx.home)) p.recheck.push(cache);
  const store = storeDir(ctx, platform);
  storeSteps(ctx, { dir: store, what: 'the snapshot store', ours: STORE_NAME }, p);
  const state = stateDir(ctx, platform);
  // (macOS: the snapshot store is inside the state directory: what it holds that is not resume's stays)
  const storeClean = (entries(store) ?? []).every((e) => STORE_NAME.test(e.name));
  const skip = platform === 'darwin' && !storeClean ? [store] : [];
  storeSteps(ctx, { dir: state, what: 'the state directory', ours: STATE_NAME, skip }, p);
  const cfg = configFile(ctx);
  if (fs.existsSync(cfg)) p.steps.push(leaving(`${show(ctx, cfg)} (your config)`));
  else if (platform !== 'darwin' && storeClean && path.dirname(store) === path.dirname(cfg)) {
    // the config directory, made for the snapshot store alone
    const dir = path.dirname(cfg);
    const rest = (entries(dir) ?? []).filter((e) => e.name !== path.basename(store));
    if (fs.existsSync(dir) && !rest.length)
      p.steps.push(removal(`${show(ctx, dir)} (empty without the snapshot store)`, () => fs.rmSync(dir, { recursive: true, force: true })));
  }
  return p;
}

/**
 * The code cache of the run itself is written when it exits (lib/boot.ts), into the cache directory
 * this run removed: at exit, after that, remove it again when it holds nothing else.
 */
export function removeAgainAtExit(dirs: string[]): void {
  process.once('exit', () => {
    for (const d of dirs) {
      try {
        fs.rmSync(path.join(d, 'code'), { recursive: true, force: true });
        fs.rmdirSync(d);
      } catch {
        /* other files are there: they were named */
      }
    }
  });
}
