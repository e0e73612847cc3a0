// `resume hooks run|install|status` through the built CLI: a stand-in `claude` whose `--version`
// changes between runs (or between reads), stand-in hook commands that record their argv and
// environment, signals, the lock, the audit trail's rotation, bad configs; the systemd units checked
// with `systemd-analyze verify --user`, the launchd plist with `plutil -lint` or a schema test.

import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { BIN, envFor, must, needs, run, sleep, tempHome, write } from './helpers.js';
import { uuid as uuidAt } from './launch-helpers.js';

// Ids of this file's own (the live check reads every process on the machine: another test file's
// stand-in naming the same id would make its session look live).
const uuid = (i: number) => uuidAt(i, 'b0b0b0b0-0000-4000-8000');

import { scrubTail } from '../lib/hooks/audit.js';
import { activate, launchdPlist, type Paths, systemdUnits } from '../lib/hooks/install.js';
import type { HooksReport } from '../lib/hooks/status.js';
import { makeCtx } from '../lib/util/paths.js';

const homes: string[] = [];
const kids: ChildProcess[] = [];
const servers: net.Server[] = [];
afterEach(() => {
  for (const k of kids.splice(0)) k.kill('SIGKILL');
  for (const s of servers.splice(0)) s.close();
  for (const h of homes.splice(0)) fs.rmSync(h, { recursive: true, force: true });
});

// Prints line n of ~/versions on its n-th call (the last line once they run out).
const CLAUDE = `#!/bin/sh
n=$(cat "$HOME/reads" 2>/dev/null || echo 0); n=$((n+1)); echo "$n" > "$HOME/reads"
v=$(sed -n "\${n}p" "$HOME/versions"); [ -n "$v" ] || v=$(tail -n 1 "$HOME/versions")
echo "$v (Claude Code)"
`;
// Records who ran it, with what, then does what ~/hook-<name>.do says (exit code, stderr, sleep, a new claude version).
const HOOK = `#!/bin/sh
printf '%s|%s|%s|%s|%s|%s\\n' "$(basename "$0")" "$RESUME_HARNESS" "$RESUME_OLD_VERSION" "$RESUME_NEW_VERSION" "$1" "$2" >> "$HOME/hooks.log"
name=$(basename "$0")
[ -f "$HOME/$name.sleep" ] && { echo $$ > "$HOME/$name.pid"; sleep "$(cat "$HOME/$name.sleep")"; }
[ -f "$HOME/$name.bump" ] && { cat "$HOME/$name.bump" > "$HOME/versions"; rm -f "$HOME/reads" "$HOME/$name.bump"; }
[ -f "$HOME/$name.bumpall" ] && { echo "9.0.$(wc -l < "$HOME/hooks.log" | tr -d ' ')" > "$HOME/versions"; rm -f "$HOME/reads"; }
[ -f "$HOME/$name.stderr" ] && cat "$HOME/$name.stderr" >&2
[ -f "$HOME/$name.echoargs" ] && echo "posting to $1 as $2 failed" >&2
exit "$(cat "$HOME/$name.exit" 2>/dev/null || echo 0)"
`;

interface W {
  home: string;
  env: Record<string, string>;
}

function world(versions = ['2.1.1']): W {
  const home = tempHome('resume-hooks-');
  homes.push(home);
  write(home, 'bin/claude', CLAUDE);
  fs.chmodSync(path.join(home, 'bin/claude'), 0o755);
  for (const h of ['hook-a', 'hook-b']) {
    write(home, `bin/${h}`, HOOK);
    fs.chmodSync(path.join(home, `bin/${h}`), 0o755);
  }
  setVersions({ home } as W, versions);
  // TMUX_TMPDIR: restart asks every tmux server of the user for a claude without TMUX; none here
  return { home, env: { PATH: `${home}/bin:${process.env.PATH}`, RESUME_HOOKS_SETTLE_MS: '20', TMUX_TMPDIR: path.join(home, 'no-tmux') } };
}

function setVersions(w: W, v: string[]): void {
  write(w.home, 'versions', `${v.join('\n')}\n`);
  fs.rmSync(path.join(w.home, 'reads'), { force: true });
}

function config(w: W, text: string): void {
  write(w.home, '.config/resume/config', text);
}

const hook = (w: W, name: string, extra = '') =>
  `[[resume.on_update]]\nharness = "claude"\ncommand = ["${w.home}/bin/${name}", "a b; echo $HOME", "--token=s3cr3t-value"]\n${extra}`;
const hooksRun = (w: W) => run(w.home, ['hooks', 'run'], w.env);
const stateDir = (w: W) => path.join(w.home, '.local', 'state', 'resume');
const state = (w: W) => JSON.parse(fs.readFileSync(path.join(stateDir(w), 'hooks.json'), 'utf8'));
const runs = (w: W) =>
  fs
    .readFileSync(path.join(stateDir(w), 'runs.jsonl'), 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l));
const log = (w: W) =>
  fs.existsSync(path.join(w.home, 'hooks.log')) ? fs.readFileSync(path.join(w.home, 'hooks.log'), 'utf8').trim().split('\n') : [];

