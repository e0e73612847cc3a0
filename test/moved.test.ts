// A session whose directory is gone (issue 48): its repository moved (offered, never taken without a
// yes on the terminal or --cd), or it was a git worktree (added again after one yes). Real git in
// temp dirs, stand-in harnesses on PATH, the question answered in tmux.

import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { put, run, tempHome } from './helpers.js';
import { claudeSession, codexSession, piSession, records, standIn, uuid } from './launch-helpers.js';
import { Term } from './tmux-term.js';

function git(cwd: string, ...args: string[]): string {
  const r = spawnSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@example.com', '-c', 'init.defaultBranch=main', ...args], {
    cwd,
    encoding: 'utf8',
  });
  if (r.status !== 0) throw new Error(`git ${args.join(' ')}: ${r.stderr}`);
  return r.stdout.trim();
}

/** A repository at dir with one commit on main and a branch `feat`, checked out; and a `lib/` in it. */
function repo(dir: string, branch = 'feat'): string {
  fs.mkdirSync(path.join(dir, 'lib'), { recursive: true });
  git(dir, 'init', '-q');
  fs.writeFileSync(path.join(dir, 'lib', 'a.txt'), 'a\n');
  git(dir, 'add', '.');
  git(dir, 'commit', '-q', '-m', 'root');
  git(dir, 'checkout', '-q', '-b', branch);
  return dir;
}

/** A session in a repository that then moved: src/app/lib → moved/app/lib, with another session in moved/tool. */
function movedRepo() {
  const home = tempHome();
  const si = standIn(home);
  const w = path.join(home, 'w');
  repo(path.join(w, 'src', 'app'));
  fs.mkdirSync(path.join(w, 'moved', 'tool'), { recursive: true });
  // a repository of the same name without the session's branch is not it
  repo(path.join(w, 'elsewhere', 'app'), 'other');
  const id = uuid(1);
  const old = path.join(w, 'src', 'app', 'lib');
  claudeSession(home, { id, cwd: old, branch: 'feat', prompt: 'fix the parser' });
  claudeSession(home, { id: uuid(2), cwd: path.join(w, 'moved', 'tool') });
  claudeSession(home, { id: uuid(3), cwd: path.join(w, 'elsewhere', 'app') });
  fs.renameSync(path.join(w, 'src', 'app'), path.join(w, 'moved', 'app'));
  return { home, si, id, old, now: path.join(w, 'moved', 'app', 'lib'), env: { PATH: si.PATH } };
}

describe('a moved repository', () => {
  it('--dry-run shows where it went and what would run, and ends with exit 2 naming --cd; nothing runs', () => {
    const m = movedRepo();
    const r = run(m.home, [m.id, '--dry-run'], m.env);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe(`cwd   ${m.now}\nargv  claude --resume ${m.id}\n`);
    expect(r.stderr).toContain(
      `the directory of ${m.id}, ${m.old}, no longer exists; its repository seems to be at ${m.now} (same name app, has branch feat, root commit `,
    );
    expect(r.stderr).toContain(`resume ${m.id} --cd ${m.now}`);
    expect(r.stderr).not.toContain('elsewhere');
    // no terminal to ask on: the same refusal, nothing started
    const n = run(m.home, [m.id], m.env);
    expect([n.code, n.stdout]).toEqual([2, '']);
    expect(n.stderr).toContain(`--cd ${m.now}`);
    expect(records(m.si.log)).toEqual([]);
  });

  it('without the branch, or with two checkouts of it, nothing is offered', () => {
    const m = movedRepo();
    git(path.join(m.now, '..'), 'checkout', '-q', 'main');
    git(path.join(m.now, '..'), 'branch', '-q', '-D', 'feat');
    const r = run(m.home, [m.id, '--dry-run'], m.env);
    expect([r.code, r.stdout]).toEqual([2, '']);
    expect(r.stderr).toContain('no checkout of its repository was found; name the directory with --cd DIR');
    git(path.join(m.now, '..'), 'branch', '-q', 'feat');
    // a clone beside the current directory: two checkouts of one repository, neither picked
    const third = path.join(m.home, 'w', 'third');
    fs.mkdirSync(third);
    git(third, 'clone', '-q', path.join(m.now, '..'), 'app');
    git(path.join(third, 'app'), 'branch', '-q', 'feat', 'origin/feat');
    const two = run(m.home, [m.id, '--dry-run'], m.env, { cwd: third });
    expect([two.code, two.stdout]).toEqual([2, '']);
    expect(two.stderr).toContain('its repository may be at any of');
    expect(two.stderr).toContain('choose one with --cd DIR');
  });

  it('asks once on the terminal: y resumes there, Enter resumes nothing', async () => {
    const m = movedRepo();
    const t = new Term(m.home, [m.id], m.env, [100, 24]);
    await t.waitFor('there? [y/N]');
    expect(t.screen()).toContain('Claude Code goes on in the same transcript');
    await t.type('y');
    await t.keys('Enter');
    expect((await t.exit()).code).toBe(0);
    expect(records(m.si.log).map((x) => [x.name, x.cwd, x.argv])).toEqual([['claude', m.now, ['--resume', m.id]]]);

    const no = new Term(m.home, [m.id], m.env, [100, 24]);
    await no.waitFor('[y/N]');
    await no.keys('Enter');
    expect((await no.exit()).code).toBe(2);
    expect(records(m.si.log)).toHaveLength(1);
  });
});

