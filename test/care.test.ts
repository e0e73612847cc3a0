// Claude Code rescue: `resume snapshot`, restore on resume, `resume init claude-hook`, `resume
// outdated` and the doctor's warnings. Live sessions are real processes (sleep) with registry files
// naming their pid and start time; the installed claude is a versions-directory symlink or a stand-in.

import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { must, notLinux, run, tempHome, write } from './helpers.js';
import type { Listed } from './json.js';
import { claudeSession, uuid as uuidAt } from './launch-helpers.js';

// Ids of this file's own (the live check reads every process on the machine: another test file's
// stand-in naming the same id would make its session look live).
const uuid = (i: number) => uuidAt(i, 'cafecafe-0000-4000-8000');

const kids: ChildProcess[] = [];
afterEach(() => {
  for (const k of kids.splice(0)) k.kill('SIGKILL');
});

function home(): string {
  const h = tempHome('resume-care-');
  return h;
}

function procStart(pid: number): string {
  const st = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  return st.slice(st.lastIndexOf(')') + 2).split(' ')[19];
}

/** A running process standing in for a live claude, with the given environment. */
async function liveProc(env: Record<string, string> = {}): Promise<ChildProcess> {
  const p = spawn('sleep', ['600'], { env: { PATH: process.env.PATH, ...env }, stdio: 'ignore' });
  kids.push(p);
  await new Promise((res) => p.once('spawn', res));
  return p;
}

interface Reg {
  id: string;
  pid: number;
  name?: string;
  nameSource?: string;
  version?: string;
  status?: string;
  procStart?: string;
  cwd?: string;
}

function registry(h: string, r: Reg): string {
  return write(
    h,
    `.claude/sessions/${r.pid}.json`,
    JSON.stringify({
      pid: r.pid,
      sessionId: r.id,
      cwd: r.cwd ?? h,
      startedAt: 1,
      procStart: r.procStart ?? procStart(r.pid),
      version: r.version ?? '2.1.332',
      kind: 'interactive',
      entrypoint: 'cli',
      status: r.status ?? 'idle',
      updatedAt: 2,
      ...(r.name ? { name: r.name, nameSource: r.nameSource ?? 'user' } : {}),
    }),
  );
}

function task(id: number, subject: string, status = 'pending'): object {
  return { id: String(id), subject, description: `do ${subject}`, status, blocks: [], blockedBy: [] };
}

function tasks(h: string, list: string, ts: object[], hwm?: number): string {
  const dir = path.join(h, '.claude', 'tasks', list);
  for (const t of ts) write(h, path.join(dir, `${(t as { id: string }).id}.json`), JSON.stringify(t));
  if (hwm != null) write(h, path.join(dir, '.highwatermark'), String(hwm));
  return dir;
}

const store = (h: string) => path.join(h, '.config', 'resume', 'sessions');
const snap = (h: string, id: string) => JSON.parse(fs.readFileSync(path.join(store(h), `${id}.json`), 'utf8'));
const mode = (p: string) => fs.statSync(p).mode & 0o777;