describe('resume hooks run', { timeout: 60_000 }, () => {
  it('the first run records a baseline and fires nothing; a change fires the hooks in order with the versions set; then it is recorded', () => {
    const w = world(['2.1.1']);
    config(w, hook(w, 'hook-a') + hook(w, 'hook-b'));
    const r1 = hooksRun(w);
    expect(r1).toMatchObject({ code: 0, stdout: 'claude\t2.1.1\tbaseline recorded; no hooks fired\n', stderr: '' });
    expect(log(w)).toEqual([]);
    expect(state(w).claude).toMatchObject({ version: '2.1.1', pending: null });

    expect(hooksRun(w)).toMatchObject({ code: 0, stdout: 'claude\t2.1.1\tunchanged\n' });
    expect(log(w)).toEqual([]);

    setVersions(w, ['2.1.2']);
    const r2 = hooksRun(w);
    expect(r2.stderr).toBe('');
    expect(r2.code).toBe(0);
    expect(r2.stdout).toMatch(
      /^claude\t2\.1\.1 -> 2\.1\.2\thook 1\thook-a\tok\t\d+ ms\nclaude\t2\.1\.1 -> 2\.1\.2\thook 2\thook-b\tok\t\d+ ms\n$/,
    );
    // argv without a shell: the metacharacters and $HOME arrive literally
    expect(log(w)).toEqual([
      'hook-a|claude|2.1.1|2.1.2|a b; echo $HOME|--token=s3cr3t-value',
      'hook-b|claude|2.1.1|2.1.2|a b; echo $HOME|--token=s3cr3t-value',
    ]);
    expect(state(w).claude.version).toBe('2.1.2');
    const rs = runs(w);
    expect(rs.map((r) => [r.event, r.hook, r.program, r.exit_code, r.old_version, r.new_version])).toEqual([
      ['baseline', null, null, null, null, '2.1.1'],
      ['hook', 1, 'hook-a', 0, '2.1.1', '2.1.2'],
      ['hook', 2, 'hook-b', 0, '2.1.1', '2.1.2'],
    ]);
    expect(typeof rs[1].duration_ms).toBe('number');
    expect(Date.parse(rs[1].time)).toBeGreaterThan(0);
    // the program's base name only: never its arguments
    expect(fs.readFileSync(path.join(stateDir(w), 'runs.jsonl'), 'utf8')).not.toContain('s3cr3t');
    expect(fs.statSync(path.join(stateDir(w), 'runs.jsonl')).mode & 0o777).toBe(0o600);
    expect(fs.statSync(stateDir(w)).mode & 0o777).toBe(0o700);
    expect(hooksRun(w).stdout).toBe('claude\t2.1.2\tunchanged\n');
    expect(log(w)).toHaveLength(2);
  });

  it('a failing hook does not stop the next; its stderr tail is scrubbed and at most 240 characters; exit 1', () => {
    const w = world(['2.1.1']);
    config(w, hook(w, 'hook-a') + hook(w, 'hook-b'));
    hooksRun(w);
    write(w.home, 'hook-a.exit', '7');
    write(
      w.home,
      'hook-a.stderr',
      `${'x'.repeat(500)}\n\u001b[31mfailed\u001b[0m: Authorization: Bearer abcdefghijklmnop0123 sk-ant-api03-AAAAAAAAAAAAAAAAAAAA\n`,
    );
    setVersions(w, ['2.1.2']);
    const r = hooksRun(w);
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/hook 1\thook-a\texit 7\t.*\n.*hook 2\thook-b\tok/);
    expect(log(w).map((l) => l.split('|')[0])).toEqual(['hook-a', 'hook-b']);
    const a = runs(w).find((x) => x.hook === 1);
    expect(a.exit_code).toBe(7);
    expect(Array.from(a.stderr_tail as string).length).toBeLessThanOrEqual(240);
    expect(a.stderr_tail).toMatch(/failed: Authorization: Bearer \[REDACTED:bearer-token\] \[REDACTED:anthropic-key\]$/);
    expect(a.stderr_tail).not.toMatch(/\u001b|abcdefghijklmnop0123|AAAAAAAA/);
    expect(r.stderr).not.toContain('abcdefghijklmnop0123');
    // the version is recorded all the same: a command is not retried
    expect(state(w).claude).toMatchObject({ version: '2.1.2', pending: null });
  });

  it("each record says what fired it; the hook's own argument values are scrubbed from stderr_tail (issue 48)", () => {
    const w = world(['2.1.1']);
    const url = 'https://hooks.example.com/services/T0AAA/B0BBB/q7Zx9Lm2Np4Rt6Vw';
    config(w, `[[resume.on_update]]\nharness = "claude"\ncommand = ["${w.home}/bin/hook-a", "${url}", "user=alice-ops"]\n`);
    expect(hooksRun(w).code).toBe(0);
    write(w.home, 'hook-a.echoargs', '');
    write(w.home, 'hook-a.exit', '1');
    setVersions(w, ['2.1.2']);
    const r = run(w.home, ['hooks', 'run', '--trigger', 'watcher'], w.env);
    expect(r.code).toBe(1);
    const rs = runs(w);
    expect(rs.map((x) => [x.event, x.trigger])).toEqual([
      ['baseline', 'manual'],
      ['hook', 'watcher'],
    ]);
    const text = fs.readFileSync(path.join(stateDir(w), 'runs.jsonl'), 'utf8');
    expect(text).not.toContain('q7Zx9Lm2Np4Rt6Vw');
    expect(text).not.toContain('alice-ops');
    expect(rs[1].stderr_tail).toBe('posting to [REDACTED:argument-1] as [REDACTED:argument-2] failed');
    expect(r.stderr).not.toContain('q7Zx9Lm2Np4Rt6Vw');
    expect(run(w.home, ['hooks', 'run', '--trigger', 'cron'], w.env).code).toBe(2);
    const st = run(w.home, ['hooks', 'status'], w.env).stdout;
    expect(st).toMatch(/\twatcher\tclaude 2\.1\.1 -> 2\.1\.2\thook 1 hook-a\texit 1\t/);
    expect(st).not.toContain('q7Zx9Lm2Np4Rt6Vw');
  });

  it('a program that cannot be started is a failed hook, and the next one runs', () => {
    const w = world(['2.1.1']);
    config(w, `[[resume.on_update]]\nharness = "claude"\ncommand = ["${w.home}/no/such/prog", "--password", "pw"]\n${hook(w, 'hook-b')}`);
    hooksRun(w);
    setVersions(w, ['2.1.2']);
    const r = hooksRun(w);
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/hook 1\tprog\tcannot run: ENOENT\t.*\n.*hook 2\thook-b\tok/);
    expect(runs(w).find((x) => x.hook === 1)).toMatchObject({ program: 'prog', exit_code: null, stopped: 'cannot run: ENOENT' });
    expect(state(w).claude.version).toBe('2.1.2');
  });

  it('a hook past its timeout is stopped (its process group too), and the next hook still runs', () => {
    const w = world(['2.1.1']);
    config(w, hook(w, 'hook-a', 'timeout_seconds = 1\n') + hook(w, 'hook-b'));
    hooksRun(w);
    write(w.home, 'hook-a.sleep', '60');
    setVersions(w, ['2.1.2']);
    const r = hooksRun(w);
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/hook 1\thook-a\ttimeout after 1 s\t/);
    expect(r.stdout).toMatch(/hook 2\thook-b\tok/);
    const a = runs(w).find((x) => x.hook === 1);
    expect(a).toMatchObject({ stopped: 'timeout after 1 s', exit_code: null });
    const sleeper = Number(fs.readFileSync(path.join(w.home, 'hook-a.pid'), 'utf8'));
    expect(() => process.kill(sleeper, 0)).toThrow();
    expect(state(w).claude.version).toBe('2.1.2');
  });

  it('a version still moving fires nothing and records nothing; one that settles after a re-read fires once', () => {
    const w = world(['2.1.1']);
    config(w, hook(w, 'hook-a'));
    hooksRun(w);
    setVersions(w, ['2.1.2', '2.1.3', '2.1.4', '2.1.5', '2.1.6', '2.1.7', '2.1.8']);
    const r = hooksRun(w);
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(
      'resume: the claude version has not settled (2.1.2, 2.1.3, 2.1.4, 2.1.5, 2.1.6, 2.1.7); nothing fired, nothing recorded\n',
    );
    expect(fs.readFileSync(path.join(w.home, 'reads'), 'utf8').trim()).toBe('6'); // one read and 5 re-reads
    expect(log(w)).toEqual([]);
    expect(state(w).claude.version).toBe('2.1.1');
    expect(runs(w).at(-1)).toMatchObject({ event: 'unsettled', old_version: '2.1.1' });

    setVersions(w, ['2.1.2', '2.1.3']);
    const r2 = hooksRun(w);
    expect(r2.code).toBe(0);
    expect(log(w)).toEqual(['hook-a|claude|2.1.1|2.1.3|a b; echo $HOME|--token=s3cr3t-value']);
  });

  it('an update landing while the hooks run is taken by the next pass; 3 passes at most', () => {
    const w = world(['2.1.1']);
    config(w, hook(w, 'hook-a'));
    hooksRun(w);
    write(w.home, 'hook-a.bump', '2.1.3\n');
    setVersions(w, ['2.1.2']);
    const r = hooksRun(w);
    expect(r.code).toBe(0);
    expect(log(w).map((l) => l.split('|').slice(2, 4).join(' -> '))).toEqual(['2.1.1 -> 2.1.2', '2.1.2 -> 2.1.3']);
    expect(state(w).claude.version).toBe('2.1.3');

    // a version that moves on every pass: 3 passes, then the rest waits for the next run
    fs.rmSync(path.join(w.home, 'hooks.log'));
    write(w.home, 'hook-a.bumpall', '');
    setVersions(w, ['2.1.4']);
    const r2 = hooksRun(w);
    expect(r2.code).toBe(0);
    expect(log(w).map((l) => l.split('|').slice(2, 4).join(' -> '))).toEqual(['2.1.3 -> 2.1.4', '2.1.4 -> 9.0.1', '9.0.1 -> 9.0.2']);
    expect(r2.stderr).toBe('resume: 3 passes done; a change after them is taken by the next run\n');
    expect(state(w).claude.version).toBe('9.0.2');
  });

  it('SIGTERM, SIGINT or SIGHUP while a hook runs: exit 1, the hook stopped, nothing recorded, the lock gone', async () => {
    for (const sig of ['SIGTERM', 'SIGINT', 'SIGHUP'] as const) {
      const w = world(['2.1.1']);
      config(w, hook(w, 'hook-a') + hook(w, 'hook-b'));
      hooksRun(w);
      write(w.home, 'hook-a.sleep', '60');
      setVersions(w, ['2.1.2']);
      const p = spawn(process.execPath, [BIN, 'hooks', 'run'], { env: envFor(w.home, w.env), cwd: w.home });
      kids.push(p);
      let stderr = '';
      p.stderr.on('data', (d) => (stderr += d));
      const done = new Promise<number | null>((res) => p.on('close', (c) => res(c)));
      const pidFile = path.join(w.home, 'hook-a.pid');
      while (!fs.existsSync(pidFile) || !fs.readFileSync(pidFile, 'utf8').trim()) await sleep(50);
      p.kill(sig);
      expect(await done).toBe(1);
      expect(stderr).toContain(`resume: ${sig}: stopped; nothing recorded (the next run fires the hooks again)`);
      expect(log(w).map((l) => l.split('|')[0])).toEqual(['hook-a']); // hook-b never started
      expect(state(w).claude.version).toBe('2.1.1');
      expect(runs(w).at(-1)).toMatchObject({ event: 'interrupted' });
      expect(runs(w).at(-2)).toMatchObject({ hook: 1, stopped: `interrupted (${sig})` });
      const sleeper = Number(fs.readFileSync(pidFile, 'utf8'));
      expect(() => process.kill(sleeper, 0)).toThrow();
      expect(fs.existsSync(path.join(stateDir(w), 'hooks.lock'))).toBe(false);
      // the next run fires them again
      fs.rmSync(path.join(w.home, 'hook-a.sleep'));
      expect(hooksRun(w).code).toBe(0);
      expect(log(w).map((l) => l.split('|')[0])).toEqual(['hook-a', 'hook-a', 'hook-b']);
    }
  });

  it('the lock: a second run waits its turn (issue 48); a stale lock is taken over', async () => {
    const w = world(['2.1.1']);
    config(w, hook(w, 'hook-a'));
    const lockFile = path.join(stateDir(w), 'hooks.lock');
    write(w.home, '.local/state/resume/hooks.lock', `${process.pid}\n`);
    const p = spawn(process.execPath, [BIN, 'hooks', 'run'], { env: envFor(w.home, w.env), cwd: w.home });
    kids.push(p);
    let stderr = '';
    p.stderr.on('data', (d) => (stderr += d));
    const done = new Promise<number | null>((res) => p.on('close', (c) => res(c)));
    while (!stderr.includes(`resume: waiting for the hooks run of pid ${process.pid} to finish (lock ${lockFile})`)) await sleep(50);
    expect(fs.existsSync(path.join(stateDir(w), 'hooks.json'))).toBe(false);
    // the holder finishes: the waiting run goes ahead
    fs.rmSync(lockFile);
    expect(await done).toBe(0);
    expect(state(w).claude.version).toBe('2.1.1');
    expect(fs.existsSync(lockFile)).toBe(false);
    fs.rmSync(path.join(stateDir(w), 'hooks.json'));
    const dead = spawnSync('true').pid; // exited: its pid names no process
    write(w.home, '.local/state/resume/hooks.lock', `${dead}\n`);
    expect(hooksRun(w).code).toBe(0);
    expect(state(w).claude.version).toBe('2.1.1');
  });

  it.skipIf(process.platform !== 'linux')(
    'a failed unattended restart notifies (notify-send) and stays in status and doctor until acknowledged (issue 48)',
    async () => {
      const w = world(['2.1.1']);
      write(w.home, 'bin/notify-send', `#!/bin/sh\nprintf '%s\\n' "$@" >> "$HOME/notified"\n`);
      fs.chmodSync(path.join(w.home, 'bin/notify-send'), 0o755);
      config(w, '[[resume.on_update]]\nharness = "claude"\naction = "restart"\ntimeout_seconds = 5\n');
      hooksRun(w);
      // a live claude 2.1.1 outside tmux: restart refuses it
      const p = spawn('sleep', ['600'], { stdio: 'ignore' });
      kids.push(p);
      await new Promise((res) => p.once('spawn', res));
      const st = fs.readFileSync(`/proc/${p.pid}/stat`, 'utf8');
      const id = uuid(9);
      write(
        w.home,
        `.claude/sessions/${p.pid}.json`,
        JSON.stringify({
          pid: p.pid,
          sessionId: id,
          cwd: w.home,
          procStart: st.slice(st.lastIndexOf(')') + 2).split(' ')[19],
          version: '2.1.1',
          status: 'idle',
          kind: 'interactive',
        }),
      );
      setVersions(w, ['2.1.2']);
      // by hand: the person sees the output; no alert
      expect(hooksRun(w).code).toBe(1);
      expect(fs.existsSync(path.join(w.home, 'notified'))).toBe(false);
      expect(fs.existsSync(path.join(stateDir(w), 'alert.json'))).toBe(false);
      // from the watcher: a desktop notification, and a line in status and doctor
      expect(run(w.home, ['hooks', 'run', '--trigger', 'watcher'], w.env).code).toBe(1);
      const said = fs.readFileSync(path.join(w.home, 'notified'), 'utf8');
      expect(said).toContain('resume: claude restart failed');
      expect(said).toContain(id);
      const line = `alert: the unattended restart for claude 2.1.1 -> 2.1.2 failed`;
      expect(run(w.home, ['hooks', 'status'], w.env).stdout).toContain(line);
      expect(run(w.home, ['doctor'], w.env).stdout).toContain(line.replace('alert: ', ''));
      // a second failure does not notify again
      run(w.home, ['hooks', 'run', '--trigger', 'watcher'], w.env);
      expect(fs.readFileSync(path.join(w.home, 'notified'), 'utf8')).toBe(said);
      const ack = run(w.home, ['hooks', 'ack'], w.env);
      expect(ack.code).toBe(0);
      expect(ack.stderr).toContain('acknowledged');
      expect(run(w.home, ['hooks', 'status'], w.env).stdout).not.toContain('alert:');
      expect(run(w.home, ['doctor'], w.env).stdout).not.toContain('unattended restart');
      expect(run(w.home, ['hooks', 'ack'], w.env).stderr).toContain('nothing to acknowledge');
    },
  );

  it('runs.jsonl is rotated at 1 MiB, one .1 kept; status reads the last runs across both', () => {
    const w = world(['2.1.1']);
    config(w, hook(w, 'hook-a'));
    const old = JSON.stringify({
      time: '2026-01-01T00:00:00.000Z',
      harness: 'claude',
      event: 'hook',
      old_version: '1.0.0',
      new_version: '1.0.1',
      hook: 1,
      kind: 'command',
      program: 'old',
      exit_code: 0,
      stopped: null,
      duration_ms: 1,
      stderr_tail: '',
    });
    const file = path.join(stateDir(w), 'runs.jsonl');
    write(w.home, file, `${old}\n`.repeat(Math.ceil((1 << 20) / old.length) + 1));
    write(w.home, `${file}.1`, 'the oldest\n');
    const big = fs.statSync(file).size;
    expect(big).toBeGreaterThanOrEqual(1 << 20);
    hooksRun(w);
    expect(fs.statSync(`${file}.1`).size).toBe(big);
    expect(runs(w)).toHaveLength(1);
    expect(fs.existsSync(`${file}.2`)).toBe(false);
    const st: HooksReport = JSON.parse(run(w.home, ['hooks', 'status', '--json'], w.env).stdout);
    expect(st.runs).toHaveLength(5);
    expect(st.runs.slice(0, 4).map((r) => r.program)).toEqual(['old', 'old', 'old', 'old']);
    expect(st.runs[4].event).toBe('baseline');
  });

  it.skipIf(process.platform !== 'linux')('an unfinished restart stays pending and is retried, 3 attempts in all', async () => {
    const w = world(['2.1.1']);
    config(w, `[[resume.on_update]]\nharness = "claude"\naction = "restart"\ntimeout_seconds = 5\n${hook(w, 'hook-a')}`);
    hooksRun(w);
    // a live claude 2.1.1 outside tmux: restart refuses it, so the restart cannot finish
    const p = spawn('sleep', ['600'], { stdio: 'ignore' });
    kids.push(p);
    await new Promise((res) => p.once('spawn', res));
    const st = fs.readFileSync(`/proc/${p.pid}/stat`, 'utf8');
    const start = st.slice(st.lastIndexOf(')') + 2).split(' ')[19];
    const id = uuid(7);
    write(
      w.home,
      `.claude/sessions/${p.pid}.json`,
      JSON.stringify({ pid: p.pid, sessionId: id, cwd: w.home, procStart: start, version: '2.1.1', status: 'idle', kind: 'interactive' }),
    );
    setVersions(w, ['2.1.2']);
    const r1 = hooksRun(w);
    expect(r1.code).toBe(1);
    expect(r1.stdout).toMatch(/hook 1\trestart\texit 1\t.*\n.*hook 2\thook-a\tok/);
    expect(r1.stderr).toContain(`resume: restart: ${id}\trefused\tnot in a tmux pane`.replace('\t', ' ').replace('\t', ' '));
    expect(state(w).claude).toMatchObject({ version: '2.1.2', pending: { hooks: [1], old: '2.1.1', new: '2.1.2', attempts: 1 } });
    expect(runs(w).at(-2)).toMatchObject({ hook: 1, kind: 'restart', program: 'resume restart --outdated', exit_code: 1 });
    expect(runs(w).at(-2).stderr_tail).toContain('refused');

    const r2 = hooksRun(w);
    expect(r2.stdout).toMatch(/^claude\t2\.1\.1 -> 2\.1\.2\thook 1\trestart\texit 1/);
    expect(state(w).claude.pending.attempts).toBe(2);
    const r3 = hooksRun(w);
    expect(r3.stderr).toContain('still unfinished after 3 attempts; not retried again');
    expect(state(w).claude.pending).toBeNull();
    expect(runs(w).at(-1)).toMatchObject({ event: 'retry-abandoned' });
    expect(
      runs(w)
        .filter((x) => x.kind === 'restart')
        .map((x) => x.attempt ?? 1),
    ).toEqual([1, 2, 3]);
    expect(hooksRun(w).stdout).toBe('claude\t2.1.2\tunchanged\n');
    // the command hook ran once only: retries are for the restart
    expect(log(w)).toHaveLength(1);
    // once the session is gone (not outdated any more) a new change's restart finishes at once
    p.kill('SIGKILL');
    await new Promise((res) => p.once('exit', res));
    setVersions(w, ['2.1.3']);
    const r5 = hooksRun(w);
    expect(r5.stdout).toMatch(/hook 1\trestart\tok/);
    expect(state(w).claude).toMatchObject({ version: '2.1.3', pending: null });
  });
});