describe('a moved repository through emit (the key binding: __pick, then emit)', () => {
  it('asks on the terminal while its output is captured; y prints the line for the new place', async () => {
    const m = movedRepo();
    // as the widget runs it: emit's stdout captured, the question on the terminal
    const t = new Term(m.home, ['emit', '--shell', 'bash', m.id], m.env, [100, 24]);
    await t.waitFor('there? [y/N]');
    await t.type('y');
    await t.keys('Enter');
    const r = await t.exit();
    expect(r.code).toBe(0);
    expect(r.out).toBe(`cd ${m.now} && claude --resume ${m.id}\n`);
    // with no terminal: the refusal names the candidate and --cd, and prints nothing
    const n = run(m.home, ['emit', m.id], m.env);
    expect([n.code, n.stdout]).toEqual([2, '']);
    expect(n.stderr).toContain(`--cd ${m.now}`);
  });
});

describe('--cd DIR', () => {
  it('resumes any session in DIR as its harness allows: Claude as is, Codex with -C DIR, pi only when its directory is gone', () => {
    const home = tempHome();
    const si = standIn(home);
    const here = path.join(home, 'here');
    const there = path.join(home, 'there');
    fs.mkdirSync(here);
    fs.mkdirSync(there);
    const [c, x, p, pg] = [uuid(11), uuid(12), uuid(13), uuid(14)];
    claudeSession(home, { id: c, cwd: here });
    codexSession(home, { id: x, cwd: here });
    piSession(home, { id: p, cwd: here });
    const gone = piSession(home, { id: pg, cwd: path.join(home, 'gone') });
    const env = { PATH: si.PATH };
    expect(run(home, [c, '--cd', there], env).code).toBe(0);
    expect(run(home, [x, '--cd', 'there'], env, { cwd: home }).code).toBe(0);
    expect(run(home, [pg, '--cd', there], env).code).toBe(0);
    expect(records(si.log).map((r) => [r.name, r.cwd, r.argv])).toEqual([
      ['claude', there, ['--resume', c]],
      ['codex', there, ['resume', x, '-C', there]],
      ['pi', there, ['--session', gone]],
    ]);
    const pr = run(home, [p, '--cd', there], env);
    expect(pr.code).toBe(2);
    expect(pr.stderr).toContain(`pi works in the directory its session file names (${here}) while that exists`);
    const missing = run(home, [c, '--cd', path.join(home, 'nope')], env);
    expect([missing.code, missing.stderr]).toEqual([2, `resume: --cd ${path.join(home, 'nope')}: no such directory\n`]);
    // the same directory as recorded is no change
    expect(run(home, [c, '--cd', here, '--dry-run'], env).stdout).toBe(`cwd   ${here}\nargv  claude --resume ${c}\n`);
    expect(records(si.log)).toHaveLength(3);
  });

  it('opencode and Gemini CLI are refused with the reason (their stores are keyed by directory)', () => {
    const home = tempHome();
    put(home, 'real/opencode-1.18.33/home/.local', '.local');
    put(home, 'real/gemini-0.61.0/home/.gemini', '.gemini');
    for (const h of ['opencode', 'gemini']) {
      const id = JSON.parse(run(home, ['ls', '--json', '--harness', h, '-n', '1']).stdout)[0].id as string;
      const r = run(home, [id, '--cd', home, '--dry-run']);
      expect([r.code, r.stdout]).toEqual([2, '']);
      expect(r.stderr).toMatch(
        h === 'opencode'
          ? /opencode opens a session in the directory its database recorded/
          : /Gemini CLI finds sessions by the current directory's project/,
      );
    }
  });
});

