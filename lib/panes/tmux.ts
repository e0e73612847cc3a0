// tmux, asked of a named server: the socket path from a process's own TMUX variable
// ("socket,server pid,session"), because people run several servers (-L/-S). Every call is a query
// (lib/os/run.ts: bounded) and never throws: a failed call is { ok: false }.
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { run } from '../os/run.js';

export interface Call {
  ok: boolean;
  stdout: string;
  error: string | null;
}

export async function tmux(socket: string, args: string[]): Promise<Call> {
  const r = await run('tmux', ['-S', socket, ...args]);
  if (r.ok) return { ok: true, stdout: r.stdout, error: null };
  return { ok: false, stdout: r.stdout, error: r.stderr.trim().split('\n')[0] || r.error || `exit status ${r.status}` };
}

/** The server socket named by a TMUX value, or null. */
export function socketOf(tmuxVar: string | undefined): string | null {
  if (!tmuxVar) return null;
  const s = tmuxVar.split(',')[0];
  return s?.startsWith('/') ? s : null;
}

/**
 * Every tmux server socket of this user that a server answers on: `${TMUX_TMPDIR:-/tmp}/tmux-<uid>/*`
 * (where `-L NAME` puts NAME). Used only when a process's environment names no server (its TMUX was
 * cleared, e.g. by `env -i`); a server started with `-S elsewhere` cannot be found this way. A server
 * that died (or was killed with kill-server) leaves its socket file behind; asking tmux of each one
 * costs a process apiece (thousands pile up on a machine that runs tmux in tests), so each is first
 * connected to (64 at a time), and only the ones that accept are kept.
 */
export async function userSockets(tmpdir: string | undefined, uid: number): Promise<string[]> {
  const dir = path.join(tmpdir || '/tmp', `tmux-${uid}`);
  let names: string[];
  try {
    names = fs.readdirSync(dir);
  } catch {
    return [];
  }
  const sockets = names
    .sort()
    .map((n) => path.join(dir, n))
    .filter((f) => {
      try {
        return fs.statSync(f).isSocket();
      } catch {
        return false;
      }
    });
  // a few dozen at a time: one connection each, and a descriptor limit of 1,024 is common
  const up: boolean[] = [];
  for (let i = 0; i < sockets.length; i += 64) up.push(...(await Promise.all(sockets.slice(i, i + 64).map((s) => answers(s)))));
  return sockets.filter((_, i) => up[i]);
}

/** Does a server accept a connection on this socket? A dead one's file refuses at once. */
export function answers(socket: string, waitMs = 1000): Promise<boolean> {
  return new Promise((resolve) => {
    const c = net.createConnection({ path: socket });
    const done = (ok: boolean) => {
      clearTimeout(timer);
      c.destroy();
      resolve(ok);
    };
    // a server too busy to accept within a second is one tmux itself would time out on
    const timer = setTimeout(() => done(false), waitMs);
    c.once('connect', () => done(true));
    c.once('error', () => done(false));
  });
}

export interface Pane {
  id: string;
  pid: number;
}

export async function listPanes(socket: string): Promise<Pane[] | null> {
  const r = await tmux(socket, ['list-panes', '-a', '-F', '#{pane_id}\t#{pane_pid}']);
  if (!r.ok) return null;
  const out: Pane[] = [];
  for (const line of r.stdout.split('\n')) {
    const [id, pid] = line.split('\t');
    if (id && /^%\d+$/.test(id) && /^\d+$/.test(pid ?? '')) out.push({ id, pid: Number(pid) });
  }
  return out;
}

/** The visible text of a pane, or null when the pane is gone. */
export async function capture(socket: string, pane: string): Promise<string | null> {
  const r = await tmux(socket, ['capture-pane', '-p', '-t', pane]);
  return r.ok ? r.stdout : null;
}

export async function paneExists(socket: string, pane: string): Promise<boolean> {
  const r = await tmux(socket, ['display-message', '-p', '-t', pane, '#{pane_id}']);
  return r.ok && r.stdout.trim() === pane;
}

/** The pane's own process (its shell) and the command in its foreground, or null when the pane is gone. */
export async function paneProcess(socket: string, pane: string): Promise<{ pid: number; current: string } | null> {
  const r = await tmux(socket, ['display-message', '-p', '-t', pane, '#{pane_pid}\t#{pane_current_command}']);
  if (!r.ok) return null;
  const [pid, current] = r.stdout.replace(/\n$/, '').split('\t');
  return /^\d+$/.test(pid ?? '') ? { pid: Number(pid), current: current ?? '' } : null;
}

export async function sendKeys(socket: string, pane: string, keys: string[], literal = false): Promise<boolean> {
  const r = await tmux(socket, ['send-keys', '-t', pane, ...(literal ? ['-l'] : []), ...keys]);
  return r.ok;
}

/**
 * Is Claude Code's input line empty? Its prompt is the last line starting with `❯` that is followed
 * by a horizontal rule; every line from it to the rule must hold nothing after the `❯`. No prompt
 * found reads as not empty (the safe answer).
 */
export function inputEmpty(screen: string): boolean {
  const lines = screen.split('\n');
  const rule = (l: string) => /^\s*─{3,}/.test(l);
  for (let i = lines.length - 1; i >= 0; i--) {
    const t = (lines[i] ?? '').replace(/\u00a0/g, ' ');
    if (!/^\s*❯/.test(t)) continue;
    const j = lines.findIndex((l, k) => k > i && rule(l));
    if (j < 0) continue; // not the input box
    if (t.replace(/^\s*❯/, '').trim()) return false;
    return lines.slice(i + 1, j).every((l) => !l.trim());
  }
  return false;
}