describe('[[resume.on_update]] config errors (exit 2, one line naming the table)', () => {
  const cases: [string, string, RegExp][] = [
    [
      'top-level [[on_update]]',
      '[[on_update]]\nharness = "claude"\naction = "restart"\n',
      /'on_update' belongs in the \[resume\] table: write \[\[resume\.on_update\]\], not \[\[on_update\]\]/,
    ],
    [
      'an unknown key',
      '[[resume.on_update]]\nharness = "claude"\naction = "restart"\nretries = 3\n',
      /unknown key 'resume\.on_update\[0\]\.retries' \(known: harness, action, command, timeout_seconds\)/,
    ],
    ['an unknown key in [resume]', '[resume]\nhooks = 1\n', /unknown key 'resume\.hooks' \(known: on_update\)/],
    [
      'both action and command',
      '[[resume.on_update]]\nharness = "claude"\naction = "restart"\ncommand = ["x"]\n',
      /'resume\.on_update\[0\]' needs exactly one of action = "restart" or command/,
    ],
    ['neither', '[[resume.on_update]]\nharness = "claude"\n', /needs exactly one of/],
    [
      'another harness',
      '[[resume.on_update]]\nharness = "codex"\naction = "restart"\n',
      /'resume\.on_update\[0\]\.harness' = "codex": update hooks are not supported yet for codex \(only "claude"\)/,
    ],
    ['no harness', '[[resume.on_update]]\naction = "restart"\n', /'resume\.on_update\[0\]\.harness' is missing/],
    [
      'a command as a string',
      '[[resume.on_update]]\nharness = "claude"\ncommand = "notify-send hi"\n',
      /'resume\.on_update\[0\]\.command' must be an array of strings \(argv, run without a shell\), not a string/,
    ],
    ['an empty command', '[[resume.on_update]]\nharness = "claude"\ncommand = []\n', /must name a program/],
    ['a bad action', '[[resume.on_update]]\nharness = "claude"\naction = "reboot"\n', /'resume\.on_update\[0\]\.action' must be "restart"/],
    [
      'a bad timeout',
      '[[resume.on_update]]\nharness = "claude"\naction = "restart"\ntimeout_seconds = "30m"\n',
      /'resume\.on_update\[0\]\.timeout_seconds' must be a number of seconds, not a string/,
    ],
    ['a zero timeout', '[[resume.on_update]]\nharness = "claude"\naction = "restart"\ntimeout_seconds = 0\n', /must be more than 0/],
    [
      'the second entry',
      '[[resume.on_update]]\nharness = "claude"\naction = "restart"\n[[resume.on_update]]\nharness = "claude"\ncommand = [1]\n',
      /'resume\.on_update\[1\]\.command\[0\]' must be a string, not a number/,
    ],
  ];
  for (const [name, text, re] of cases) {
    it(name, () => {
      const w = world();
      config(w, text);
      for (const sub of ['run', 'status', 'install']) {
        const r = run(w.home, ['hooks', sub], w.env);
        expect(r.code).toBe(2);
        expect(r.stderr).toMatch(re);
        expect(r.stderr.trim().split('\n')).toHaveLength(1);
      }
      expect(fs.existsSync(stateDir(w))).toBe(false);
    });
  }
  it('the defaults: 300 s for a command, 1800 s for the restart', () => {
    const w = world();
    config(
      w,
      `[[resume.on_update]]\nharness = "claude"\naction = "restart"\n${hook(w, 'hook-a')}${hook(w, 'hook-b', 'timeout_seconds = 12.5\n')}`,
    );
    const st: HooksReport = JSON.parse(run(w.home, ['hooks', 'status', '--json'], w.env).stdout);
    expect(st.hooks).toEqual([
      { hook: 1, harness: 'claude', kind: 'restart', program: null, timeout_seconds: 1800 },
      { hook: 2, harness: 'claude', kind: 'command', program: 'hook-a', timeout_seconds: 300 },
      { hook: 3, harness: 'claude', kind: 'command', program: 'hook-b', timeout_seconds: 12.5 },
    ]);
  });
});