describe('a removed git worktree', () => {
  /** repo/ on main with a worktree ../repo-topic on `topic`, and a session in it (last active after the commit) */
  function removed() {
    const home = tempHome();
    const si = standIn(home);
    const main = repo(path.join(home, 'repo'), 'main2');
    git(main, 'checkout', '-q', 'main');
    const wt = path.join(home, 'repo-topic');
    git(main, 'worktree', 'add', '-q', '-b', 'topic', wt);
    const id = uuid(21);
    claudeSession(home, { id, cwd: path.join(wt, 'lib'), branch: 'topic', at: new Date(Date.now() + 60_000).toISOString() });
    fs.rmSync(wt, { recursive: true });
    return { home, si, main, wt, id, env: { PATH: si.PATH } };
  }

  it('is added again on its branch after one yes, then resumed in it', async () => {
    const m = removed();
    const dry = run(m.home, [m.id, '--dry-run'], m.env);
    expect([dry.code, dry.stdout]).toEqual([2, '']);
    expect(dry.stderr).toContain(`it was a git worktree of ${m.main} on branch topic (git worktree list of ${m.main} names it (missing))`);
    expect(dry.stderr).toContain(`or run: git -C ${m.main} worktree add -f ${m.wt} topic`);
    expect(dry.stderr).not.toContain('moved on');
    expect(fs.existsSync(m.wt)).toBe(false);
    const t = new Term(m.home, [m.id], m.env, [100, 24]);
    await t.waitFor('and resume');
    await t.type('y');
    await t.keys('Enter');
    expect((await t.exit()).code).toBe(0);
    expect(git(m.wt, 'rev-parse', '--abbrev-ref', 'HEAD')).toBe('topic');
    expect(records(m.si.log).map((x) => [x.cwd, x.argv])).toEqual([[path.join(m.wt, 'lib'), ['--resume', m.id]]]);
  });

  it('says so before asking when the branch moved on; refuses when the branch is gone; layouts git no longer lists', () => {
    const m = removed();
    git(m.main, 'worktree', 'prune');
    // the tip's committer time is what counts: later than the session's last activity
    spawnSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@example.com', 'commit', '-q', '--allow-empty', '-m', 'later still'], {
      cwd: m.main,
      env: { ...process.env, GIT_COMMITTER_DATE: new Date(Date.now() + 3_600_000).toISOString() },
    });
    git(m.main, 'branch', '-f', 'topic', 'HEAD');
    const r = run(m.home, [m.id, '--dry-run'], m.env);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`(its path is repo-<name> beside ${m.main})`);
    expect(r.stderr).toMatch(/branch topic has moved on since the session's last activity \(.*\): its tip is [0-9a-f]{8} of /);
    expect(r.stderr).toContain(`or run: git -C ${m.main} worktree add ${m.wt} topic`);
    git(m.main, 'branch', '-q', '-D', 'topic');
    const g = run(m.home, [m.id], m.env);
    expect([g.code, g.stderr]).toEqual([
      2,
      `resume: the directory of ${m.id.slice(0, 8)}, ${path.join(m.wt, 'lib')}, was a git worktree of ${m.main} on branch topic, which is gone; not adding it again\n`,
    ]);
    expect(records(m.si.log)).toEqual([]);
  });
});
