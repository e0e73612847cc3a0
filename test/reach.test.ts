// A running session is reached, not refused (DESIGN.md "Naming a session"): a stand-in claude runs
// in a pane of a private tmux server (-S in the temp HOME) and `resume ID` is run from another
// window, another session (with a client attached through a second server), outside tmux, and
// through --dry-run, --print, emit and RESUME_EMIT_FILE. The proof is tmux's own answer: the active
// window and pane, the session a client shows. Outside a pane, the refusal names pid and terminal.

import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { BIN, needs, notLinux, run, tempHome, until, write } from './helpers.js';
import { claudeSession, standIn, TAIL } from './launch-helpers.js';
import { shq } from './tmux-term.js';

const it_ = it.skipIf(notLinux || needs('tmux', 'bash', 'fish'));
let n = 0;
const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const c of cleanups.splice(0)) c();
});

interface World {
  home: string;
  sock: string;
  id: string;
  short: string;
  /** the caller's environment: the stand-in first on PATH; tmux servers looked for in HOME only */
  env: Record<string, string>;
  tmux: (...args: string[]) => string;
}

function world(): World {
  const home = tempHome('resume-reach-');
  const si = standIn(home);
  const cwd = path.join(home, 'proj');
  fs.mkdirSync(cwd);
  const short = `c0ffee${(++n).toString(16).padStart(2, '0')}`;
  const id = `${short}-4e5f-4061-8071-${TAIL}`;
  claudeSession(home, { id, cwd, prompt: 'fix the flaky login test' });
  const sock = path.join(home, 'tmux.sock');
  // TMUX_TMPDIR: the servers under /tmp/tmux-<uid> (a developer's own) are never asked
  const env = {
    HOME: home,
    PATH: si.PATH,
    TMUX_TMPDIR: home,
    LANG: 'C.UTF-8',
    TERM: 'xterm-256color',
    RESUME_CACHE_DIR: path.join(home, '.cache'),
  };
  const tmux = (...args: string[]) => {
    const r = spawnSync('tmux', ['-S', sock, '-f', '/dev/null', ...args], { env, encoding: 'utf8' });
    if (r.status !== 0) throw new Error(`tmux ${args.join(' ')}: ${r.stderr}`);
    return r.stdout.trim();
  };
  cleanups.push(() => spawnSync('tmux', ['-S', sock, 'kill-server']));
  return { home, sock, id, short, env, tmux };
}

const shell = 'bash --norc --noprofile -i';

/** Session `work`: window 0 runs the stand-in claude for the session under a shell; window 1 is a shell. */
async function claudeInPane(w: World, launch = `claude --resume ${w.id}`): Promise<{ pane: string; other: string }> {
  const pane = w.tmux('new-session', '-d', '-P', '-F', '#{pane_id}', '-s', 'work', '-x', '80', '-y', '24', shell);
  w.tmux('send-keys', '-t', pane, '-l', `STANDIN_WAIT=1 ${launch}`);
  w.tmux('send-keys', '-t', pane, 'Enter');
  await until(() => fs.existsSync(path.join(w.home, 'standin.jsonl')));
  const other = w.tmux('new-window', '-P', '-F', '#{pane_id}', '-t', 'work', shell);
  return { pane, other };
}

/** Run a command line in a pane's shell; its stdout, stderr and exit code come back through files. */
async function inPaneSh(w: World, pane: string, cmd: string): Promise<{ code: number; stdout: string; stderr: string }> {
  const f = (x: string) => path.join(w.home, `pane-${x}`);
  for (const x of ['out', 'err', 'code']) fs.rmSync(f(x), { force: true });
  w.tmux('send-keys', '-t', pane, '-l', `{ ${cmd}; } >${shq(f('out'))} 2>${shq(f('err'))}; echo $? >${shq(f('code'))}`);
  w.tmux('send-keys', '-t', pane, 'Enter');
  const code = await until(() => fs.existsSync(f('code')) && fs.readFileSync(f('code'), 'utf8').trim());
  return { code: Number(code), stdout: fs.readFileSync(f('out'), 'utf8'), stderr: fs.readFileSync(f('err'), 'utf8') };
}

/** resume ARGS in a pane's shell (after PREFIX: variable assignments). */
function inPane(w: World, pane: string, args: string[], prefix = '') {
  return inPaneSh(w, pane, `${prefix}${shq(process.execPath)} ${shq(BIN)} ${args.map(shq).join(' ')}`);
}

const active = (w: World, target = 'work') => w.tmux('display', '-p', '-t', target, '#{pane_id}');

