// A session whose directory is gone: where its repository went (a moved or renamed checkout), or the
// git worktree it was (removed, to be added again), and whether its harness can resume it there.
// Nothing here is used without the person's yes (asked once on /dev/tty) or `--cd DIR`; a candidate
// found with no terminal to ask on is named in the refusal, never taken.
import fs from 'node:fs';
import path from 'node:path';
import { ExitError } from '../errors.js';
import { runSync } from '../os/run.js';
import type { Harness, Session } from '../types.js';
import { shown } from '../util/quote.js';
import type { Plan } from './emit.js';

// ---------------------------------------------------------------------------------------------------
// What each harness does when resumed in another directory (checked with the real clients:
// test/real/moved.mjs).

/**
 * The plan for resuming `s` in `dir` instead of its recorded directory, or the reason its harness
 * cannot do that without its store being changed (which resume never does).
 */
export function carryTo(plan: Plan, s: Session, dir: string, fork: boolean): Plan | string {
  const gone = !s.cwd || !isDir(s.cwd);
  switch (s.harness as Harness) {
    case 'claude':
      // `--resume ID` finds the transcript under any project of the config dir and appends to it
      return { ...plan, cwd: dir };
    case 'codex': {
      // Without -C the TUI asks "session directory or current directory?", Enter taking the recorded
      // (gone) one; -C DIR answers it.
      const at = plan.argv.findIndex((a, i) => (a === 'resume' || a === 'fork') && plan.argv[i + 1] === s.id);
      const argv = [...plan.argv];
      argv.splice(at < 0 ? argv.length : at + 2, 0, '-C', dir);
      return { ...plan, cwd: dir, argv };
    }
    case 'pi':
      // pi opens a session file in the directory its header names while that exists; when it is
      // gone it asks itself whether to continue in the current one
      if (!gone && !fork) return `pi works in the directory its session file names (${shown(s.cwd ?? '')}) while that exists`;
      return { ...plan, cwd: dir };
    case 'opencode':
      return 'opencode opens a session in the directory its database recorded, whatever the current one; resuming it elsewhere would mean changing that database';
    case 'kilo':
      // its TUI, started elsewhere with --session ID, showed and worked in the recorded directory
      return 'Kilo CLI opens a session in the directory its database recorded, whatever the current one; resuming it elsewhere would mean changing that database';
    case 'gemini':
      return "Gemini CLI finds sessions by the current directory's project (~/.gemini/tmp/<project>); resuming it elsewhere would mean moving its files";
    case 'cursor':
      return 'Cursor CLI keeps chats under the md5 of their directory; resuming one elsewhere would mean moving its files';
  }
  return `${s.harness} is not known to resume a session from another directory`;
}

// ---------------------------------------------------------------------------------------------------
// git

function git(dir: string, args: string[]): string | null {
  const r = runSync('git', ['-C', dir, ...args]);
  return r.ok ? r.stdout.trim() : null;
}

function isDir(p: string): boolean {
  try {
    return fs.statSync(p).isDirectory();
  } catch {
    return false;
  }
}

/** The nearest directory at or above p that exists. */
function nearest(p: string): string {
  let d = path.dirname(p);
  while (!isDir(d) && path.dirname(d) !== d) d = path.dirname(d);
  return d;
}

/** The top of the work tree holding dir, by its `.git` entry (no git process), or null. */
function topOf(dir: string): string | null {
  for (let d = dir; ; d = path.dirname(d)) {
    if (fs.existsSync(path.join(d, '.git'))) return d;
    if (path.dirname(d) === d) return null;
  }
}

/** What identifies a repository: its root commits and remote URLs; and its local branches. */
interface Repo {
  top: string;
  roots: string[];
  remotes: string[];
  branches: Set<string>;
}

const repoMemo = new Map<string, Repo | null>();
function repoAt(top: string): Repo | null {
  const memo = repoMemo.get(top);
  if (memo !== undefined) return memo;
  let repo: Repo | null = null;
  const refs = git(top, ['for-each-ref', '--format=%(refname:short)', 'refs/heads']);
  if (refs != null) {
    const roots = (git(top, ['rev-list', '--max-parents=0', 'HEAD']) ?? '').split('\n').filter(Boolean).sort();
    const remotes = (git(top, ['config', '--get-regexp', '^remote\\..*\\.url$']) ?? '')
      .split('\n')
      .map((l) => l.split(' ').slice(1).join(' '))
      .filter(Boolean);
    repo = { top, roots, remotes: remotes.map(normRemote), branches: new Set(refs.split('\n').filter(Boolean)) };
  }
  repoMemo.set(top, repo);
  return repo;
}

