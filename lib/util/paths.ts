import fs from 'node:fs';
import path from 'node:path';
import type { Ctx } from '../types.js';
import { nodeOs } from './lazy.js';

export function makeCtx(env: NodeJS.ProcessEnv = process.env): Ctx {
  const home = env.HOME && path.isAbsolute(env.HOME) ? env.HOME : accountHome();
  return { env, home };
}

/**
 * The home directory when HOME is unset, empty or relative (cron, `env -i`, a service): the
 * account's, from the password database. Node's os.homedir() gives an empty HOME back as it is, and
 * every path under it (the cache, the config, the harnesses' stores) would then be relative to
 * whatever directory resume was run in: a cache written into a project. `/` when the account has
 * none (a container's bare uid).
 */
function accountHome(): string {
  try {
    const h = nodeOs().userInfo().homedir;
    if (h && path.isAbsolute(h)) return h;
  } catch {
    /* no entry for this uid */
  }
  const h = nodeOs().homedir();
  return h && path.isAbsolute(h) ? h : '/';
}

/**
 * The directory of a file path, as path.dirname gives it for a path without a trailing slash (a
 * search asks it of every session, 22,000 at a time, and path.dirname checks and walks each one).
 */
export function dirOf(file: string): string {
  const i = file.lastIndexOf('/');
  return i > 0 ? file.slice(0, i) : i === 0 ? '/' : '.';
}

/** `~` for the home directory in displayed paths. */
export function tildify(p: string | null, home: string): string {
  if (!p) return '';
  if (p === home) return '~';
  if (home && home !== '/' && p.startsWith(`${home}/`)) return `~${p.slice(home.length)}`;
  return p;
}

/** Expand a leading `~` the way shells do for variables the harnesses read. */
export function expandHome(p: string, home: string): string {
  if (p === '~') return home;
  if (p.startsWith('~/')) return path.join(home, p.slice(2));
  return p;
}

/** Colon-separated extra roots from RESUME_<HARNESS>_DIRS. */
export function envDirs(ctx: Ctx, name: string): string[] {
  const v = ctx.env[name];
  if (!v) return [];
  return v
    .split(':')
    .map((s) => s.trim())
    .filter(Boolean)
    .map((s) => path.resolve(expandHome(s, ctx.home)));
}

export function cacheDir(ctx: Ctx): string {
  const e = ctx.env;
  if (e.RESUME_CACHE_DIR) return path.resolve(expandHome(e.RESUME_CACHE_DIR, ctx.home));
  if (e.XDG_CACHE_HOME && path.isAbsolute(e.XDG_CACHE_HOME)) return path.join(e.XDG_CACHE_HOME, 'resume');
  return homelessCache(ctx.home) ?? path.join(ctx.home, '.cache', 'resume');
}

/** HOME → the temp cache used in its place (null: HOME is a directory), worked out once a run. */
const homeless = new Map<string, string | null>();
let toldHomeless = false;

/**
 * The cache when HOME is not a directory (a service account's /nonexistent, a home since removed)
 * and no variable names one: nothing is created under a HOME that is not there (a root run would
 * make it), so the index is kept in the temp directory instead, in `resume-<uid>` (0700, and used
 * only when it is this user's own directory, not a link; else a fresh one for this run). Null when
 * HOME is a directory.
 */
function homelessCache(home: string): string | null {
  const known = homeless.get(home);
  if (known !== undefined) return known;
  let dir: string | null = null;
  try {
    if (!fs.statSync(home).isDirectory()) dir = tempCache();
  } catch {
    dir = tempCache();
  }
  homeless.set(home, dir);
  return dir;
}

function tempCache(): string {
  const tmp = nodeOs().tmpdir();
  const uid = process.getuid?.() ?? -1;
  const dir = path.join(tmp, `resume-${uid}`);
  try {
    fs.mkdirSync(dir, { mode: 0o700 });
  } catch {
    /* there already: checked below */
  }
  try {
    const st = fs.lstatSync(dir);
    if (st.isDirectory() && (uid < 0 || st.uid === uid) && (st.mode & 0o077) === 0) return dir;
  } catch {
    /* cannot be made: a fresh one below */
  }
  try {
    return fs.mkdtempSync(path.join(tmp, 'resume-'));
  } catch {
    return dir; // nowhere better
  }
}

/**
 * Say once on stderr that HOME is not a directory and where the cache went instead (commands a
 * person reads; not `rows`, `preview` and completion, whose stderr a picker or a shell shows).
 */
export function tellHomeless(env: NodeJS.ProcessEnv = process.env): void {
  if (toldHomeless) return;
  toldHomeless = true;
  const ctx = makeCtx(env);
  const dir = cacheDir(ctx);
  if (homeless.get(ctx.home) !== dir) return;
  // biome-ignore lint/suspicious/noControlCharactersInRegex: strips control characters from paths before they reach the terminal
  const safe = (p: string) => p.replace(/[\x00-\x1f\x7f]/g, '?');
  try {
    fs.writeSync(2, `resume: HOME ${safe(ctx.home)} is not a directory; the index is kept in ${safe(dir)} instead\n`);
  } catch {
    /* nowhere to say it */
  }
}

export function configFile(ctx: Ctx): string {
  const e = ctx.env;
  if (e.XDG_CONFIG_HOME && path.isAbsolute(e.XDG_CONFIG_HOME)) return path.join(e.XDG_CONFIG_HOME, 'resume', 'config');
  return path.join(ctx.home, '.config', 'resume', 'config');
}

/** Do two paths name the same place (symlinks followed where they exist)? */
export function samePlace(a: string, b: string): boolean {
  const real = (p: string) => {
    try {
      return fs.realpathSync(p);
    } catch {
      return path.resolve(p);
    }
  };
  return path.resolve(a) === path.resolve(b) || real(a) === real(b);
}

/**
 * `{NAME: store}` when a session was found in `store` but the harness, started with the user's
 * environment, would look in `dflt`: the launch points it at the store the session is in.
 */
export function storeEnv(name: string, store: string, dflt: string): Record<string, string> | undefined {
  return samePlace(store, dflt) ? undefined : { [name]: store };
}

/** The tool's state directory: `$XDG_STATE_HOME/resume`, else `~/.local/state/resume`; macOS `~/Library/Application Support/resume`. */
export function stateDir(ctx: Ctx, platform = process.platform): string {
  if (platform === 'darwin') return path.join(ctx.home, 'Library', 'Application Support', 'resume');
  const x =
    ctx.env.XDG_STATE_HOME && path.isAbsolute(ctx.env.XDG_STATE_HOME) ? ctx.env.XDG_STATE_HOME : path.join(ctx.home, '.local', 'state');
  return path.join(x, 'resume');
}