describe.skipIf(notLinux)('resume snapshot', () => {
  it('captures name, tasks, pairing and metadata of each live session; 0700/0600; merges by task id and never shrinks', async () => {
    const h = home();
    const id = uuid(1);
    claudeSession(h, { id, cwd: h });
    const p = await liveProc();
    registry(h, { id, pid: must(p.pid), name: 'refactor-auth' });
    const dir = tasks(h, id, [task(1, 'write tests'), task(2, 'fix bug')], 2);

    const r = run(h, ['snapshot']);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(`${id}\t2 task(s) (+2)\trefactor-auth\n`);
    const s = snap(h, id);
    expect(s).toMatchObject({
      id,
      name: 'refactor-auth',
      version: '2.1.332',
      taskListId: id,
      taskDir: dir,
      highwatermark: 2,
      pid: p.pid,
      cwd: h,
    });
    expect(Object.keys(s.tasks)).toEqual(['1', '2']);
    expect(s.tasks['2'].subject).toBe('fix bug');
    expect(s.transcript).toMatch(/\.jsonl$/);
    expect(mode(store(h))).toBe(0o700);
    expect(mode(path.join(store(h), `${id}.json`))).toBe(0o600);
    expect(fs.readdirSync(store(h)).filter((n) => n.includes('.tmp-'))).toEqual([]);

    // Task 1 completes, task 2 disappears, task 3 arrives: 2 is kept, 1 updated, 3 added.
    fs.rmSync(path.join(dir, '2.json'));
    write(h, path.join(dir, '1.json'), JSON.stringify(task(1, 'write tests', 'completed')));
    write(h, path.join(dir, '3.json'), JSON.stringify(task(3, 'ship')));
    write(h, path.join(dir, '.highwatermark'), '3');
    expect(run(h, ['snapshot', '--quiet'])).toMatchObject({ code: 0, stdout: '', stderr: '' });
    const s2 = snap(h, id);
    expect(Object.keys(s2.tasks)).toEqual(['1', '2', '3']);
    expect(s2.tasks['1'].status).toBe('completed');
    expect(s2.highwatermark).toBe(3);
  });

  it('follows CLAUDE_CODE_TASK_LIST_ID from the process environment (the task-directory pairing)', async () => {
    const h = home();
    const id = uuid(2);
    claudeSession(h, { id, cwd: h });
    const p = await liveProc({ CLAUDE_CODE_TASK_LIST_ID: 'shared-list' });
    registry(h, { id, pid: must(p.pid) });
    const dir = tasks(h, 'shared-list', [task(1, 'shared work')]);
    expect(run(h, ['snapshot', '--quiet']).code).toBe(0);
    expect(snap(h, id)).toMatchObject({ taskListId: 'shared-list', taskDir: dir });
    expect(Object.keys(snap(h, id).tasks)).toEqual(['1']);
  });

  it('skips registry files whose process is gone or whose pid was reused, and legacy or broken files', async () => {
    const h = home();
    const p = await liveProc();
    registry(h, { id: uuid(3), pid: must(p.pid), procStart: '1' }); // same pid, another start time
    write(h, '.claude/sessions/999999999.json', JSON.stringify({ pid: 999999999, sessionId: uuid(4), procStart: '5' }));
    write(h, '.claude/sessions/pid-77.json', JSON.stringify({ session_id: uuid(5) }));
    write(h, '.claude/sessions/78.json', '{"pid": 78, "sessi');
    const r = run(h, ['snapshot']);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('');
    expect(fs.existsSync(store(h))).toBe(false);
  });

  it('exits 0 even when the store cannot be written; --quiet prints nothing at all', async () => {
    const h = home();
    const id = uuid(6);
    const p = await liveProc();
    registry(h, { id, pid: must(p.pid) });
    write(h, 'cfgfile', 'not a directory');
    const env = { XDG_CONFIG_HOME: path.join(h, 'cfgfile') };
    expect(run(h, ['snapshot', '--quiet'], env)).toEqual({ code: 0, stdout: '', stderr: '' });
    const loud = run(h, ['snapshot'], env);
    expect(loud.code).toBe(0);
    expect(loud.stderr).toMatch(/snapshot of .* failed: (ENOTDIR|EEXIST)/);
  });

  it('keeps a /rename name (nameSource user, or none in older builds), not one Claude derived itself', async () => {
    const h = home();
    const [a, b, c] = [await liveProc(), await liveProc(), await liveProc()];
    registry(h, { id: uuid(80), pid: must(a.pid), name: 'proj-b-7c', nameSource: 'derived' });
    registry(h, { id: uuid(81), pid: must(b.pid), name: 'my name' });
    write(
      h,
      `.claude/sessions/${c.pid}.json`,
      JSON.stringify({ pid: c.pid, sessionId: uuid(82), procStart: procStart(must(c.pid)), name: 'older build' }),
    );
    expect(run(h, ['snapshot', '--quiet']).code).toBe(0);
    expect(snap(h, uuid(80)).name).toBe(null);
    expect(snap(h, uuid(81)).name).toBe('my name');
    expect(snap(h, uuid(82)).name).toBe('older build');
    expect(JSON.parse(fs.readFileSync(path.join(store(h), 'names.json'), 'utf8'))).toEqual({
      [uuid(81)]: 'my name',
      [uuid(82)]: 'older build',
    });
  });

  it('uses $XDG_CONFIG_HOME/resume/sessions', async () => {
    const h = home();
    const id = uuid(7);
    const p = await liveProc();
    registry(h, { id, pid: must(p.pid) });
    expect(run(h, ['snapshot', '--quiet'], { XDG_CONFIG_HOME: path.join(h, 'xdg') }).code).toBe(0);
    expect(fs.existsSync(path.join(h, 'xdg', 'resume', 'sessions', `${id}.json`))).toBe(true);
  });
});