it('scrubTail keeps the last 240 characters of one clean line', () => {
  expect(scrubTail('a\tb\r\nc')).toBe('a b c');
  const t = scrubTail(`${'é'.repeat(1000)}password=hunter22`);
  expect(Array.from(t)).toHaveLength(240);
  expect(t.endsWith('password=[REDACTED:password]')).toBe(true);
});

// A stand-in systemctl/launchctl recording its arguments; `is-active` answers for two units.
const CTL = `#!/bin/sh
echo "$(basename "$0") $*" >> "$HOME/ctl.log"
case "$*" in *is-active*) printf 'active\\nactive\\n' ;; esac
exit 0
`;

function nativeClaude(w: W, version: string): { link: string; target: string } {
  const target = write(w.home, `.local/share/claude/versions/${version}`, CLAUDE);
  fs.chmodSync(target, 0o755);
  const link = path.join(w.home, '.local', 'bin', 'claude');
  fs.mkdirSync(path.dirname(link), { recursive: true });
  fs.rmSync(link, { force: true });
  fs.symlinkSync(target, link);
  return { link, target };
}

async function userBus(w: W): Promise<string> {
  const rt = path.join(w.home, 'run');
  fs.mkdirSync(rt, { mode: 0o700 });
  const s = net.createServer();
  servers.push(s);
  await new Promise<void>((res) => s.listen(path.join(rt, 'bus'), res));
  return rt;
}

