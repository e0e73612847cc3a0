// lib/os: child processes under the one timeout, the one --version probe, the one liveness check and
// the one lock (stale takeover), with real processes and files; and the one duration parser.
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { acquireWait, isStale, readLock, tryLock } from '../lib/os/lock.js';
import { alive, procStat } from '../lib/os/proc.js';
import { attached, run, runSync } from '../lib/os/run.js';
import { probeVersion, probeVersionAsync, versionIn } from '../lib/os/version.js';
import { parseDuration } from '../lib/util/time.js';
import { tempDir, write } from './helpers.js';

/** a pid that named a process a moment ago and names none now */
const deadPid = () => spawnSync('true').pid as number;

describe('run', () => {
  it('gives the exit status and both outputs, waiting or not', async () => {
    const argv = ['-c', 'printf out; printf err >&2; exit 3'];
    for (const r of [runSync('sh', argv), await run('sh', argv)])
      expect(r).toEqual({ ok: false, status: 3, stdout: 'out', stderr: 'err', error: null });
    for (const r of [runSync('sh', ['-c', 'cat'], { input: 'fed' }), await run('sh', ['-c', 'cat'], { input: 'fed' })]) {
      expect(r).toMatchObject({ ok: true, status: 0, stdout: 'fed' });
    }
  });

  it('says why a program did not run, and kills one past its timeout', async () => {
    for (const r of [runSync('/nonexistent/prog', []), await run('/nonexistent/prog', [])])
      expect(r).toMatchObject({ ok: false, status: null, error: 'ENOENT' });
    for (const r of [runSync('sleep', ['30'], { timeout: 200 }), await run('sleep', ['30'], { timeout: 200 })]) {
      expect(r).toMatchObject({ ok: false, status: null, error: 'timed out after 0.2 s' });
    }
  });

  it('does not wait on a program that leaves a process holding its output (discard)', () => {
    const d = tempDir();
    const pidFile = path.join(d, 'pid');
    // like xclip: the parent exits, a child keeps stdout and stderr open
    const r = runSync('sh', ['-c', `sleep 30 & echo $! > ${pidFile}; exit 0`], { discard: true });
    expect(r.ok).toBe(true);
    process.kill(Number(fs.readFileSync(pidFile, 'utf8')), 'SIGKILL');
  });

  it('attached: the exit code, and 128 + the signal that ended it', async () => {
    expect(await attached('sh', ['-c', 'exit 7'])).toBe(7);
    expect(await attached('sh', ['-c', 'kill -TERM $$'])).toBe(128 + os.constants.signals.SIGTERM);
    await expect(attached('/nonexistent/prog', [])).rejects.toMatchObject({ code: 'ENOENT' });
  });
});

describe('probeVersion', () => {
  const d = tempDir();
  const bin = (name: string, body: string) => {
    const f = write(d, `bin/${name}`, `#!/bin/sh\n${body}\n`);
    fs.chmodSync(f, 0o755);
    return f;
  };

  it('the first dotted version and the first line, waiting or not', async () => {
    const f = bin('tool', "echo; echo 'tool 2.1.332 (Claude Code)'; echo 'built 1.0'");
    const want = { version: '2.1.332', line: 'tool 2.1.332 (Claude Code)', error: null };
    expect(probeVersion(f)).toEqual(want);
    expect(await probeVersionAsync(f)).toEqual(want);
  });

  it('says why there is none', () => {
    expect(probeVersion(bin('none', 'echo no version here'))).toEqual({
      version: null,
      line: 'no version here',
      error: `'${d}/bin/none --version' printed "no version here"`,
    });
    expect(probeVersion(bin('fails', 'echo 1.2.3; exit 1')).version).toBe(null);
    expect(probeVersion('/nonexistent/tool').error).toBe("'/nonexistent/tool --version' failed: ENOENT");
  });

  it('versionIn', () => {
    expect(versionIn('codex-cli 0.171.0')).toBe('0.171.0');
    expect(versionIn('0.65.2 (e2a8b7e)')).toBe('0.65.2');
    expect(versionIn('no digits')).toBe(null);
    expect(versionIn(null)).toBe(null);
  });
});

describe('alive', () => {
  it('by pid, and with a start time on Linux by the process itself', () => {
    expect(alive(process.pid)).toBe(true);
    expect(alive(deadPid())).toBe(false);
    if (process.platform !== 'linux') return;
    const start = procStat(process.pid)?.start;
    expect(start).toMatch(/^\d+$/);
    expect(alive(process.pid, start)).toBe(true);
    // the same pid with another start time: a later process given the pid, not the one recorded
    expect(alive(process.pid, `${start}1`)).toBe(false);
  });
});

