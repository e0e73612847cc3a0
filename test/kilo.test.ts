// Kilo CLI adapter (opencode's reader under Kilo's names), on what Kilo CLI 7.7.9 wrote
// (test/fixtures/real/kilo-7.7.9, recorded by test/real/): its store beside an opencode one, a store
// found through RESUME_KILO_DIRS, KILO_DB or XDG_DATA_HOME, the fork argv, and a running `kilo`.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { byId, envFor, FIXTURES, lsJson, must, notLinux, recordedHome, run } from './helpers.js';
import type { Manifest } from './json.js';
import { records, standIn, waitRecords } from './launch-helpers.js';

const SET = path.join(FIXTURES, 'real', 'kilo-7.7.9');
const manifest: Manifest = JSON.parse(fs.readFileSync(path.join(SET, 'manifest.json'), 'utf8'));
/** the TUI session renamed with /rename (not a fork) */
const RENAMED = must(manifest.sessions.find((s) => s.title === 'Renamed kilo session' && !s.forkedFrom));
const DATA = path.join('.local', 'share', 'kilo');

const home = (): string => recordedHome(SET, manifest);

const dryRun = (h: string, args: string[], env: Record<string, string> = {}) => {
  const r = run(h, ['--dry-run', '--json', ...args], env);
  expect(r.code, r.stderr).toBe(0);
  return JSON.parse(r.stdout);
};

describe('kilo', { timeout: 120_000 }, () => {
  it('lists its sessions as kilo, and an opencode database beside them as opencode', () => {
    const h = home();
    fs.cpSync(path.join(FIXTURES, 'real', 'opencode-1.18.33', 'home'), h, { recursive: true });
    const list = lsJson(h);
    const of = (harness: string) =>
      list
        .filter((s) => s.harness === harness)
        .map((s) => s.id)
        .sort();
    expect(of('kilo')).toEqual(manifest.sessions.map((s) => s.id).sort());
    expect(of('opencode').length).toBeGreaterThan(0);
    expect(of('opencode').some((id) => of('kilo').includes(id))).toBe(false);
    expect(byId(list, RENAMED.id).file).toBe(path.join(h, DATA, 'kilo.db'));
  });

  it('resumes with --session and forks with --session --fork, in the recorded directory', () => {
    const h = home();
    expect(dryRun(h, [RENAMED.id])).toEqual({
      harness: 'kilo',
      id: RENAMED.id,
      cwd: RENAMED.cwd,
      argv: ['kilo', '--session', RENAMED.id],
      env: {},
    });
    expect(dryRun(h, ['--fork', RENAMED.id]).argv).toEqual(['kilo', '--session', RENAMED.id, '--fork']);
  });

  it('points Kilo at a database found through RESUME_KILO_DIRS with KILO_DB, and not at the one it opens', () => {
    const h = home();
    const moved = path.join(h, 'elsewhere');
    fs.renameSync(path.join(h, DATA), moved);
    expect(lsJson(h).filter((s) => s.harness === 'kilo')).toEqual([]);
    expect(dryRun(h, [RENAMED.id], { RESUME_KILO_DIRS: moved }).env).toEqual({ KILO_DB: path.join(moved, 'kilo.db') });
    // KILO_DB set by the person: that is the database Kilo opens, so nothing more is needed
    expect(dryRun(h, [RENAMED.id], { KILO_DB: path.join(moved, 'kilo.db') }).env).toEqual({});
    // XDG_DATA_HOME moves the data directory: <XDG_DATA_HOME>/kilo
    const xdg = path.join(h, 'xdg');
    fs.mkdirSync(xdg);
    fs.renameSync(moved, path.join(xdg, 'kilo'));
    expect(dryRun(h, [RENAMED.id], { XDG_DATA_HOME: xdg }).env).toEqual({});
  });

  it.skipIf(notLinux)('is live while a kilo process names the session, not while one forks it', async () => {
    const h = home();
    const si = standIn(h, ['kilo']);
    const env = { PATH: si.PATH };
    const hold = async (args: string[]) => {
      const n = records(si.log).length;
      const p = spawn(path.join(si.bin, 'kilo'), args, { env: envFor(h, { STANDIN_WAIT: '1' }), stdio: 'ignore' });
      await waitRecords(si.log, n + 1);
      return p;
    };
    const stop = async (p: ReturnType<typeof spawn>) => {
      p.kill('SIGKILL');
      await new Promise((r) => p.on('exit', r));
    };
    const fork = await hold(['--session', RENAMED.id, '--fork']);
    try {
      expect(lsJson(h, env).filter((s) => s.pid === fork.pid)).toEqual([]);
    } finally {
      await stop(fork);
    }
    const p = await hold(['--session', RENAMED.id]);
    try {
      const list = lsJson(h, env);
      expect(byId(list, RENAMED.id)).toMatchObject({ live: true, pid: p.pid });
      // the database holds every session: the process makes only the one it names live (other kilo
      // processes on this machine may make others live)
      expect(list.filter((s) => s.pid === p.pid).map((s) => s.id)).toEqual([RENAMED.id]);
      expect(run(h, [RENAMED.id, '--dry-run'], env).code).toBe(2);
    } finally {
      await stop(p);
    }
  });
});