const unitDir = (w: W) => path.join(w.home, '.config', 'systemd', 'user');

describe.skipIf(process.platform !== 'linux')('resume hooks install (systemd user units)', { timeout: 60_000 }, () => {
  it('--dry-run prints the three units with absolute paths and writes nothing', () => {
    const w = world(['2.1.1']);
    const { link, target } = nativeClaude(w, '2.1.2');
    const r = run(w.home, ['hooks', 'install', '--dry-run'], w.env);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(`# ${unitDir(w)}/resume-hooks.service\n`);
    expect(r.stdout).toContain(`ExecStart="${process.execPath}" "${BIN}" hooks run --trigger watcher\n`);
    // the link and the versions directory: nothing that changes with each claude version (issue 48)
    expect(r.stdout).toContain(`[Path]\nPathChanged=${link}\nPathChanged=${path.dirname(target)}\nUnit=resume-hooks.service\n`);
    expect(r.stdout).not.toContain(`PathChanged=${target}\n`);
    // every 30 minutes (issue 48)
    expect(r.stdout).toContain('[Timer]\nOnCalendar=*:0/30\nPersistent=true\n');
    expect(r.stderr).toMatch(/^resume: dry run: nothing written/);
    expect(fs.existsSync(unitDir(w))).toBe(false);
    expect(fs.existsSync(stateDir(w))).toBe(false);
  });

  it('without a user bus: writes the units, records the baseline, says what to run; a repeat changes nothing', () => {
    const w = world(['2.1.1']);
    nativeClaude(w, '2.1.2');
    write(w.home, 'bin/systemctl', CTL);
    fs.chmodSync(path.join(w.home, 'bin/systemctl'), 0o755);
    const r = run(w.home, ['hooks', 'install'], { ...w.env, XDG_RUNTIME_DIR: undefined, DBUS_SESSION_BUS_ADDRESS: undefined });
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(
      ['service', 'path', 'timer'].map((x) => `written\t${unitDir(w)}/resume-hooks.${x}\n`).join('') +
        'claude\t2.1.2\tbaseline recorded; no hooks fired\n',
    );
    expect(r.stderr).toBe(
      'resume: not loaded from here; run: systemctl --user daemon-reload && systemctl --user enable --now resume-hooks.path resume-hooks.timer\n',
    );
    expect(fs.existsSync(path.join(w.home, 'ctl.log'))).toBe(false);
    expect(state(w).claude.version).toBe('2.1.2');
    const again = run(w.home, ['hooks', 'install'], w.env);
    expect(again.stdout).toBe(['service', 'path', 'timer'].map((x) => `unchanged\t${unitDir(w)}/resume-hooks.${x}\n`).join(''));
  });

  it('with a user bus: daemon-reload, enable --now and restart after a change; only enable --now when nothing changed; status sees it', async () => {
    const w = world(['2.1.1']);
    nativeClaude(w, '2.1.2');
    write(w.home, 'bin/systemctl', CTL);
    fs.chmodSync(path.join(w.home, 'bin/systemctl'), 0o755);
    const env = { ...w.env, XDG_RUNTIME_DIR: await userBus(w) };
    const r = run(w.home, ['hooks', 'install'], env);
    expect(r.stderr).toBe('');
    expect(r.stdout).toContain(
      'loaded\tsystemctl --user daemon-reload; systemctl --user enable --now resume-hooks.path resume-hooks.timer; systemctl --user restart resume-hooks.path resume-hooks.timer\n',
    );
    run(w.home, ['hooks', 'install'], env);
    const ctl = () => fs.readFileSync(path.join(w.home, 'ctl.log'), 'utf8').trim().split('\n');
    expect(ctl()).toEqual([
      'systemctl --user daemon-reload',
      'systemctl --user enable --now resume-hooks.path resume-hooks.timer',
      'systemctl --user restart resume-hooks.path resume-hooks.timer',
      'systemctl --user enable --now resume-hooks.path resume-hooks.timer',
    ]);
    // an edited unit is put back
    fs.appendFileSync(path.join(unitDir(w), 'resume-hooks.timer'), 'OnBootSec=1\n');
    expect(run(w.home, ['hooks', 'install'], env).stdout).toContain(`written\t${unitDir(w)}/resume-hooks.timer\n`);
    expect(fs.readFileSync(path.join(unitDir(w), 'resume-hooks.timer'), 'utf8')).not.toContain('OnBootSec');

    setVersions(w, ['2.1.2']);
    config(w, hook(w, 'hook-a'));
    const st: HooksReport = JSON.parse(run(w.home, ['hooks', 'status', '--json'], env).stdout);
    expect(st).toMatchObject({ installed: true, loaded: true, loaded_detail: 'resume-hooks.path active, resume-hooks.timer active' });
    expect(st.files.map((f) => f.state)).toEqual(['current', 'current', 'current']);
    expect(st.claude).toMatchObject({ recorded: '2.1.2', installed: '2.1.2', pending_restart: null });
    expect(st.pending).toEqual([]);
    expect(must(st.runs.at(-1)).event).toBe('baseline');
    // a new build behind the link: pending until the next run
    nativeClaude(w, '2.1.3');
    const st2: HooksReport = JSON.parse(run(w.home, ['hooks', 'status', '--json'], env).stdout);
    expect(st2.pending).toEqual(['claude 2.1.2 -> 2.1.3: the next run fires the hooks']);
    // the installed units still fit: a claude update is no reason to install again (issue 48)
    expect(st2.files.map((f) => f.state)).toEqual(['current', 'current', 'current']);
    expect(JSON.parse(run(w.home, ['doctor', '--json'], env).stdout).hooks.warnings.join('\n')).not.toContain('differ');
    const text = run(w.home, ['hooks', 'status'], env);
    expect(text.code).toBe(0);
    expect(text.stdout).toContain('watcher: installed; loaded: yes (resume-hooks.path active, resume-hooks.timer active)\n');
    expect(text.stdout).toContain('claude: recorded 2.1.2');
    expect(text.stdout).toContain('pending: claude 2.1.2 -> 2.1.3: the next run fires the hooks\n');
  });

  it('no claude anywhere: exit 2, nothing written', () => {
    const w = world();
    fs.rmSync(path.join(w.home, 'bin/claude'));
    const r = run(w.home, ['hooks', 'install'], { ...w.env, PATH: `${w.home}/bin:/usr/bin:/bin` });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^resume: no claude found .*install Claude Code first\n$/);
    expect(fs.existsSync(unitDir(w))).toBe(false);
  });

  // systemd-analyze needs no running systemd for `verify --user`, only a runtime directory.
  it.skipIf(needs('systemd-analyze'))('systemd-analyze verify --user accepts the units', () => {
    const w = world(['2.1.1']);
    nativeClaude(w, '2.1.2');
    expect(run(w.home, ['hooks', 'install'], w.env).code).toBe(0);
    const rt = path.join(w.home, 'rt');
    fs.mkdirSync(rt, { mode: 0o700 });
    const files = ['service', 'path', 'timer'].map((x) => path.join(unitDir(w), `resume-hooks.${x}`));
    const r = spawnSync('systemd-analyze', ['verify', '--user', ...files], {
      encoding: 'utf8',
      env: { ...process.env, HOME: w.home, XDG_RUNTIME_DIR: rt, XDG_CONFIG_HOME: path.join(w.home, '.config') },
    });
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    // and it does catch a broken one
    fs.writeFileSync(files[0], fs.readFileSync(files[0], 'utf8').replace(/ExecStart=.*/, 'ExecStart=not-absolute hooks run'));
    const bad = spawnSync('systemd-analyze', ['verify', '--user', ...files], {
      encoding: 'utf8',
      env: { ...process.env, HOME: w.home, XDG_RUNTIME_DIR: rt },
    });
    expect(bad.status).not.toBe(0);
  });
});