describe.skipIf(notLinux)('pruning the snapshot store', () => {
  /** A record last snapshotted `daysAgo` days ago (a day ago unless told). */
  function record(h: string, id: string, transcript: string | null, daysAgo = 1): void {
    const last = Date.now() - daysAgo * 86400e3;
    write(
      h,
      path.join(store(h), `${id}.json`),
      JSON.stringify({
        format: 1,
        id,
        root: path.join(h, '.claude'),
        cwd: h,
        version: '2.1.0',
        name: null,
        transcript,
        taskListId: id,
        taskDir: null,
        highwatermark: null,
        tasks: {},
        pid: null,
        startedAt: null,
        first: last,
        last,
      }),
    );
  }
  const dayLater = (h: string) => {
    const dayAgo = new Date(Date.now() - 25 * 3600e3);
    fs.utimesSync(path.join(store(h), '.pruned'), dayAgo, dayAgo);
  };

  it('retires records whose transcript is gone (however new), keeps the rest (up to 180 days), at most once a day', () => {
    const h = home();
    const kept = uuid(10);
    const file = claudeSession(h, { id: kept, cwd: h });
    record(h, kept, file);
    record(h, uuid(11), path.join(h, 'gone.jsonl'));
    const old = new Date(Date.now() - 400 * 86400e3);
    fs.utimesSync(path.join(store(h), `${kept}.json`), old, old);
    const r = run(h, ['snapshot']);
    expect(r.code).toBe(0);
    expect(r.stderr).toContain('pruned 1 record(s)');
    expect(fs.existsSync(path.join(store(h), `${kept}.json`))).toBe(true);
    expect(fs.existsSync(path.join(store(h), `${uuid(11)}.json`))).toBe(false);
    // Within the day: not again.
    record(h, uuid(12), null);
    expect(run(h, ['snapshot']).stderr).not.toContain('pruned');
    expect(fs.existsSync(path.join(store(h), `${uuid(12)}.json`))).toBe(true);
    // A day later it runs; RESUME_NO_PRUNE=1 turns it off.
    dayLater(h);
    run(h, ['snapshot'], { RESUME_NO_PRUNE: '1' });
    expect(fs.existsSync(path.join(store(h), `${uuid(12)}.json`))).toBe(true);
    expect(run(h, ['snapshot']).stderr).toContain('pruned 1 record(s)');
    expect(fs.existsSync(path.join(store(h), `${uuid(12)}.json`))).toBe(false);
  });

  it('a record is found again when its transcript moved to another project directory', () => {
    const h = home();
    const id = uuid(13);
    claudeSession(h, { id, cwd: h });
    record(h, id, path.join(h, '.claude', 'projects', 'old-slug', `${id}.jsonl`));
    run(h, ['snapshot']);
    expect(fs.existsSync(path.join(store(h), `${id}.json`))).toBe(true);
  });

  it('refuses a pass that would retire most of the store, and says why', () => {
    const h = home();
    const live = uuid(20);
    record(h, live, claudeSession(h, { id: live, cwd: h }));
    for (let i = 21; i < 26; i++) record(h, uuid(i), path.join(h, `x${i}.jsonl`));
    const r = run(h, ['snapshot']);
    expect(r.code).toBe(0);
    expect(r.stderr).toContain('pruning refused: 5 of 6 snapshot records have no transcript');
    expect(fs.readdirSync(store(h)).filter((n) => n.endsWith('.json'))).toHaveLength(6);
    // The next pass finds the lookup still broken: said once, not on every run.
    dayLater(h);
    const again = run(h, ['snapshot']);
    expect(again.stderr).not.toContain('pruning refused');
    expect(fs.readdirSync(store(h)).filter((n) => n.endsWith('.json'))).toHaveLength(6);
    // The lookup works again (the transcripts are back): a clean pass; broken once more, it is said again.
    for (let i = 21; i < 26; i++) record(h, uuid(i), claudeSession(h, { id: uuid(i), cwd: h }));
    dayLater(h);
    expect(run(h, ['snapshot']).stderr).not.toContain('pruning refused');
    for (let i = 21; i < 26; i++) record(h, uuid(i), path.join(h, `x${i}.jsonl`));
    for (let i = 21; i < 26; i++) fs.rmSync(path.join(h, '.claude', 'projects', `-p-${uuid(i).slice(0, 8)}`, `${uuid(i)}.jsonl`));
    dayLater(h);
    expect(run(h, ['snapshot']).stderr).toContain('pruning refused: 5 of 6 snapshot records have no transcript');
  });

  it('keeps nothing past 180 days, even a record whose session can still be resumed (issue 48)', () => {
    const h = home();
    const old = uuid(30);
    const young = uuid(31);
    record(h, old, claudeSession(h, { id: old, cwd: h }), 181);
    record(h, young, claudeSession(h, { id: young, cwd: h }), 179);
    const r = run(h, ['snapshot']);
    expect(r.stderr).toContain('pruned 1 record(s) (0 whose transcript is gone, 1 older than 180 days)');
    expect(fs.existsSync(path.join(store(h), `${old}.json`))).toBe(false);
    expect(fs.existsSync(path.join(store(h), `${young}.json`))).toBe(true);
  });

  it('RESUME_NO_PRUNE takes the usual true words: 1, yes, true, on, in any case (issue 48)', () => {
    const h = home();
    record(h, uuid(40), path.join(h, 'gone.jsonl'));
    for (const v of ['1', 'yes', 'TRUE', 'On']) {
      const r = run(h, ['snapshot'], { RESUME_NO_PRUNE: v });
      expect(r.stderr, v).not.toContain('pruned');
      expect(fs.existsSync(path.join(store(h), `${uuid(40)}.json`)), v).toBe(true);
    }
    // anything else is not a yes
    expect(run(h, ['snapshot'], { RESUME_NO_PRUNE: 'no' }).stderr).toContain('pruned 1 record(s)');
  });
});

