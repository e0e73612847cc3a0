// `resume restart --outdated` against a real tmux server (a private socket) and a stand-in
// long-running "claude" that registers in ~/.claude/sessions/<pid>.json, draws Claude's input box
// and honours SIGTERM. Cases: idle (resumed in its pane), busy and a draft (timeout, untouched), a
// vanished pane, two panes for one session (refused), the dry-run plan, usage errors.

import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { BIN, envFor, must, needs, notLinux, run, sleep, tempHome, until, write } from './helpers.js';
import { claudeSession, uuid as uuidAt } from './launch-helpers.js';

// Ids of this file's own (the live check reads every process on the machine: another test file's
// stand-in naming the same id would make its session look live).
const uuid = (i: number) => uuidAt(i, 'e5e5e5e5-0000-4000-8000');

const linux = !notLinux;
const homes: { home: string; sock: string }[] = [];
afterEach(async () => {
  for (const { home, sock } of homes.splice(0)) {
    spawnSync('tmux', ['-S', sock, 'kill-server']);
    // stand-ins left running (one that ignores SIGHUP) and ones still exiting
    for (const r of registry({ home } as World)) {
      try {
        process.kill(r.pid, 'SIGKILL');
      } catch {
        /* gone */
      }
    }
    await sleep(300);
    fs.rmSync(home, { recursive: true, force: true, maxRetries: 5, retryDelay: 200 });
  }
});

const STANDIN = `#!${process.execPath}
const fs = require('fs'), path = require('path');
const home = process.env.HOME, args = process.argv.slice(2);
const i = args.indexOf('--resume');
const id = i >= 0 ? args[i + 1] : process.env.STANDIN_SESSION;
const st = fs.readFileSync('/proc/' + process.pid + '/stat', 'utf8');
const start = st.slice(st.lastIndexOf(')') + 2).split(' ')[19];
const reg = path.join(home, '.claude', 'sessions', process.pid + '.json');
fs.mkdirSync(path.dirname(reg), { recursive: true });
const status = () => { try { return fs.readFileSync(path.join(home, 'status-' + id), 'utf8').trim(); } catch { return 'idle'; } };
const save = () => fs.writeFileSync(reg, JSON.stringify({ pid: process.pid, sessionId: id, cwd: process.cwd(), procStart: start, version: process.env.STANDIN_VERSION || '2.1.1', status: status(), kind: 'interactive' }));
save();
fs.appendFileSync(path.join(home, 'claude.log'), JSON.stringify({ pid: process.pid, id, argv: args }) + '\\n');
const rule = '─'.repeat(40);
process.stdout.write('\\n' + rule + '\\n❯ ' + (process.env.STANDIN_DRAFT || '') + '\\n' + rule + '\\n');
setInterval(save, 200);
if (process.env.STANDIN_RUN) {
  // run resume from inside this claude's process tree (as a tool call would)
  const r = require('child_process').spawnSync(process.execPath, JSON.parse(process.env.STANDIN_RUN), { encoding: 'utf8' });
  fs.writeFileSync(path.join(home, 'inner.out'), JSON.stringify({ code: r.status, stdout: r.stdout, stderr: r.stderr }));
}
const bye = () => { fs.rmSync(reg, { force: true }); process.exit(0); };
process.on('SIGTERM', bye);
if (process.env.STANDIN_NOHUP) process.on('SIGHUP', () => {}); else process.on('SIGHUP', bye);
`;

interface World {
  home: string;
  sock: string;
  env: Record<string, string>;
}

function world(sockAt?: (home: string) => string): World {
  const home = tempHome('resume-rs-');
  const bin = path.join(home, 'bin');
  write(home, 'bin/claude', STANDIN);
  // No \`resume\` on the panes' PATH: the relaunch types this resume's absolute path.
  fs.chmodSync(path.join(bin, 'claude'), 0o755);
  // The installed claude: a symlink into a versions directory, newer than the stand-in's 2.1.1.
  const target = write(home, '.local/share/claude/versions/2.1.2', '');
  fs.mkdirSync(path.join(home, '.local', 'bin'), { recursive: true });
  fs.symlinkSync(target, path.join(home, '.local', 'bin', 'claude'));
  const sock = sockAt ? sockAt(home) : path.join(home, 'tmux.sock');
  fs.mkdirSync(path.dirname(sock), { recursive: true, mode: 0o700 });
  homes.push({ home, sock });
  const env = { HOME: home, PATH: `${bin}:${process.env.PATH}`, TERM: 'xterm-256color', LANG: 'C.UTF-8' };
  return { home, sock, env };
}

