// A command run in a private tmux server, its screen read with capture-pane (the picker tests and
// the relevance tests): keys are sent about 0.3 s apart and the screen is polled for the expected
// text, never a fixed sleep as proof.

import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll } from 'vitest';
import { BIN, envFor, must, sleep } from './helpers.js';

export const shq = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;
const sockets: string[] = [];

/** One tmux server per run: the command's stdout and exit status go to files, the screen is fzf's. */
export class Term {
  sock: string;
  constructor(
    public home: string,
    args: string[],
    env: Record<string, string | undefined> = {},
    size: [number, number] = [160, 40],
  ) {
    this.sock = `resume-pick-${process.pid}-${sockets.length}`;
    sockets.push(this.sock);
    const e = envFor(home, { TERM: 'xterm-256color', ...env });
    const script = [
      ...Object.entries(e)
        .filter(([, val]) => val !== undefined)
        .map(([k, val]) => `export ${k}=${shq(must(val))}`),
      `cd ${shq(home)}`,
      `${shq(process.execPath)} ${shq(BIN)} ${args.map(shq).join(' ')} > ${shq(path.join(home, 'out'))}`,
      `echo $? > ${shq(path.join(home, 'code'))}`,
      'sleep 600',
    ].join('\n');
    fs.writeFileSync(path.join(home, 'run.sh'), `${script}\n`);
    this.tmux('-f', '/dev/null', 'new-session', '-d', '-x', String(size[0]), '-y', String(size[1]), `sh ${shq(path.join(home, 'run.sh'))}`);
  }

  tmux(...args: string[]): string {
    const r = spawnSync('tmux', ['-L', this.sock, ...args], { encoding: 'utf8' });
    if (r.status !== 0) throw new Error(`tmux ${args.join(' ')}: ${r.stderr}`);
    return r.stdout;
  }

  screen(): string {
    return this.tmux('capture-pane', '-p');
  }

  async waitFor(what: string | RegExp, timeout = 20000): Promise<string> {
    const t0 = Date.now();
    let s = '';
    while (Date.now() - t0 < timeout) {
      s = this.screen();
      if (typeof what === 'string' ? s.includes(what) : what.test(s)) return s;
      await sleep(150);
    }
    throw new Error(`screen never showed ${what}; last screen:\n${s}`);
  }

  /** The list side of the screen: each line up to the preview's border. */
  list(): string {
    return this.screen()
      .split('\n')
      .map((l) => l.split(/[│╭╰]/)[0].trimEnd())
      .join('\n');
  }

  /**
   * Wait until the list side satisfies every condition at once. After a reload fzf may show the
   * new status line a moment before the new rows, and the preview may lag behind the cursor, so
   * absence is polled for like presence, on the list side only.
   */
  async waitList(has: (string | RegExp)[], hasNot: (string | RegExp)[] = [], timeout = 20000): Promise<string> {
    const t0 = Date.now();
    const ok = (l: string, w: string | RegExp) => (typeof w === 'string' ? l.includes(w) : w.test(l));
    let l = '';
    while (Date.now() - t0 < timeout) {
      l = this.list();
      if (has.every((w) => ok(l, w)) && !hasNot.some((w) => ok(l, w))) return l;
      await sleep(150);
    }
    throw new Error(`the list never showed ${has.join(', ')} without ${hasNot.join(', ')}; last list:\n${l}`);
  }

  async keys(...keys: string[]): Promise<void> {
    for (const k of keys) {
      this.tmux('send-keys', k);
      await sleep(300);
    }
  }

  async type(text: string): Promise<void> {
    for (const ch of text) {
      this.tmux('send-keys', '-l', ch);
      await sleep(60);
    }
    await sleep(300);
  }

  async exit(timeout = 20000): Promise<{ code: number; out: string }> {
    const f = path.join(this.home, 'code');
    const t0 = Date.now();
    while (!fs.existsSync(f) || fs.readFileSync(f, 'utf8').trim() === '') {
      if (Date.now() - t0 > timeout) throw new Error(`the command did not end; screen:\n${this.screen()}`);
      await sleep(150);
    }
    const code = Number(fs.readFileSync(f, 'utf8').trim());
    const out = fs.readFileSync(path.join(this.home, 'out'), 'utf8');
    this.kill();
    return { code, out };
  }

  kill(): void {
    spawnSync('tmux', ['-L', this.sock, 'kill-server']);
  }
}

export { sleep };

afterAll(() => {
  // (the server's socket file stays behind it: thousands of them pile up run after run; a live
  // session's pane lookup passes over dead ones, lib/panes/tmux.ts userSockets, but they are litter)
  const dir = path.join(process.env.TMUX_TMPDIR || '/tmp', `tmux-${process.getuid?.() ?? 0}`);
  for (const s of sockets) {
    spawnSync('tmux', ['-L', s, 'kill-server']);
    fs.rmSync(path.join(dir, s), { force: true });
  }
});