/** `git@host:a/b.git` and `https://host/a/b` are one remote. */
function normRemote(u: string): string {
  return u
    .trim()
    .replace(/\.git$/, '')
    .replace(/^[a-z+]+:\/\/(?:[^@/]+@)?/, '')
    .replace(/^[^@/]+@([^:/]+):/, '$1/')
    .replace(/\/+$/, '')
    .toLowerCase();
}

/** What Codex recorded about the repository (session_meta.git): the remote and the commit. */
function recordedRepo(s: Session): { remote: string | null; commit: string | null } {
  if (s.harness !== 'codex') return { remote: null, commit: null };
  try {
    const fd = fs.openSync(s.file, 'r');
    const buf = Buffer.alloc(64 * 1024);
    const n = fs.readSync(fd, buf, 0, buf.length, 0);
    fs.closeSync(fd);
    const meta = JSON.parse(buf.subarray(0, n).toString('utf8').split('\n')[0] ?? '') as {
      payload?: { git?: { repository_url?: unknown; commit_hash?: unknown } };
    };
    const g = meta.payload?.git;
    return {
      remote: typeof g?.repository_url === 'string' && g.repository_url ? normRemote(g.repository_url) : null,
      commit: typeof g?.commit_hash === 'string' && /^[0-9a-f]{7,64}$/.test(g.commit_hash) ? g.commit_hash : null,
    };
  } catch {
    return { remote: null, commit: null };
  }
}

// ---------------------------------------------------------------------------------------------------
// A moved repository

export interface Moved {
  dir: string;
  /** why it is taken for the same repository: `same name, branch main` … */
  why: string;
}

const MAX_REPOS = 300;

/**
 * Where the repository of a session whose directory is gone went. Looked in: the directories of
 * other sessions that exist, their parents' other children (one level), the children of the gone
 * directory's nearest existing ancestor (a rename in place), and the current directory and its
 * children.
 *
 * The gone directory can no longer be asked for its root commit or remote, so a repository is
 * taken only when it holds the session's branch (when one was recorded) and either has the name of
 * a directory on the old path (a move keeps the name) or, for Codex, which records them, the same
 * remote or the recorded commit. Checkouts that share root commits and remotes are one repository;
 * when different repositories (or several checkouts) qualify, none is picked: they are all named.
 */
export function findMoved(s: Session, others: Session[], here: string): Moved[] {
  const old = path.resolve(recordedDir(s));
  const parts = old.split(path.sep).filter(Boolean);
  const rec = recordedRepo(s);
  const found: (Moved & { repo: Repo })[] = [];
  for (const top of candidateTops(s, old, others, here)) {
    if (old === top || old.startsWith(top + path.sep)) continue;
    const hit = movedTo({ s, top, parts, rec });
    if (hit) found.push(hit);
  }
  // one repository seen through two tops (a symlinked path) counts once
  const byDir = new Map<string, (typeof found)[number]>();
  for (const f of found) byDir.set(realpath(f.dir), f);
  return [...byDir.values()].map(({ dir, why, repo }) => {
    const [root] = repo.roots;
    return { dir, why: root ? `${why}, root commit ${root.slice(0, 8)}` : why };
  });
}

/** The recorded directory of a session found gone (callers check it was recorded). */
function recordedDir(s: Session): string {
  if (!s.cwd) throw new Error(`session ${s.key} has no recorded directory to look for`);
  return s.cwd;
}