describe.skipIf(notLinux)('restore on resume', () => {
  /** A session that was snapshotted while live, then quit: Claude removed its task directory and registry file. */
  async function quitSession(h: string, id: string, name?: string): Promise<string> {
    claudeSession(h, { id, cwd: h });
    const p = await liveProc();
    const reg = registry(h, { id, pid: must(p.pid), name });
    const dir = tasks(h, id, [task(1, 'write tests'), task(2, 'fix bug', 'in_progress')], 2);
    expect(run(h, ['snapshot', '--quiet']).code).toBe(0);
    p.kill('SIGKILL');
    await new Promise((res) => p.once('exit', res));
    fs.rmSync(dir, { recursive: true });
    fs.rmSync(reg);
    return dir;
  }

  it('--dry-run says what it would restore and writes nothing; the resume restores before the launch; twice changes nothing', async () => {
    const h = home();
    const id = uuid(30);
    const dir = await quitSession(h, id);
    const dry = run(h, [id, '--dry-run']);
    expect(dry.code).toBe(0);
    expect(dry.stderr).toContain(`would restore 2 task(s) (#1, #2) into ~/.claude/tasks/${id}`);
    expect(dry.stderr).toContain('.highwatermark none → 2');
    expect(fs.existsSync(dir)).toBe(false);

    const emit = path.join(h, 'emit');
    const r = run(h, [id], { RESUME_EMIT_FILE: emit });
    expect(r.code).toBe(0);
    expect(r.stderr).toContain('restored 2 task(s)');
    expect(JSON.parse(fs.readFileSync(path.join(dir, '2.json'), 'utf8'))).toEqual(task(2, 'fix bug', 'in_progress'));
    expect(fs.readFileSync(path.join(dir, '.highwatermark'), 'utf8')).toBe('2');
    expect(fs.readFileSync(emit, 'utf8')).toContain(`--resume ${id}`);
    const before = fs.readdirSync(dir).map((n) => [n, fs.statSync(path.join(dir, n)).mtimeMs]);
    const again = run(h, [id], { RESUME_EMIT_FILE: emit });
    expect(again.code).toBe(0);
    expect(again.stderr).toBe('');
    expect(fs.readdirSync(dir).map((n) => [n, fs.statSync(path.join(dir, n)).mtimeMs])).toEqual(before);
  });

  it('a /rename name the transcript lost is given back to claude as --name (issue 48)', async () => {
    const h = home();
    const id = uuid(32);
    await quitSession(h, id, 'my name');
    const installed = (v: string) => {
      const link = path.join(h, '.local', 'bin', 'claude');
      fs.rmSync(link, { force: true });
      fs.mkdirSync(path.dirname(link), { recursive: true });
      fs.symlinkSync(write(h, `.local/share/claude/versions/${v}`, ''), link);
    };
    const argv = (r: { stdout: string }) => JSON.parse(r.stdout).argv;
    // the installed claude is one checked to take --name with --resume (it appends a custom-title record)
    installed('2.1.332');
    const r = run(h, [id, '--dry-run', '--json']);
    expect(r.code, r.stderr).toBe(0);
    expect(argv(r)).toEqual(['claude', '--resume', id, '--name', 'my name']);
    expect(r.stderr).toContain(`the name "my name" kept by resume snapshot goes back to claude (--name): its transcript has lost it`);
    // a fork is a new session: not named after this one
    expect(argv(run(h, [id, '--fork', '--dry-run', '--json']))).toEqual(['claude', '--resume', id, '--fork-session']);
    // a name given after -- is the user's
    expect(argv(run(h, [id, '--dry-run', '--json', '--', '--name', 'mine']))).toEqual(['claude', '--resume', id, '--name', 'mine']);
    // an older claude, not known to take --name: left out, and said
    installed('2.1.100');
    const old = run(h, [id, '--dry-run', '--json']);
    expect(argv(old)).toEqual(['claude', '--resume', id]);
    expect(old.stderr).toContain('not given back: claude 2.1.100 is older than 2.1.332');
    // the transcript has a name of its own: nothing to give back
    installed('2.1.332');
    fs.appendFileSync(
      path.join(h, '.claude', 'projects', `-p-${id.slice(0, 8)}`, `${id}.jsonl`),
      `${JSON.stringify({ type: 'custom-title', customTitle: 'renamed since', sessionId: id })}\n`,
    );
    const own = run(h, [id, '--dry-run', '--json']);
    expect(argv(own)).toEqual(['claude', '--resume', id]);
    expect(own.stderr).not.toContain('--name');
  });

  it('a task file the session already has wins; .highwatermark is raised, never lowered', async () => {
    const h = home();
    const id = uuid(31);
    const dir = await quitSession(h, id);
    write(h, path.join(dir, '1.json'), JSON.stringify(task(1, 'the live one')));
    write(h, path.join(dir, '.highwatermark'), '7');
    const r = run(h, [id], { RESUME_EMIT_FILE: path.join(h, 'emit') });
    expect(r.stderr).toContain('restored 1 task(s) (#2)');
    expect(r.stderr).toContain('1 already there (kept)');
    expect(JSON.parse(fs.readFileSync(path.join(dir, '1.json'), 'utf8')).subject).toBe('the live one');
    expect(fs.readFileSync(path.join(dir, '.highwatermark'), 'utf8')).toBe('7');

    const id2 = uuid(32);
    const dir2 = await quitSession(h, id2);
    write(h, path.join(dir2, '.highwatermark'), '1');
    run(h, [id2], { RESUME_EMIT_FILE: path.join(h, 'emit') });
    expect(fs.readFileSync(path.join(dir2, '.highwatermark'), 'utf8')).toBe('2');
  });

  it('--fork reports the snapshotted tasks instead of restoring them', async () => {
    const h = home();
    const id = uuid(33);
    const dir = await quitSession(h, id);
    const r = run(h, [id, '--fork', '--dry-run']);
    expect(r.code).toBe(0);
    expect(r.stderr).toContain('the fork starts with its own task list; 2 snapshotted task(s)');
    expect(r.stderr).toContain('#1 write tests; #2 fix bug');
    expect(fs.existsSync(dir)).toBe(false);
  });

  it('the snapshotted name shows in ls and show when the transcript has none', async () => {
    const h = home();
    const id = uuid(34);
    await quitSession(h, id, 'auth \u001b[31mrework');
    const ls: Listed[] = JSON.parse(run(h, ['ls', '--json']).stdout);
    expect(must(ls.find((s) => s.id === id)).title).toBe('auth rework');
    expect(run(h, ['show', id]).stdout).toMatch(/^title:\s+auth rework$/m);
    // A transcript title wins over the snapshot.
    fs.appendFileSync(
      path.join(h, '.claude', 'projects', `-p-${id.slice(0, 8)}`, `${id}.jsonl`),
      `${JSON.stringify({ type: 'custom-title', customTitle: 'from transcript', sessionId: id })}\n`,
    );
    expect(must((JSON.parse(run(h, ['ls', '--json']).stdout) as Listed[]).find((s) => s.id === id)).title).toBe('from transcript');
  });
});