function tmux(w: World, ...args: string[]): string {
  const r = spawnSync('tmux', ['-S', w.sock, '-f', '/dev/null', ...args], { env: w.env, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`tmux ${args.join(' ')}: ${r.stderr}`);
  return r.stdout;
}

/** An entry of Claude Code's session registry (~/.claude/sessions/PID.json), the fields read here. */
interface Registered {
  pid: number;
  sessionId: string;
  status?: string;
}

function registry(w: World): Registered[] {
  const d = path.join(w.home, '.claude', 'sessions');
  if (!fs.existsSync(d)) return [];
  return fs.readdirSync(d).flatMap((n) => {
    try {
      return [JSON.parse(fs.readFileSync(path.join(d, n), 'utf8'))];
    } catch {
      return [];
    }
  });
}

/**
 * A pane (in HOME) running a shell that runs the stand-in claude for session `id`, then `after` when
 * given; the session has a transcript, so the resume typed back finds it. Resolves {pane, pid}.
 */
async function claudeInPane(w: World, id: string, extra = '', after = ''): Promise<{ pane: string; pid: number }> {
  claudeSession(w.home, { id, cwd: w.home });
  let pane: string;
  try {
    tmux(w, 'has-session', '-t', 'w');
    pane = tmux(w, 'split-window', '-d', '-P', '-F', '#{pane_id}', '-c', w.home, '-t', 'w', 'bash --norc --noprofile -i').trim();
  } catch {
    pane = tmux(
      w,
      'new-session',
      '-d',
      '-P',
      '-F',
      '#{pane_id}',
      '-c',
      w.home,
      '-s',
      'w',
      '-x',
      '200',
      '-y',
      '40',
      'bash --norc --noprofile -i',
    ).trim();
  }
  const before = new Set(registry(w).map((r) => r.pid));
  tmux(w, 'send-keys', '-t', pane, '-l', `${extra} STANDIN_SESSION=${id} claude${after ? `; ${after}` : ''}`);
  tmux(w, 'send-keys', '-t', pane, 'Enter');
  const r = await until(() => registry(w).find((e) => e.sessionId === id && !before.has(e.pid)));
  await until(() => tmux(w, 'capture-pane', '-p', '-t', pane).includes('❯'));
  return { pane, pid: r.pid };
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Run resume without blocking the event loop (so a test can act while it waits); `err`: its stderr so far, as it arrives. */
function runAsync(
  w: World,
  args: string[],
): { done: Promise<{ code: number; stdout: string; stderr: string }>; pid: number; err: () => string } {
  const p = spawn(process.execPath, [BIN, ...args], { env: envFor(w.home, { PATH: w.env.PATH }), cwd: w.home });
  let stdout = '';
  let stderr = '';
  p.stdout.on('data', (d) => (stdout += d));
  p.stderr.on('data', (d) => (stderr += d));
  const done = new Promise<{ code: number; stdout: string; stderr: string }>((res) =>
    p.on('close', (code) => res({ code: code ?? 1, stdout, stderr })),
  );
  return { done, pid: must(p.pid), err: () => stderr };
}

const it_ = it.skipIf(notLinux || needs('tmux'));

describe('resume restart --outdated (real tmux, stand-in claude)', { timeout: 120_000 }, () => {
  it_('an idle session with an empty input line is stopped and resumed in the same pane', async () => {
    const w = world();
    const id = uuid(1);
    const { pane, pid } = await claudeInPane(w, id);

    const dry = run(w.home, ['restart', '--outdated', '--dry-run'], { PATH: w.env.PATH });
    expect(dry.code).toBe(0);
    expect(dry.stdout).toContain(`${id}\tpid ${pid}\t2.1.1 < 2.1.2\tpane ${pane} (process tree) on ${w.sock}\twait up to 30m for`);
    expect(alive(pid)).toBe(true);

    const r = run(w.home, ['restart', '--outdated', '--timeout', '60s'], { PATH: w.env.PATH });
    expect(r.stderr).toBe('');
    expect(r.stdout).toBe(`${id}\tresumed\tresumed in pane ${pane}\n`);
    expect(r.code).toBe(0);
    expect(alive(pid)).toBe(false);
    const again = registry(w).filter((e) => e.sessionId === id);
    expect(again).toHaveLength(1);
    expect(again[0].pid).not.toBe(pid);
    const log = fs
      .readFileSync(path.join(w.home, 'claude.log'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(log.at(-1).argv).toEqual(['--resume', id]);
    // typed by absolute path (no \`resume\` on the pane's PATH)
    const screen = tmux(w, 'capture-pane', '-p', '-J', '-t', pane);
    expect(screen).toContain(`${BIN} ${id}`);
    expect(screen).not.toContain('command not found');
    // it was typed into the same pane: the new claude's pane is that pane
    const panes = tmux(w, 'list-panes', '-a', '-F', '#{pane_id} #{pane_pid}').trim().split('\n');
    expect(panes).toHaveLength(1);
    expect(panes[0].startsWith(`${pane} `)).toBe(true);
    // snapshot ran first
    expect(fs.existsSync(path.join(w.home, '.config', 'resume', 'sessions', `${id}.json`))).toBe(true);
  });

  it_('busy, or a draft on the input line: nothing is signalled; the timeout ends it with exit 1', async () => {
    const w = world();
    const busy = uuid(2);
    write(w.home, `status-${busy}`, 'busy');
    const b = await claudeInPane(w, busy);
    const r = run(w.home, ['restart', '--outdated', '--timeout', '3s'], { PATH: w.env.PATH });
    expect(r.code).toBe(1);
    expect(r.stdout).toBe(`${busy}\ttimeout\tnot safe to stop within the timeout: status is busy, not idle\n`);
    expect(alive(b.pid)).toBe(true);
    write(w.home, `status-${busy}`, 'waiting'); // anything but idle
    // the stand-in writes its status every 200 ms: wait until its registry entry says so
    for (let t0 = Date.now(); Date.now() - t0 < 10_000 && registry(w).find((e) => e.sessionId === busy)?.status !== 'waiting'; )
      await new Promise((r) => setTimeout(r, 50));
    expect(run(w.home, ['restart', '--outdated', '--timeout', '2s'], { PATH: w.env.PATH }).stdout).toContain('status is waiting, not idle');
    tmux(w, 'kill-server');

    const w2 = world();
    const draft = uuid(3);
    const d = await claudeInPane(w2, draft, "STANDIN_DRAFT='half a prompt'");
    const r2 = run(w2.home, ['restart', '--outdated', '--timeout', '3s'], { PATH: w2.env.PATH });
    expect(r2.code).toBe(1);
    expect(r2.stdout).toContain('the input line is not empty (a draft would be lost)');
    expect(alive(d.pid)).toBe(true);
    expect(tmux(w2, 'capture-pane', '-p', '-t', d.pane)).toContain('❯ half a prompt');
  });

  it_('a session that becomes idle while it waits is restarted then', async () => {
    const w = world();
    const id = uuid(4);
    write(w.home, `status-${id}`, 'busy');
    const { pid } = await claudeInPane(w, id);
    const p = runAsync(w, ['restart', '--outdated', '--timeout', '60s']);
    await sleep(2500);
    expect(alive(pid)).toBe(true);
    write(w.home, `status-${id}`, 'idle');
    const r = await p.done;
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(`${id}\tresumed`);
  });

  it_('a pane that vanishes while it waits: exit 1, no signal', async () => {
    const w = world();
    const id = uuid(5);
    write(w.home, `status-${id}`, 'busy');
    const { pane, pid } = await claudeInPane(w, id, 'STANDIN_NOHUP=1');
    const p = runAsync(w, ['restart', '--outdated', '--timeout', '60s']);
    await sleep(1500);
    tmux(w, 'kill-pane', '-t', pane);
    const r = await p.done;
    expect(r.code).toBe(1);
    expect(r.stdout).toBe(`${id}\tvanished\tpane ${pane} vanished\n`);
    expect(alive(pid)).toBe(true);
    process.kill(pid, 'SIGKILL');
  });

  it_('two panes claiming one session are refused; others still run', async () => {
    const w = world();
    const id = uuid(6);
    const a = await claudeInPane(w, id);
    const b = await claudeInPane(w, id);
    const r = run(w.home, ['restart', '--outdated', '--timeout', '5s'], { PATH: w.env.PATH });
    expect(r.code).toBe(1);
    const lines = r.stdout.trim().split('\n');
    expect(lines).toHaveLength(2);
    for (const l of lines) expect(l).toBe(`${id}\trefused\t2 panes claim session ${id}`);
    expect(alive(a.pid) && alive(b.pid)).toBe(true);
  });

  it_('--session narrows; a stop signal while waiting ends with exit 1 and no signal sent; a second run is locked out', async () => {
    const w = world();
    const one = uuid(7);
    const two = uuid(8);
    write(w.home, `status-${one}`, 'busy');
    const a = await claudeInPane(w, one);
    const b = await claudeInPane(w, two);
    const dry = run(w.home, ['restart', '--outdated', '--dry-run', '--session', one], { PATH: w.env.PATH });
    expect(dry.stdout.trim().split('\n'), dry.stderr).toHaveLength(1);
    expect(dry.stdout).toContain(one);
    const p = runAsync(w, ['restart', '--outdated', '--session', one, '--timeout', '60s']);
    // waiting has begun once the lock is taken and the pane has been looked at
    await until(() => fs.existsSync(path.join(w.home, '.local', 'state', 'resume', 'restart.lock')));
    const locked = run(w.home, ['restart', '--outdated', '--session', two], { PATH: w.env.PATH });
    expect(locked.code).toBe(1);
    expect(locked.stderr).toContain('another restart is running');
    process.kill(p.pid, 'SIGTERM');
    const r = await p.done;
    expect(r.code).toBe(1);
    expect(r.stdout, r.stderr).toContain(`${one}\tinterrupted`);
    expect(alive(a.pid) && alive(b.pid)).toBe(true);
    expect(fs.existsSync(path.join(w.home, '.local', 'state', 'resume', 'restart.lock'))).toBe(false);
  });
});

describe('resume restart: the relaunch (issue 48)', { timeout: 120_000 }, () => {
  it_('types nothing while another program holds the pane after claude exits; types once the shell has the foreground', async () => {
    const w = world();
    const id = uuid(13);
    // after claude, `head` reads the terminal: a line typed then would be its input, not a command
    const { pane } = await claudeInPane(w, id, '', 'head -n1 > caught');
    const p = runAsync(w, ['restart', '--outdated', '--timeout', '60s']);
    await until(() => p.err().includes(`waiting for the shell in pane ${pane} to hold the foreground again (head holds it)`));
    // the redirection has made the file; head has read nothing yet
    expect(fs.readFileSync(path.join(w.home, 'caught'), 'utf8')).toBe('');
    tmux(w, 'send-keys', '-t', pane, '-l', 'hello');
    tmux(w, 'send-keys', '-t', pane, 'Enter');
    const r = await p.done;
    expect(r.stdout, r.stderr).toBe(`${id}\tresumed\tresumed in pane ${pane}\n`);
    expect(r.code).toBe(0);
    expect(fs.readFileSync(path.join(w.home, 'caught'), 'utf8')).toBe('hello\n');
  });

  it_('refuses to type when the session is running again by then', async () => {
    const w = world();
    const id = uuid(14);
    const { pane, pid } = await claudeInPane(w, id, '', 'head -n1 > caught');
    const p = runAsync(w, ['restart', '--outdated', '--timeout', '60s']);
    await until(() => p.err().includes(`waiting for the shell in pane ${pane}`));
    // meanwhile someone resumed it elsewhere
    const other = spawn(path.join(w.home, 'bin', 'claude'), ['--resume', id], { env: w.env, cwd: w.home, stdio: 'ignore' });
    try {
      const again = await until(() => registry(w).find((e) => e.sessionId === id && e.pid !== pid && e.pid === other.pid));
      tmux(w, 'send-keys', '-t', pane, '-l', 'hello');
      tmux(w, 'send-keys', '-t', pane, 'Enter');
      const r = await p.done;
      expect(r.code).toBe(1);
      expect(r.stdout).toBe(`${id}\trefused\tstopped, but it is running again (pid ${again.pid}); nothing typed into ${pane}\n`);
      const log = fs.readFileSync(path.join(w.home, 'claude.log'), 'utf8').trim().split('\n');
      expect(log).toHaveLength(2);
      expect(tmux(w, 'capture-pane', '-p', '-J', '-t', pane)).not.toContain(`${BIN} ${id}`);
    } finally {
      other.kill('SIGKILL');
    }
  });
});

describe('resume restart: how the pane is found', { timeout: 120_000 }, () => {
  it_('never a session that is an ancestor of the resume that runs; TMUX_PANE only as a noted fallback', async () => {
    const w = world();
    const id = uuid(9);
    const args = JSON.stringify([BIN, 'restart', '--outdated', '--dry-run']);
    const { pane } = await claudeInPane(w, id, `RESUME_CACHE_DIR=${w.home}/.cache/resume STANDIN_RUN='${args}'`);
    const inner = JSON.parse(
      await until(() => fs.existsSync(path.join(w.home, 'inner.out')) && fs.readFileSync(path.join(w.home, 'inner.out'), 'utf8')),
    );
    // a plan holding a refusal: exit 2
    expect(inner.code).toBe(2);
    expect(inner.stdout).toContain(`pane ${pane} (process tree)`);
    expect(inner.stdout).toContain('refused: it is an ancestor of this resume');

    // A claude outside every pane of the server its TMUX names: the pane comes from TMUX_PANE, with a note.
    const id2 = uuid(10);
    const p = spawn(path.join(w.home, 'bin', 'claude'), [], {
      env: { ...w.env, STANDIN_SESSION: id2, TMUX: `${w.sock},1,0`, TMUX_PANE: pane },
      stdio: 'ignore',
    });
    try {
      await until(() => registry(w).find((e) => e.sessionId === id2));
      const r = run(w.home, ['restart', '--outdated', '--dry-run', '--session', id2], { PATH: w.env.PATH });
      expect(r.code).toBe(0);
      expect(r.stderr).toContain(`note: pane of ${id2} taken from its TMUX_PANE (no pane of that server holds the process)`);
      expect(r.stdout).toContain(`pane ${pane} (environment (fallback))`);
    } finally {
      p.kill('SIGKILL');
    }
  });
});

describe('resume restart through ps(1), the process table macOS has (RESUME_PROC_TABLE=ps)', { timeout: 120_000 }, () => {
  it_('finds the pane by the process tree, waits while busy, and resumes once idle', async () => {
    const w = world();
    const id = uuid(12);
    write(w.home, `status-${id}`, 'busy');
    const { pane, pid } = await claudeInPane(w, id);
    const env = { PATH: w.env.PATH, RESUME_PROC_TABLE: 'ps' };
    const dry = run(w.home, ['restart', '--outdated', '--dry-run'], env);
    expect(dry.code, dry.stderr).toBe(0);
    expect(dry.stdout).toContain(`${id}\tpid ${pid}\t2.1.1 < 2.1.2\tpane ${pane} (process tree) on ${w.sock}\twait up to 30m for`);
    const busy = run(w.home, ['restart', '--outdated', '--timeout', '3s'], env);
    expect(busy.code).toBe(1);
    expect(busy.stdout).toBe(`${id}\ttimeout\tnot safe to stop within the timeout: status is busy, not idle\n`);
    expect(alive(pid)).toBe(true);
    fs.rmSync(path.join(w.home, `status-${id}`));
    const r = run(w.home, ['restart', '--outdated', '--timeout', '60s'], env);
    expect(r.stdout, r.stderr).toBe(`${id}\tresumed\tresumed in pane ${pane}\n`);
    expect(alive(pid)).toBe(false);
    expect(registry(w).filter((e) => e.sessionId === id && e.pid !== pid)).toHaveLength(1);
  });

  it.skipIf(needs('ps'))('ps answers what /proc answers: parent, group, foreground group, uid, environment, a stable start', async () => {
    const { linuxTable, psTable } = await import('../lib/panes/proc.js');
    const p = spawn('sleep', ['30'], { env: { ...process.env, RESUME_PS_PROBE: 'x1', TMUX: '/tmp/tmux-1/default,42,0' }, stdio: 'ignore' });
    try {
      await new Promise((r) => p.once('spawn', r));
      const ps = psTable();
      for (const pid of [process.pid, must(p.pid)]) {
        const a = must(linuxTable().stat(pid));
        const b = must(ps.stat(pid));
        expect({ ppid: b.ppid, pgrp: b.pgrp, tpgid: b.tpgid }).toEqual({ ppid: a.ppid, pgrp: a.pgrp, tpgid: a.tpgid });
        expect(b.start).toMatch(/\d{2}:\d{2}:\d{2}/);
        expect(ps.uid(pid)).toBe(linuxTable().uid(pid));
      }
      const env = must(ps.environ(must(p.pid)));
      expect(env.RESUME_PS_PROBE).toBe('x1');
      expect(env.TMUX).toBe('/tmp/tmux-1/default,42,0');
      const again = must(psTable().stat(must(p.pid)));
      expect(again.start).toBe(must(ps.stat(must(p.pid))).start);
      expect(ps.stat(2 ** 22 + 7)).toBeNull();
    } finally {
      p.kill('SIGKILL');
    }
  });
});

describe('resume restart: a claude whose TMUX was cleared', { timeout: 120_000 }, () => {
  it_('asks every tmux server of the user (TMUX_TMPDIR) for the pane whose process tree holds it', async () => {
    const uid = must(process.getuid?.());
    const w = world((home) => path.join(home, 'tmuxtmp', `tmux-${uid}`, 'work'));
    const id = uuid(11);
    const { pane } = await claudeInPane(w, id, 'env -u TMUX -u TMUX_PANE');
    const tmpdir = path.join(w.home, 'tmuxtmp');
    const r = run(w.home, ['restart', '--outdated', '--dry-run'], { PATH: w.env.PATH, TMUX_TMPDIR: tmpdir });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain(
      `pane ${pane} (process tree, server ${w.sock} found by asking every tmux server (no TMUX in its environment))`,
    );
    expect(r.stdout).not.toContain('refused');
    // No server of the user to ask: refused, and nothing is touched.
    const none = run(w.home, ['restart', '--outdated', '--dry-run'], { PATH: w.env.PATH, TMUX_TMPDIR: path.join(w.home, 'empty') });
    expect(none.code).toBe(2);
    expect(none.stdout).toContain('refused: not in a tmux pane (no TMUX in its environment and no tmux server of its user)');
    // And the real restart through the found server resumes it in the same pane.
    const go = run(w.home, ['restart', '--outdated', '--timeout', '30s'], { PATH: w.env.PATH, TMUX_TMPDIR: tmpdir });
    expect(go.code, go.stderr).toBe(0);
    expect(go.stdout).toContain(`${id}\tresumed`);
  });
});

describe('resume hooks run with action = "restart" (real tmux, stand-in claude)', { timeout: 120_000 }, () => {
  it_('after claude changes version, the restart hook resumes the idle outdated session in its pane', async () => {
    const w = world();
    // the installed claude was 2.1.1 when the baseline was taken
    const link = path.join(w.home, '.local', 'bin', 'claude');
    const v1 = write(w.home, '.local/share/claude/versions/2.1.1', '');
    fs.rmSync(link);
    fs.symlinkSync(v1, link);
    write(w.home, '.config/resume/config', '[[resume.on_update]]\nharness = "claude"\naction = "restart"\ntimeout_seconds = 60\n');
    const env = { PATH: w.env.PATH, RESUME_HOOKS_SETTLE_MS: '20' };
    expect(run(w.home, ['hooks', 'run'], env).stdout).toBe('claude\t2.1.1\tbaseline recorded; no hooks fired\n');
    const id = uuid(11);
    const { pane, pid } = await claudeInPane(w, id);
    // the update: the link now names 2.1.2
    fs.rmSync(link);
    fs.symlinkSync(path.join(w.home, '.local/share/claude/versions/2.1.2'), link);
    const r = run(w.home, ['hooks', 'run'], env);
    expect(r.stdout).toMatch(/^claude\t2\.1\.1 -> 2\.1\.2\thook 1\trestart\tok\t\d+ ms\n$/);
    expect(r.stderr).toBe(`resume: restart: ${id} resumed resumed in pane ${pane}\n`);
    expect(r.code).toBe(0);
    expect(alive(pid)).toBe(false);
    const again = registry(w).filter((e) => e.sessionId === id);
    expect(again).toHaveLength(1);
    expect(again[0].pid).not.toBe(pid);
    const st = JSON.parse(fs.readFileSync(path.join(w.home, '.local/state/resume/hooks.json'), 'utf8'));
    expect(st.claude).toMatchObject({ version: '2.1.2', pending: null });
  });
});

describe('resume restart: usage', () => {
  it('needs --outdated; a bad --timeout is exit 2', () => {
    const h = tempHome();
    try {
      expect(run(h, ['restart']).code).toBe(2);
      if (linux) {
        const r = run(h, ['restart', '--outdated', '--timeout', 'soon']);
        expect(r.code).toBe(2);
        expect(r.stderr).toContain('--timeout takes a duration');
      }
    } finally {
      fs.rmSync(h, { recursive: true, force: true });
    }
  });
});