/** A strict reader of the XML plist subset launchd agents use (dict, array, string, integer, true, false). */
function readPlist(text: string): unknown {
  const c: PlistCursor = { toks: plistTokens(text), i: 0 };
  const v = plistValue(c);
  if (c.i !== c.toks.length) throw new Error('trailing content');
  return v;
}

/** The reader's place: the tokens (tags and the text between them) and the next one's index. */
interface PlistCursor {
  toks: string[];
  i: number;
}

/** The tokens of the plist's body, once the XML declaration, the doctype and comments are checked and taken off. */
function plistTokens(text: string): string[] {
  let s = text.replace(/^<\?xml version="1\.0" encoding="UTF-8"\?>\s*/, '');
  if (s === text) throw new Error('no XML declaration');
  s = s.replace(
    /^<!DOCTYPE plist PUBLIC "-\/\/Apple\/\/DTD PLIST 1\.0\/\/EN" "http:\/\/www\.apple\.com\/DTDs\/PropertyList-1\.0\.dtd">\s*/,
    '',
  );
  s = s.replace(/<!--[\s\S]*?-->\s*/g, '');
  const m = /^<plist version="1\.0">\s*([\s\S]*)\s*<\/plist>\s*$/.exec(s);
  if (!m) throw new Error('no <plist version="1.0">');
  return must(m[1].match(/<[^>]+>|[^<]+/g)).filter((t) => t.trim());
}