describe('resume ID for a session running in a tmux pane (real tmux, stand-in claude)', { timeout: 60_000 }, () => {
  it_('from another window of its session: that window and pane become active, exit 0', async () => {
    const w = world();
    const { pane, other } = await claudeInPane(w);
    expect(active(w)).toBe(other);
    const r = await inPane(w, other, [w.short]);
    expect(r.stderr).toBe(`resume: ${w.short} is running in tmux pane work:0.0 (${pane}); went there\n`);
    expect(r.code).toBe(0);
    expect(active(w)).toBe(pane);
  });

  it_('from another session with a client attached: the client is switched to the pane', async () => {
    const w = world();
    const { pane } = await claudeInPane(w);
    const elsewhere = w.tmux('new-session', '-d', '-P', '-F', '#{pane_id}', '-s', 'other', '-x', '80', '-y', '24', shell);
    // A real client on a terminal: `tmux attach` in a pane of a second server.
    const outer = path.join(w.home, 'outer.sock');
    cleanups.push(() => spawnSync('tmux', ['-S', outer, 'kill-server']));
    spawnSync(
      'tmux',
      ['-S', outer, '-f', '/dev/null', 'new-session', '-d', '-x', '100', '-y', '30', `env -u TMUX tmux -S ${shq(w.sock)} attach -t other`],
      { env: w.env },
    );
    await until(() => w.tmux('list-clients', '-F', '#{client_session}') === 'other');
    const r = await inPane(w, elsewhere, [w.short]);
    expect(r.code).toBe(0);
    expect(r.stderr).toContain('went there');
    expect(w.tmux('list-clients', '-F', '#{client_session} #{pane_id}')).toBe(`work ${pane}`);
  });

  it_('from outside tmux with no terminal: the pane is made active and the refusal-free note says how to attach', async () => {
    const w = world();
    const { pane } = await claudeInPane(w);
    const r = run(w.home, [w.short], w.env);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe(
      `resume: ${w.short} is running in tmux pane work:0.0 (${pane}), now its window's active pane; attach with: tmux -S ${w.sock} attach -t work\n`,
    );
    expect(active(w)).toBe(pane);
  });

  it_('outside tmux on a terminal: this terminal attaches to the session, at the pane', async () => {
    const w = world();
    const { pane } = await claudeInPane(w);
    // the terminal: a pane of a second server, TMUX unset as in a plain terminal
    const outer = path.join(w.home, 'outer.sock');
    cleanups.push(() => spawnSync('tmux', ['-S', outer, 'kill-server']));
    const cmd = `env -u TMUX -u TMUX_PANE ${shq(process.execPath)} ${shq(BIN)} ${w.short}`;
    spawnSync('tmux', ['-S', outer, '-f', '/dev/null', 'new-session', '-d', '-x', '100', '-y', '30', cmd], { env: w.env });
    await until(() => w.tmux('list-clients', '-F', '#{client_session} #{pane_id}') === `work ${pane}`);
  });

  it_('--dry-run says where it runs and what would go there, changing nothing; --json too', async () => {
    const w = world();
    const { pane, other } = await claudeInPane(w);
    const r = run(w.home, [w.short, '--dry-run'], w.env);
    expect(r.code).toBe(0);
    const pid = JSON.parse(fs.readFileSync(path.join(w.home, 'standin.jsonl'), 'utf8').split('\n')[0]).pid;
    const tty = w.tmux('display', '-p', '-t', pane, '#{pane_tty}');
    expect(r.stdout).toBe(
      `pid   ${pid}\ntty   ${tty}\npane  work:0.0 (${pane}) on ${w.sock} (found by process tree)\n` +
        `go    tmux -S ${w.sock} select-window -t ${pane} ';' select-pane -t ${pane}\n`,
    );
    // the process table through ps(1), as on macOS: the same answer
    expect(run(w.home, [w.short, '--dry-run'], { ...w.env, RESUME_PROC_TABLE: 'ps' }).stdout).toBe(r.stdout);
    const j = JSON.parse(run(w.home, [w.short, '--dry-run', '--json'], w.env).stdout);
    expect(j).toMatchObject({
      harness: 'claude',
      id: w.id,
      running: { pid, tty, pane: { socket: w.sock, id: pane, session: 'work', window: 0, index: 0 } },
    });
    expect(active(w)).toBe(other);
  });

  it_('--print, emit and the shell integration hand over a line that goes there when the shell runs it', async () => {
    const w = world();
    const { pane, other } = await claudeInPane(w);
    const want = `tmux select-window -t ${pane} ';' select-pane -t ${pane}`;
    for (const args of [
      [w.short, '--print'],
      ['emit', w.short],
    ]) {
      const r = await inPane(w, other, args);
      expect(r.code).toBe(0);
      expect(r.stdout).toBe(`${want}\n`);
    }
    expect(active(w)).toBe(other);
    // the shell integration: the line in RESUME_EMIT_FILE, quoted for its shell, then run by that shell
    const fishWant = `tmux select-window -t '${pane}' ';' select-pane -t '${pane}'`;
    for (const [sh, line, runIt] of [
      ['bash', want, (f: string) => `eval "$(<${shq(f)})"`],
      ['fish', fishWant, (f: string) => `fish --no-config -c ${shq(`eval (string collect < ${shq(f)})`)}`],
    ] as const) {
      w.tmux('select-window', '-t', other);
      const file = path.join(w.home, `emit-${sh}`);
      const r = await inPane(w, other, [w.short], `RESUME_EMIT_FILE=${shq(file)} RESUME_SHELL=${sh} `);
      expect(r.code).toBe(0);
      expect(fs.readFileSync(file, 'utf8')).toBe(`${line}\n`);
      expect(active(w)).toBe(other);
      const ran = await inPaneSh(w, other, runIt(file));
      expect(ran.stderr).toBe('');
      expect(active(w)).toBe(pane);
    }
  });

  it_('a harness without TMUX in its environment is found through RESUME_TMUX_SOCKET or by its terminal', async () => {
    const w = world();
    // `bash -c '… &'`: the stand-in outlives its parent (no pane process above it) and names no server
    const { pane } = await claudeInPane(w, `env -u TMUX bash -c 'claude --resume ${w.id} </dev/null >/dev/null &'`);
    const none = run(w.home, [w.short, '--dry-run'], w.env);
    expect(none.code).toBe(2);
    expect(none.stderr).toMatch(
      new RegExp(
        `^resume: ${w.short} is running \\(pid \\d+ on /dev/pts/\\d+; no tmux pane holds it\\); use --fork to open a copy of it\n$`,
      ),
    );
    const r = run(w.home, [w.short, '--dry-run'], { ...w.env, RESUME_TMUX_SOCKET: w.sock });
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(`pane  work:0.0 (${pane}) on ${w.sock} (found by terminal)\n`);
    const pid = JSON.parse(fs.readFileSync(path.join(w.home, 'standin.jsonl'), 'utf8').split('\n')[0]).pid;
    cleanups.push(() => process.kill(pid, 'SIGKILL'));
  });

  it_("refused in the caller's own pane (a job of its shell): tmux has nowhere to take it", async () => {
    const w = world();
    const { pane } = await claudeInPane(w, `claude --resume ${w.id} &`);
    const r = await inPane(w, pane, [w.short]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(
      new RegExp(
        `^resume: ${w.short} is running \\(pid \\d+ on /dev/pts/\\d+, in tmux pane work:0\\.0 \\(${pane}\\)\\), the pane this command runs in \\(a job of this shell\\? fg brings it back\\); or use --fork to open a copy of it\n$`,
      ),
    );
  });

  it_('refused from inside the session itself (claude running resume on its own session)', async () => {
    const w = world();
    // a claude that runs `resume SHORT` as its child (a tool call would), then stays
    const inner = write(
      w.home,
      'inner/claude',
      `#!${process.execPath}
const r = require('child_process').spawnSync(process.execPath, [${JSON.stringify(BIN)}, ${JSON.stringify(w.short)}], { encoding: 'utf8' });
require('fs').writeFileSync(${JSON.stringify(path.join(w.home, 'inner.out'))}, JSON.stringify({ code: r.status, stderr: r.stderr }));
setInterval(() => {}, 1 << 30);
`,
    );
    fs.chmodSync(inner, 0o755);
    const pane = w.tmux('new-session', '-d', '-P', '-F', '#{pane_id}', '-s', 'work', '-x', '80', '-y', '24', shell);
    w.tmux('send-keys', '-t', pane, '-l', `${shq(inner)} --resume ${w.id}`);
    w.tmux('send-keys', '-t', pane, 'Enter');
    const file = path.join(w.home, 'inner.out');
    const out = JSON.parse(await until(() => fs.existsSync(file) && fs.readFileSync(file, 'utf8')));
    expect(out.code).toBe(2);
    expect(out.stderr).toMatch(
      new RegExp(
        `is running \\(pid \\d+ on /dev/pts/\\d+, in tmux pane work:0\\.0 \\(${pane}\\)\\) and this command runs inside it; use --fork`,
      ),
    );
  });

  it_('not in any pane: exit 2 naming pid and terminal; --fork still opens a copy', async () => {
    const w = world();
    // detached: a session of its own, so no terminal (not the one this test runs on)
    const p: ChildProcess = spawn('claude', ['--resume', w.id], { env: { ...w.env, STANDIN_WAIT: '1' }, stdio: 'ignore', detached: true });
    cleanups.push(() => p.kill('SIGKILL'));
    await until(() => fs.existsSync(path.join(w.home, 'standin.jsonl')));
    for (const args of [[w.short], [w.short, '--dry-run'], [w.short, '--print'], ['emit', w.short]]) {
      const r = run(w.home, args, w.env);
      expect(r.code).toBe(2);
      expect(r.stderr).toBe(
        `resume: ${w.short} is running (pid ${p.pid}, no terminal; no tmux pane holds it); use --fork to open a copy of it\n`,
      );
    }
    expect(run(w.home, [w.short, '--fork', '--dry-run'], w.env).code).toBe(0);
  });
});