/** The tops of work trees where the repository of the gone directory `old` may be now. */
function candidateTops(s: Session, old: string, others: Session[], here: string): Set<string> {
  const tops = new Set<string>();
  const addDir = (d: string) => {
    const t = topOf(d);
    if (t && t !== path.parse(t).root) tops.add(t);
  };
  const children = (d: string) => {
    let names: fs.Dirent[] = [];
    try {
      names = fs.readdirSync(d, { withFileTypes: true });
    } catch {
      return;
    }
    for (const e of names) if (e.isDirectory() && fs.existsSync(path.join(d, e.name, '.git'))) tops.add(path.join(d, e.name));
  };
  children(nearest(old));
  addDir(here);
  children(here);
  const seen = new Set<string>();
  for (const o of others) {
    if (!o.cwd || o.key === s.key || seen.has(o.cwd)) continue;
    seen.add(o.cwd);
    if (!isDir(o.cwd)) continue;
    addDir(o.cwd);
    // the siblings of its repository, or of the directory itself when it is in none
    children(path.dirname(topOf(o.cwd) ?? o.cwd));
    if (tops.size > MAX_REPOS) break;
  }
  return tops;
}

interface MovedCheck {
  s: Session;
  top: string;
  /** the components of the gone directory's path */
  parts: string[];
  rec: { remote: string | null; commit: string | null };
}

/** The repository at `top` taken for the session's, with the directory to resume in, or null. */
function movedTo({ s, top, parts, rec }: MovedCheck): (Moved & { repo: Repo }) | null {
  const repo = repoAt(top);
  if (!repo) return null;
  if (s.branch && !repo.branches.has(s.branch)) return null;
  const name = path.basename(top);
  let dir: string | null = null;
  const why: string[] = [];
  // the old path's last component with this name: what follows it is the way down to the cwd
  const i = parts.lastIndexOf(name);
  if (i >= 0) {
    const d = path.join(top, ...parts.slice(i + 1));
    if (isDir(d)) {
      dir = d;
      why.push(`same name ${shown(name)}`);
    }
  }
  if (rec.remote && repo.remotes.includes(rec.remote)) why.push('same remote');
  else if (rec.commit && git(top, ['cat-file', '-e', `${rec.commit}^{commit}`]) != null) why.push('holds the recorded commit');
  if (!why.length) return null;
  // found by remote or commit only: the longest tail of the old path that exists below it
  dir ??= longestTail(top, parts);
  if (s.branch) why.push(`has branch ${shown(s.branch)}`);
  return { dir, why: why.join(', '), repo };
}

function longestTail(top: string, parts: string[]): string {
  for (let k = 1; k < parts.length; k++) {
    const d = path.join(top, ...parts.slice(k));
    if (isDir(d)) return d;
  }
  return top;
}

function realpath(p: string): string {
  try {
    return fs.realpathSync(p);
  } catch {
    return p;
  }
}

// ---------------------------------------------------------------------------------------------------
// A removed worktree

export interface Worktree {
  /** the main repository (where `git worktree add` runs) */
  repo: string;
  /** the worktree's top, to be added again */
  path: string;
  branch: string;
  /** git still lists it (missing, prunable): `add` needs -f for this path */
  registered: boolean;
  /** how it was recognised */
  via: string;
  /** the branch tip, and its commit time in ms */
  tip: string;
  tipAt: number;
}

interface Listed {
  path: string;
  branch: string | null;
}