const plistText = (t: string) => t.replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&amp;/g, '&');

/** One value, from its opening tag. */
function plistValue(c: PlistCursor): unknown {
  const t = c.toks[c.i++];
  if (t === '<dict>') return plistDict(c);
  if (t === '<array>') {
    const a: unknown[] = [];
    while (c.toks[c.i] !== '</array>') a.push(plistValue(c));
    c.i++;
    return a;
  }
  if (t === '<true/>') return true;
  if (t === '<false/>') return false;
  if (t === '<string>' || t === '<integer>') return plistScalar(c, t);
  throw new Error(`unexpected ${t}`);
}

/** A dict's keys and values, after its `<dict>`: each key once. */
function plistDict(c: PlistCursor): Record<string, unknown> {
  const { toks } = c;
  const o: Record<string, unknown> = {};
  while (toks[c.i] !== '</dict>') {
    if (toks[c.i++] !== '<key>') throw new Error(`dict: expected <key>, got ${toks[c.i - 1]}`);
    const k = plistText(toks[c.i++]);
    if (toks[c.i++] !== '</key>') throw new Error('unclosed key');
    if (k in o) throw new Error(`duplicate key ${k}`);
    o[k] = plistValue(c);
  }
  c.i++;
  return o;
}

/** A string or an integer, after its opening tag `t`: closed by the same tag, an integer all digits, no raw markup. */
function plistScalar(c: PlistCursor, t: '<string>' | '<integer>'): string | number {
  const { toks } = c;
  const body = toks[c.i] === '</string>' ? '' : toks[c.i++];
  if (toks[c.i++] !== t.replace('<', '</')) throw new Error(`unclosed ${t}`);
  if (t === '<integer>') {
    if (!/^-?\d+$/.test(body)) throw new Error(`bad integer ${body}`);
    return Number(body);
  }
  if (/[<>]/.test(body)) throw new Error('unescaped markup');
  return plistText(body);
}