describe('resume init claude-hook', () => {
  it('prints the Stop-hook fragment with the absolute path of this binary', () => {
    const h = home();
    const r = run(h, ['init', 'claude-hook']);
    expect(r.code).toBe(0);
    const f = JSON.parse(r.stdout);
    const cmd = f.hooks.Stop[0].hooks[0];
    expect(cmd.type).toBe('command');
    expect(cmd.command).toMatch(/^\/\S*\/bin\/resume snapshot --quiet$/);
  });

  it('--write merges into CLAUDE_CONFIG_DIR/settings.json, keeps every other setting, backs up first, is idempotent', () => {
    const h = home();
    const cfg = path.join(h, 'claude-cfg');
    const settings = {
      model: 'opus',
      hooks: { Stop: [{ hooks: [{ type: 'command', command: 'notify-send done' }] }], PreToolUse: [{ matcher: 'Bash', hooks: [] }] },
    };
    const file = write(h, path.join(cfg, 'settings.json'), JSON.stringify(settings));
    const env = { CLAUDE_CONFIG_DIR: cfg };
    const r = run(h, ['init', 'claude-hook', '--write'], env);
    expect(r.code).toBe(0);
    expect(r.stderr).toContain('added the Stop hook');
    const now = JSON.parse(fs.readFileSync(file, 'utf8'));
    expect(now.model).toBe('opus');
    expect(now.hooks.PreToolUse).toEqual(settings.hooks.PreToolUse);
    expect(now.hooks.Stop).toHaveLength(2);
    expect(now.hooks.Stop[0]).toEqual(settings.hooks.Stop[0]);
    expect(now.hooks.Stop[1].hooks[0].command).toMatch(/\/bin\/resume snapshot --quiet$/);
    const backups = fs.readdirSync(cfg).filter((n) => n.startsWith('settings.json.resume-backup-'));
    expect(backups).toHaveLength(1);
    expect(JSON.parse(fs.readFileSync(path.join(cfg, backups[0]), 'utf8'))).toEqual(settings);

    const text = fs.readFileSync(file, 'utf8');
    const again = run(h, ['init', 'claude-hook', '--write'], env);
    expect(again.code).toBe(0);
    expect(again.stderr).toContain('already in');
    expect(fs.readFileSync(file, 'utf8')).toBe(text);
    expect(fs.readdirSync(cfg).filter((n) => n.startsWith('settings.json.resume-backup-'))).toHaveLength(1);
    expect(fs.existsSync(path.join(h, '.claude', 'settings.json'))).toBe(false);
  });

  it('--write updates a hook of an older resume path in place; creates a missing file; refuses a broken one untouched', () => {
    const h = home();
    const file = write(
      h,
      '.claude/settings.json',
      JSON.stringify({ hooks: { Stop: [{ hooks: [{ type: 'command', command: '/old/place/bin/resume snapshot --quiet' }] }] } }),
    );
    expect(run(h, ['init', 'claude-hook', '--write']).stderr).toContain('updated the Stop hook');
    const s = JSON.parse(fs.readFileSync(file, 'utf8'));
    expect(s.hooks.Stop).toHaveLength(1);
    expect(s.hooks.Stop[0].hooks[0].command).not.toContain('/old/place');

    const h2 = home();
    expect(run(h2, ['init', 'claude-hook', '--write']).code).toBe(0);
    expect(JSON.parse(fs.readFileSync(path.join(h2, '.claude', 'settings.json'), 'utf8')).hooks.Stop).toHaveLength(1);

    const h3 = home();
    const bad = write(h3, '.claude/settings.json', '{"model": "opus",');
    const r = run(h3, ['init', 'claude-hook', '--write']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('is not valid JSON');
    expect(fs.readFileSync(bad, 'utf8')).toBe('{"model": "opus",');
    expect(run(h3, ['init', 'zsh', '--write']).code).toBe(2);
  });
});

describe.skipIf(notLinux)('resume outdated', () => {
  /** ~/.local/bin/claude → ~/.local/share/claude/versions/<v> */
  function installed(h: string, v: string): void {
    const target = write(h, `.local/share/claude/versions/${v}`, '#!/bin/sh\n');
    fs.mkdirSync(path.join(h, '.local', 'bin'), { recursive: true });
    fs.rmSync(path.join(h, '.local', 'bin', 'claude'), { force: true });
    fs.symlinkSync(target, path.join(h, '.local', 'bin', 'claude'));
  }

  it('lists live sessions older than the symlinked version (numeric compare), with status, pane and unparseable versions', async () => {
    const h = home();
    installed(h, '2.1.100');
    const a = await liveProc({ TMUX_PANE: '%7', TMUX: '/tmp/tmux-1/default,1,0' });
    const b = await liveProc({ HERDR_PANE_ID: 'p-3' });
    const c = await liveProc();
    const d = await liveProc();
    const e = await liveProc();
    registry(h, { id: uuid(40), pid: must(a.pid), version: '2.1.99', status: 'idle', name: 'old one' });
    registry(h, { id: uuid(41), pid: must(b.pid), version: '2.1.9', status: 'waiting' });
    registry(h, { id: uuid(42), pid: must(c.pid), version: '2.1.100' });
    registry(h, { id: uuid(43), pid: must(d.pid), version: '2.1.100-beta' });
    registry(h, { id: uuid(44), pid: must(e.pid), version: '2.1.101' });
    registry(h, { id: uuid(45), pid: 999999998, version: '1.0.0', procStart: '3' });
    const r = run(h, ['outdated', '--json']);
    expect(r.code).toBe(0);
    const list: { pid: number }[] = JSON.parse(r.stdout);
    const byPid = [a, b, d].map((p) => p.pid).sort((x, y) => must(x) - must(y));
    expect(list.map((o) => o.pid)).toEqual(byPid);
    const oa = list.find((o) => o.pid === a.pid);
    expect(oa).toEqual({
      session: uuid(40),
      pid: a.pid,
      name: 'old one',
      cwd: h,
      version: '2.1.99',
      installed: '2.1.100',
      status: 'idle',
      busy: false,
      pane: '%7',
      pane_kind: 'tmux',
      version_unparseable: false,
    });
    expect(list.find((o) => o.pid === b.pid)).toMatchObject({ busy: true, status: 'waiting', pane: 'p-3', pane_kind: 'herdr' });
    expect(list.find((o) => o.pid === d.pid)).toMatchObject({
      version: '2.1.100-beta',
      version_unparseable: true,
      pane: '',
      pane_kind: null,
    });

    const t = run(h, ['outdated']);
    expect(t.code).toBe(0);
    expect(t.stdout.split('\n').filter(Boolean)).toHaveLength(3);
    expect(t.stdout).toContain('2.1.99 < 2.1.100\tidle\ttmux:%7');
    expect(t.stdout).toContain('2.1.100-beta (unparseable)');
  });

  it('falls back to claude --version; [] when none; exit 2 when the installed version is unknown', async () => {
    const h = home();
    const bin = path.join(h, 'bin');
    write(h, 'bin/claude', '#!/bin/sh\necho "2.1.332 (Claude Code)"\n');
    fs.chmodSync(path.join(bin, 'claude'), 0o755);
    const p = await liveProc();
    registry(h, { id: uuid(50), pid: must(p.pid), version: '2.1.332' });
    const env = { PATH: `${bin}:/usr/bin:/bin` };
    const r = run(h, ['outdated', '--json'], env);
    expect(r).toMatchObject({ code: 0, stdout: '[]\n' });
    expect(run(h, ['outdated'], env).stderr).toContain('installed claude 2.1.332 (claude --version)');

    // A symlink that is not into a versions directory does not count: --version decides.
    write(h, 'elsewhere/claude', '');
    fs.mkdirSync(path.join(h, '.local', 'bin'), { recursive: true });
    fs.symlinkSync(path.join(h, 'elsewhere', 'claude'), path.join(h, '.local', 'bin', 'claude'));
    expect(run(h, ['outdated'], env).stderr).toContain('(claude --version)');

    const none = run(h, ['outdated', '--json'], { PATH: '/usr/bin:/bin' });
    expect(none.code).toBe(2);
    expect(none.stdout).toBe('');
    expect(none.stderr).toContain('cannot tell the installed claude version');
    write(h, 'bin/claude', '#!/bin/sh\necho nonsense\n');
    expect(run(h, ['outdated'], env).code).toBe(2);
  });

  it('--help documents the fields', () => {
    const r = run(home(), ['outdated', '--help']);
    expect(r.code).toBe(0);
    for (const f of [
      'session',
      'pid',
      'name',
      'cwd',
      'version',
      'installed',
      'status',
      'busy',
      'pane',
      'pane_kind',
      'version_unparseable',
    ]) {
      expect(r.stdout).toMatch(new RegExp(`^  ${f}\\s`, 'm'));
    }
  });
});

describe.skipIf(notLinux)('doctor: Claude rescue warnings', () => {
  it('warns when live sessions exist but the snapshot store is empty, and when task directories do not follow session ids', async () => {
    const h = home();
    const id = uuid(60);
    claudeSession(h, { id, cwd: h });
    const p = await liveProc();
    registry(h, { id, pid: must(p.pid) });
    tasks(h, 'team-list', [task(1, 'x')]);
    tasks(h, 'other-list', [task(1, 'y')]);
    const r = JSON.parse(run(h, ['doctor', '--json']).stdout);
    expect(r.claudeCare.live).toBe(1);
    expect(r.claudeCare.snapshots).toBe(0);
    expect(r.claudeCare.warnings.join('\n')).toContain('snapshot store is empty');
    expect(r.claudeCare.warnings.join('\n')).toContain('2 of 2 task directories');
    const text = run(h, ['doctor']).stdout;
    expect(text).toContain('claude rescue (resume snapshot)');
    expect(text).toMatch(/warning\s+1 live Claude session/);

    // With a snapshot and task directories named after sessions: no warnings.
    fs.rmSync(path.join(h, '.claude', 'tasks'), { recursive: true });
    tasks(h, id, [task(1, 'x')]);
    run(h, ['snapshot', '--quiet']);
    expect(JSON.parse(run(h, ['doctor', '--json']).stdout).claudeCare.warnings).toEqual([]);
  });
});

describe.skipIf(notLinux)('restore when the client kept its tasks (Claude Code 2.1.332)', () => {
  it('finds nothing missing, writes nothing (not even a .highwatermark the client does not keep)', async () => {
    const h = home();
    const id = uuid(70);
    // 2.1.332 keeps a /rename name in the transcript itself
    const file = claudeSession(h, { id, cwd: h });
    fs.appendFileSync(file, `${JSON.stringify({ type: 'custom-title', customTitle: 'kept', sessionId: id })}\n`);
    const p = await liveProc();
    const reg = registry(h, { id, pid: must(p.pid), name: 'kept' });
    const dir = tasks(h, id, [task(1, 'a', 'completed'), task(2, 'b')]);
    write(h, path.join(dir, '.lock'), '');
    expect(run(h, ['snapshot', '--quiet']).code).toBe(0);
    p.kill('SIGKILL');
    await new Promise((res) => p.once('exit', res));
    fs.rmSync(reg);
    const dry = run(h, [id, '--dry-run']);
    expect(dry.stderr).toContain('all 2 snapshotted task(s) already in');
    const r = run(h, [id], { RESUME_EMIT_FILE: path.join(h, 'emit') });
    expect(r).toMatchObject({ code: 0, stderr: '' });
    expect(fs.readdirSync(dir).sort()).toEqual(['.lock', '1.json', '2.json']);
  });
});
