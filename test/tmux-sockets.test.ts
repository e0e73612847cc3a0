// Which tmux servers a live session's pane is looked for in when its environment names none
// (lib/panes/tmux.ts userSockets): a real server, one killed with -9 (its socket file stays), a
// plain file. Only the live server's socket is kept, so the dead ones cost no tmux process each.

import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { answers, userSockets } from '../lib/panes/tmux.js';
import { must, needs, tempHome } from './helpers.js';

const skip = needs('tmux');
const dir = tempHome('resume-tmux-sockets-');
const uid = process.getuid?.() ?? 0;
const own = path.join(dir, `tmux-${uid}`);
const live = path.join(own, 'live');
const dead = path.join(own, 'dead');

afterAll(() => {
  spawnSync('tmux', ['-S', live, 'kill-server']);
  fs.rmSync(dir, { recursive: true, force: true });
});

function server(sock: string): number {
  const r = spawnSync('tmux', ['-S', sock, 'new-session', '-d', '-x', '80', '-y', '24', 'sleep 600'], { encoding: 'utf8' });
  expect(r.status, r.stderr).toBe(0);
  const pid = spawnSync('tmux', ['-S', sock, 'display-message', '-p', '#{pid}'], { encoding: 'utf8' }).stdout.trim();
  return Number(must(/^\d+$/.exec(pid), 'the server pid')[0]);
}

describe.skipIf(skip)('the tmux servers of a user', () => {
  it('keeps the sockets a server answers on, not a dead server’s file or a plain file', async () => {
    fs.mkdirSync(own, { recursive: true, mode: 0o700 });
    server(live);
    const gone = server(dead);
    process.kill(gone, 'SIGKILL');
    for (let i = 0; i < 50 && (await answers(dead)); i++) await new Promise((r) => setTimeout(r, 100));
    expect(fs.statSync(dead).isSocket()).toBe(true); // the file a killed server leaves behind
    fs.writeFileSync(path.join(own, 'notes'), 'not a socket');
    expect(await answers(live)).toBe(true);
    expect(await answers(dead)).toBe(false);
    expect(await userSockets(dir, uid)).toEqual([live]);
    expect(await userSockets(path.join(dir, 'none'), uid)).toEqual([]);
  });
});