describe('resume hooks install (launchd agent, macOS)', () => {
  const w = () => world();
  const p = (home: string): Paths => ({
    node: '/opt/homebrew/bin/node',
    resume: `${home}/app & co/bin/resume`,
    watch: [`${home}/.local/bin/claude`, `${home}/.local/share/claude/versions`],
    envPath: '/opt/homebrew/bin:/usr/bin:/bin',
  });

  it('the plist has the agent keys with the right types and absolute paths (plutil -lint where there is one)', () => {
    const x = w();
    const u = launchdPlist(makeCtx({ HOME: x.home }), p(x.home));
    expect(u.file).toBe(path.join(x.home, 'Library', 'LaunchAgents', 'resume-sessions.hooks.plist'));
    const o = readPlist(u.text) as Record<string, unknown>;
    expect(Object.keys(o).sort()).toEqual([
      'EnvironmentVariables',
      'Label',
      'ProcessType',
      'ProgramArguments',
      'RunAtLoad',
      'StartInterval',
      'WatchPaths',
    ]);
    expect(o.Label).toBe('resume-sessions.hooks');
    expect(o.ProgramArguments).toEqual(['/opt/homebrew/bin/node', `${x.home}/app & co/bin/resume`, 'hooks', 'run', '--trigger', 'watcher']);
    expect(o.WatchPaths).toEqual(p(x.home).watch);
    for (const a of [...(o.ProgramArguments as string[]).slice(0, 2), ...(o.WatchPaths as string[])]) expect(path.isAbsolute(a)).toBe(true);
    expect(o.StartInterval).toBe(1800);
    expect(o.RunAtLoad).toBe(false);
    expect(o.EnvironmentVariables).toEqual({ PATH: '/opt/homebrew/bin:/usr/bin:/bin' });
    expect(() => readPlist(u.text.replace('<integer>1800</integer>', '<integer>half an hour</integer>'))).toThrow(/bad integer/);
    if (spawnSync('sh', ['-c', 'command -v plutil']).status === 0) {
      fs.writeFileSync(path.join(x.home, 'a.plist'), u.text);
      const r = spawnSync('plutil', ['-lint', path.join(x.home, 'a.plist')], { encoding: 'utf8' });
      expect(r.status, r.stdout + r.stderr).toBe(0);
    }
  });

  it('loading: bootstrap when not loaded; bootout and bootstrap after a change; nothing when loaded and unchanged', () => {
    const x = w();
    // launchctl print fails (not loaded) unless ~/loaded exists
    write(
      x.home,
      'bin/launchctl',
      `#!/bin/sh\necho "launchctl $*" >> "$HOME/ctl.log"\ncase "$1" in print) [ -f "$HOME/loaded" ] ;; *) exit 0 ;; esac\n`,
    );
    fs.chmodSync(path.join(x.home, 'bin/launchctl'), 0o755);
    const ctx = makeCtx({ HOME: x.home, PATH: `${x.home}/bin:/usr/bin:/bin` });
    const uid = must(process.getuid?.());
    const a = activate(ctx, true, 'darwin');
    expect(a.manual).toBeNull();
    write(x.home, 'loaded', '');
    activate(ctx, false, 'darwin');
    activate(ctx, true, 'darwin');
    const file = path.join(x.home, 'Library', 'LaunchAgents', 'resume-sessions.hooks.plist');
    expect(fs.readFileSync(path.join(x.home, 'ctl.log'), 'utf8').trim().split('\n')).toEqual([
      `launchctl print gui/${uid}/resume-sessions.hooks`,
      `launchctl bootstrap gui/${uid} ${file}`,
      `launchctl print gui/${uid}/resume-sessions.hooks`,
      `launchctl print gui/${uid}/resume-sessions.hooks`,
      `launchctl bootout gui/${uid}/resume-sessions.hooks`,
      `launchctl bootstrap gui/${uid} ${file}`,
    ]);
    // no launchctl: what to run
    expect(activate(makeCtx({ HOME: x.home, PATH: '/nonexistent' }), true, 'darwin').manual).toBe(
      `launchctl bootout gui/${uid}/resume-sessions.hooks; launchctl bootstrap gui/${uid} '${file}'`,
    );
  });

  it('systemd words are quoted and % escaped', () => {
    const x = w();
    const units = systemdUnits(makeCtx({ HOME: x.home }), { ...p(x.home), resume: '/srv/100%/a "b"/resume' });
    expect(units[0].text).toContain('ExecStart="/opt/homebrew/bin/node" "/srv/100%%/a \\"b\\"/resume" hooks run --trigger watcher\n');
  });
});

describe('resume doctor: the update hooks section', { timeout: 60_000 }, () => {
  it('says what is configured, that nothing watches it, what is pending, and a failed last run', () => {
    const w = world(['2.1.1']);
    const before = JSON.parse(run(w.home, ['doctor', '--json'], w.env).stdout).hooks;
    expect(before).toMatchObject({ configured: 0, installed: false, recorded: null, pending: [], lastRun: null, warnings: [] });

    config(w, hook(w, 'hook-a'));
    expect(hooksRun(w).code).toBe(0); // the baseline
    setVersions(w, ['2.1.2']);
    write(w.home, 'hook-a.exit', '7');
    expect(hooksRun(w).code).toBe(1);
    const d = JSON.parse(run(w.home, ['doctor', '--json'], w.env).stdout).hooks;
    expect(d).toMatchObject({
      configured: 1,
      installed: false,
      recorded: '2.1.2',
      pending: [],
      lastRun: { event: 'hook', hook: 1, result: 'exit 7' },
    });
    expect(d.warnings).toEqual([
      '1 update hook(s) configured but no watcher installed: they run only when `resume hooks run` is run (resume hooks install)',
      expect.stringMatching(/^the last hook run failed: hook 1 hook-a exit 7 \(/),
    ]);
    const text = run(w.home, ['doctor'], w.env).stdout;
    expect(text).toContain('update hooks (resume hooks)\n');
    expect(text).toMatch(/\n {2}hooks +1 configured\n/);
    expect(text).toMatch(/\n {2}last run +\S+ {2}hook 1 exit 7\n/);
    expect(text).toContain('configured but no watcher installed');
  });
});