describe('lock', () => {
  const kids: ReturnType<typeof spawn>[] = [];
  afterEach(() => {
    for (const k of kids.splice(0)) k.kill('SIGKILL');
  });
  const body = (o: object) => JSON.stringify({ host: os.hostname(), started: Date.now(), ...o });

  it('one holder; the release removes only its own lock', () => {
    const f = path.join(tempDir(), 'sub', 'x.lock');
    const a = tryLock(f);
    expect(a.ok).toBe(true);
    expect(readLock(f)?.info).toMatchObject({ pid: process.pid, host: os.hostname() });
    expect(tryLock(f)).toEqual({ ok: false, holder: process.pid }); // ours: held, not stale
    if (a.ok) a.release();
    expect(fs.existsSync(f)).toBe(false);
    fs.writeFileSync(f, body({ pid: process.ppid }));
    const b = tryLock(f);
    expect(b).toEqual({ ok: false, holder: process.ppid });
  });

  it('takes over a lock whose holder is gone, or is a later process with its pid, exactly once', () => {
    const d = tempDir();
    const f = path.join(d, 'x.lock');
    fs.writeFileSync(f, body({ pid: deadPid() }));
    const a = tryLock(f);
    expect(a.ok).toBe(true);
    if (a.ok) a.release();
    if (process.platform === 'linux') {
      const p = spawn('sleep', ['30']);
      kids.push(p);
      fs.writeFileSync(f, body({ pid: p.pid, start: `${procStat(p.pid as number)?.start}1` }));
      expect(tryLock(f).ok).toBe(true);
    }
    expect(fs.readdirSync(d)).toEqual(['x.lock']);
  });

  it('an empty lock is a holder at work until EMPTY_MS, then stale', () => {
    const f = path.join(tempDir(), 'x.lock');
    fs.writeFileSync(f, '');
    expect(tryLock(f).ok).toBe(false);
    const old = (Date.now() - 60_000) / 1000;
    fs.utimesSync(f, old, old);
    expect(tryLock(f).ok).toBe(true);
  });

  it('a lock of only a pid (as written before) is read; staleMs ages any lock out', () => {
    const f = path.join(tempDir(), 'x.lock');
    fs.writeFileSync(f, `${process.ppid}\n`);
    expect(tryLock(f)).toEqual({ ok: false, holder: process.ppid });
    fs.writeFileSync(f, `${deadPid()}\n`);
    expect(tryLock(f).ok).toBe(true);
    const l = { info: { pid: process.ppid, host: 'another-host', started: Date.now() - 10_000 }, mtime: Date.now() };
    expect(isStale(l)).toBe(false);
    expect(isStale(l, { staleMs: 5_000 })).toBe(true);
  });

  it('acquireWait: waits while a live holder has it, tells the holder once, goes ahead when it is gone', async () => {
    const f = path.join(tempDir(), 'x.lock');
    fs.writeFileSync(f, body({ pid: process.ppid }));
    const told: number[] = [];
    const got = acquireWait(f, { onWait: (pid) => told.push(pid), pollMs: 20 });
    await new Promise((r) => setTimeout(r, 100));
    fs.rmSync(f);
    const l = await got;
    expect(l?.ok).toBe(true);
    expect(told).toEqual([process.ppid]);
    if (l?.ok) l.release();
    fs.writeFileSync(f, body({ pid: process.ppid }));
    expect(await acquireWait(f, { stopped: () => true })).toBe(null);
  });
});

describe('parseDuration', () => {
  it('every unit; a bare number only when told its unit', () => {
    const cases: [string, number | null][] = [
      ['500ms', 500],
      ['90s', 90_000],
      ['30m', 1_800_000],
      ['1.5h', 5_400_000],
      ['7d', 7 * 86_400_000],
      ['3w', 21 * 86_400_000],
      ['2mo', 60 * 86_400_000],
      ['1y', 365 * 86_400_000],
      [' 12 H ', 43_200_000],
      ['45', null],
      ['2026-01-31', null],
      ['m', null],
      ['-5m', null],
    ];
    for (const [v, ms] of cases) expect(parseDuration(v), v).toBe(ms);
    expect(parseDuration('45', 's')).toBe(45_000);
  });
});