function worktrees(repo: string): Listed[] {
  const out = git(repo, ['worktree', 'list', '--porcelain']);
  if (out == null) return [];
  return out
    .split('\n\n')
    .map((b) => {
      const l = b.split('\n');
      const p = l.find((x) => x.startsWith('worktree '))?.slice(9) ?? '';
      const br = l.find((x) => x.startsWith('branch '))?.slice(7) ?? null;
      return { path: p, branch: br?.replace(/^refs\/heads\//, '') ?? null };
    })
    .filter((w) => w.path);
}

/** The main repository of the work tree at top (for a linked worktree, the one it belongs to). */
function mainOf(top: string): string | null {
  const common = git(top, ['rev-parse', '--path-format=absolute', '--git-common-dir']);
  if (!common) return null;
  return path.basename(common) === '.git' ? path.dirname(common) : null;
}

/**
 * The git worktree a gone directory was: one its repository still lists (missing), or a known
 * layout (`<repo>/.claude/worktrees/<name>`, `<repo>/.worktrees/<name>`, `<repo>-<suffix>` beside
 * it). Null when it was none of these. A refusal (string) when it was, but cannot be added again:
 * the branch is unknown, gone, or checked out in another worktree.
 */
export function findWorktree(s: Session): Worktree | string | null {
  const old = path.resolve(recordedDir(s));
  for (const repo of worktreeRepos(old)) {
    const hit = listedHit(repo, old) ?? layoutHit(repo, old);
    if (hit) return reAddable({ s, old, repo, hit });
  }
  return null;
}

/** Where a gone worktree was found: its top, and its branch when git still lists it. */
interface WorktreeHit {
  path: string;
  branch: string | null;
  registered: boolean;
  via: string;
}

/** The main repositories the gone directory `old` may have been a worktree of. */
function worktreeRepos(old: string): Set<string> {
  const repos = new Set<string>();
  const nearTop = topOf(nearest(old));
  if (nearTop) repos.add(mainOf(nearTop) ?? nearTop);
  // `<repo>-<suffix>`: a sibling of the gone directory's ancestors whose name is a prefix of it (the
  // topmost gone one, whose parent exists)
  let d = old;
  while (path.dirname(d) !== d && !isDir(path.dirname(d))) d = path.dirname(d);
  const parent = path.dirname(d);
  if (parent === d) return repos;
  const base = path.basename(d);
  for (let k = base.lastIndexOf('-'); k > 0; k = base.lastIndexOf('-', k - 1)) {
    const sib = path.join(parent, base.slice(0, k));
    if (fs.existsSync(path.join(sib, '.git'))) repos.add(mainOf(sib) ?? sib);
  }
  return repos;
}

/** A worktree of `repo` that git still lists (missing) and that held `old`. */
function listedHit(repo: string, old: string): WorktreeHit | null {
  let hit: WorktreeHit | null = null;
  for (const w of worktrees(repo)) {
    if ((old === w.path || old.startsWith(w.path + path.sep)) && !isDir(w.path)) {
      hit = { path: w.path, branch: w.branch, registered: true, via: `git worktree list of ${shown(repo)} names it (missing)` };
    }
  }
  return hit;
}

/** A worktree of `repo` by a known layout that held `old`. */
function layoutHit(repo: string, old: string): WorktreeHit | null {
  const rel = path.relative(repo, old).split(path.sep);
  const [r0 = '', r1 = ''] = rel;
  if (!r0.startsWith('..') && rel.length >= 3 && ((r0 === '.claude' && r1 === 'worktrees') || r0 === '.worktrees')) {
    const n = r0 === '.claude' ? 3 : 2;
    return {
      path: path.join(repo, ...rel.slice(0, n)),
      branch: null,
      registered: false,
      via: `its path is a worktree of ${shown(repo)} (${rel.slice(0, n - 1).join('/')}/<name>)`,
    };
  }
  if (r0 === '..' && rel.length >= 2 && r1.startsWith(`${path.basename(repo)}-`)) {
    return {
      path: path.join(path.dirname(repo), r1),
      branch: null,
      registered: false,
      via: `its path is ${shown(path.basename(repo))}-<name> beside ${shown(repo)}`,
    };
  }
  return null;
}

/** The worktree to add again, or why it cannot be: its branch unknown, gone or checked out elsewhere. */
function reAddable({ s, old, repo, hit }: { s: Session; old: string; repo: string; hit: WorktreeHit }): Worktree | string {
  const branch = hit.branch ?? s.branch;
  const what = `the directory of this session, ${shown(old)}, was a git worktree of ${shown(repo)}`;
  if (!branch) return `${what}, on a branch it did not record; add it again with git worktree add`;
  const tipLine = git(repo, ['log', '-1', '--format=%H %ct', `refs/heads/${branch}`, '--']);
  if (!tipLine) return `${what} on branch ${shown(branch)}, which is gone; not adding it again`;
  const other = worktrees(repo).find((w) => w.branch === branch && w.path !== hit.path && isDir(w.path));
  if (other)
    return `${what} on branch ${shown(branch)}, which is checked out at ${shown(other.path)} now; resume there with --cd ${shown(other.path)}`;
  const [tip = '', ct] = tipLine.split(' ');
  return { repo, path: hit.path, branch, registered: hit.registered, via: hit.via, tip, tipAt: Number(ct) * 1000 };
}

/** `git worktree add` of a gone worktree; ExitError when git refuses. */
export function addWorktree(w: Worktree): void {
  // -f only for a path git still has registered as missing (its bookkeeping would refuse it); the
  // branch was checked above not to be checked out in any worktree that exists
  const args = ['worktree', 'add', ...(w.registered ? ['-f'] : []), w.path, w.branch];
  // no timeout: the checkout takes as long as the tree is big, and a killed one leaves a broken worktree
  const r = runSync('git', ['-C', w.repo, ...args], { timeout: 0 });
  if (!r.ok) throw new ExitError(2, `git ${args.join(' ')} failed: ${(r.stderr || r.stdout).trim().split('\n').pop()}`);
}

export function addLine(w: Worktree): string {
  return `git -C ${shown(w.repo)} worktree add ${w.registered ? '-f ' : ''}${shown(w.path)} ${shown(w.branch)}`;
}

// ---------------------------------------------------------------------------------------------------
// Asking

/**
 * Ask a yes/no question on the terminal (/dev/tty), once; Enter or anything but y/yes is no. Null
 * when there is no terminal to ask on.
 */
export function askTty(question: string): boolean | null {
  if (!process.stdin.isTTY && !process.stderr.isTTY) return null;
  let fd: number;
  try {
    fd = fs.openSync('/dev/tty', 'r+');
  } catch {
    return null;
  }
  try {
    fs.writeSync(fd, question);
    const buf = Buffer.alloc(256);
    let got = '';
    while (!got.includes('\n')) {
      let n = 0;
      try {
        n = fs.readSync(fd, buf, 0, buf.length, null);
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code === 'EAGAIN') continue;
        throw err;
      }
      if (n === 0) break;
      got += buf.subarray(0, n).toString('utf8');
    }
    return /^\s*y(es)?\s*$/i.test(got.split('\n')[0] ?? '');
  } finally {
    fs.closeSync(fd);
  }
}

// ---------------------------------------------------------------------------------------------------
// Where to resume

export interface Place {
  /** the directory to resume in instead of the recorded one */
  cwd: string;
  /** --dry-run: the refusal to end with once the plan for `cwd` is shown */
  refuse?: string;
}

export interface PlaceOptions {
  /** --cd DIR, as typed */
  cd?: string;
  /** how the session is called in messages (its short id) */
  name: string;
  dryRun: boolean;
  fork: boolean;
  /** every session of the listing, for where the repository may have gone */
  others: () => Promise<Session[]>;
  /** the current directory */
  here: string;
}

/** What the harness keeps when resumed elsewhere, said with the question. */
const KEEPS: Partial<Record<Harness, string>> = {
  claude: "Claude Code goes on in the same transcript; the new directory's settings and memory apply",
  codex: 'Codex goes on in the same rollout (started with -C DIR)',
  pi: 'pi asks once more whether to continue in the current directory, then goes on in the same file',
};

/**
 * Where `s` resumes when that is not simply its recorded directory: `--cd DIR`, a moved repository
 * the person said yes to, or (after a yes) its removed worktree added again, which returns null as
 * the recorded directory exists again. Null: resume in the recorded directory (checkDir has the last
 * word). ExitError(2) for every refusal.
 */
export async function placeSession(s: Session, o: PlaceOptions): Promise<Place | null> {
  if (o.cd != null) {
    const dir = path.resolve(o.here, o.cd);
    if (!isDir(dir)) throw new ExitError(2, `--cd ${shown(o.cd)}: no such directory`);
    if (s.cwd && isDir(s.cwd) && realpath(s.cwd) === realpath(dir)) return null;
    return { cwd: dir };
  }
  if (!s.cwd || !path.isAbsolute(s.cwd) || fs.existsSync(s.cwd)) return null;
  const old = `the directory of ${o.name}, ${shown(s.cwd)}, no longer exists`;

  const wt = findWorktree(s);
  if (typeof wt === 'string') throw new ExitError(2, wt.replace('the directory of this session', `the directory of ${o.name}`));
  if (wt) {
    reAddWorktree({ s, cwd: s.cwd, o, old, wt });
    return null;
  }
  return placeMoved({ s, cwd: s.cwd, o, old });
}

/** What placing a session whose directory is gone works with. */
interface Gone {
  s: Session;
  /** its recorded directory, gone */
  cwd: string;
  o: PlaceOptions;
  /** `the directory of <name>, <cwd>, no longer exists` */
  old: string;
}

/** Add the removed worktree again after a yes, or refuse. */
function reAddWorktree({ s, cwd, o, old, wt }: Gone & { wt: Worktree }): void {
  const day = (ms: number) => new Date(ms).toISOString().slice(0, 16).replace('T', ' ');
  const moved =
    s.updated != null && wt.tipAt > s.updated
      ? `branch ${shown(wt.branch)} has moved on since the session's last activity (${day(s.updated)} UTC): its tip is ${wt.tip.slice(0, 8)} of ${day(wt.tipAt)} UTC`
      : null;
  const what = `${old}: it was a git worktree of ${shown(wt.repo)} on branch ${shown(wt.branch)} (${wt.via})`;
  const ask = o.dryRun
    ? null
    : askTty(`resume: ${what}.\n${moved ? `resume: ${moved}.\n` : ''}Add it again (${addLine(wt)}) and resume ${o.name} there? [y/N] `);
  if (ask === null) {
    throw new ExitError(
      2,
      `${what}${moved ? `; ${moved}` : ''}; \`resume ${o.name}\` on a terminal adds it again after asking, or run: ${addLine(wt)}`,
    );
  }
  if (!ask) throw new ExitError(2, `not resumed: the worktree was not added (${addLine(wt)} adds it)`);
  addWorktree(wt);
  if (!isDir(cwd))
    throw new ExitError(
      2,
      `added the worktree ${shown(wt.path)}, but ${shown(cwd)} is not in it on branch ${shown(wt.branch)}; resume with --cd ${shown(wt.path)}`,
    );
  process.stderr.write(`resume: added the worktree ${shown(wt.path)} on branch ${shown(wt.branch)}\n`);
}

/** The moved repository to resume in after a yes (or for --dry-run), or a refusal. */
async function placeMoved({ s, cwd, o, old }: Gone): Promise<Place> {
  const cannot = carryTo({ harness: s.harness, id: s.id, cwd, argv: [], env: {} }, s, o.here, o.fork);
  const found = findMoved(s, await o.others(), o.here);
  const [f] = found;
  if (typeof cannot === 'string') {
    const at = found.length === 1 && f ? `; its repository seems to be at ${shown(f.dir)}` : '';
    throw new ExitError(2, `${old}${at}; it cannot be resumed in another directory: ${cannot}`);
  }
  if (!f)
    throw new ExitError(2, `${old} (${nearNote(cwd)}), and no checkout of its repository was found; name the directory with --cd DIR`);
  if (found.length > 1) {
    const list = found
      .slice(0, 4)
      .map((f) => shown(f.dir))
      .join(', ');
    throw new ExitError(2, `${old}; its repository may be at any of ${list}${found.length > 4 ? ', …' : ''}; choose one with --cd DIR`);
  }
  const offer = `${old}; its repository seems to be at ${shown(f.dir)} (${f.why})`;
  const refusal = `${offer}; resume there with: resume ${o.name} --cd ${shown(f.dir)}`;
  if (o.dryRun) return { cwd: f.dir, refuse: refusal };
  const keeps = KEEPS[s.harness];
  const ask = askTty(`resume: ${offer}.\n${keeps ? `resume: ${keeps}.\n` : ''}Resume ${o.name} there? [y/N] `);
  if (ask === null) throw new ExitError(2, refusal);
  if (!ask) throw new ExitError(2, `not resumed; resume ${o.name} --cd ${shown(f.dir)} resumes it there`);
  return { cwd: f.dir };
}

/** The nearest existing directory, and the repository it is in: what the refusal names. */
function nearNote(cwd: string): string {
  const near = nearest(cwd);
  const top = topOf(near);
  if (top === near) return `the nearest existing directory is the git repository ${shown(near)}`;
  return `the nearest existing directory is ${shown(near)}${top ? `, inside the git repository ${shown(top)}` : ''}`;
}

/** The current directory, or `fallback` when it was removed from under us. */
export function hereDir(fallback: string): string {
  try {
    return process.cwd();
  } catch {
    return fallback;
  }
}
