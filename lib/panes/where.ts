// Where a process runs: its terminal, and the tmux pane that holds it (on which server, in which
// session, window and pane), so `resume ID` can take a person to a session that is already running.
//
// A pane holds the process when the pane's process is the process or one of its ancestors; failing
// that (a process whose parent is gone, reparented to init), when it runs on the pane's terminal.
// The servers asked, in order, stopping at the first pane found: the one named by the process's own
// TMUX variable, RESUME_TMUX_SOCKET (a socket path, or a name as `tmux -L` takes it), the caller's
// own $TMUX, then every socket in `${TMUX_TMPDIR:-/tmp}/tmux-<uid>/` (where the default server and
// every `-L NAME` server live). A server started with `-S elsewhere` is found through the first three.

import fs from 'node:fs';
import path from 'node:path';
import { runSync } from '../os/run.js';
import { ancestry, type ProcTable, procTable } from './proc.js';
import { socketOf, tmux, userSockets } from './tmux.js';

export interface PaneAt {
  socket: string;
  /** `%5` */
  id: string;
  pid: number;
  tty: string;
  /** `$2` */
  sessionId: string;
  session: string;
  window: number;
  index: number;
  /** clients attached to the pane's session */
  attached: number;
  via: 'process tree' | 'terminal';
}

export interface Where {
  pid: number;
  /** the process's controlling terminal (`/dev/pts/3`), or null */
  tty: string | null;
  pane: PaneAt | null;
  /** the caller's own pane, when the caller runs on the server the pane is on */
  callerPane: PaneAt | null;
}

/** A socket path from RESUME_TMUX_SOCKET: a path as is, a bare name where `tmux -L NAME` puts it. */
export function socketNamed(v: string | undefined, env: NodeJS.ProcessEnv, uid: number): string | null {
  if (!v) return null;
  if (v.includes('/')) return path.resolve(v);
  return path.join(env.TMUX_TMPDIR || '/tmp', `tmux-${uid}`, v);
}

/** The socket a bare `tmux` talks to with this environment: $TMUX's, else the default one. */
export function defaultSocket(env: NodeJS.ProcessEnv, uid: number): string {
  return socketOf(env.TMUX) ?? path.join(env.TMUX_TMPDIR || '/tmp', `tmux-${uid}`, 'default');
}

/** The same socket file (a symlinked /tmp, a relative -S path) or the same string. */
export function sameSocket(a: string, b: string): boolean {
  if (a === b) return true;
  try {
    return fs.realpathSync(a) === fs.realpathSync(b);
  } catch {
    return false;
  }
}

/** Linux: decode /proc/<pid>/stat's tty_nr (pts and virtual consoles), else the terminal on fd 0-2. */
function linuxTty(pid: number, root = '/proc'): string | null {
  try {
    const st = fs.readFileSync(path.join(root, String(pid), 'stat'), 'utf8');
    const nr = Number(st.slice(st.lastIndexOf(')') + 2).split(' ')[4]);
    if (nr > 0) {
      const major = (nr >> 8) & 0xfff;
      const minor = (nr & 0xff) | ((nr >> 12) & 0xfff00);
      if (major >= 136 && major <= 143) return `/dev/pts/${(major - 136) * 256 + minor}`;
      if (major === 4) return minor < 64 ? `/dev/tty${minor}` : `/dev/ttyS${minor - 64}`;
    }
  } catch {
    return null;
  }
  for (const fd of [0, 1, 2]) {
    try {
      const l = fs.readlinkSync(path.join(root, String(pid), 'fd', String(fd)));
      if (/^\/dev\/(pts\/\d+|tty[A-Za-z]*\d+)$/.test(l)) return l;
    } catch {
      /* closed, or not ours */
    }
  }
  return null;
}

/** ps(1)'s terminal column (`pts/3`, `ttys003`; `?`/`??` for none) as a device path. */
function psTty(pid: number): string | null {
  const r = runSync('ps', ['-o', 'tty=', '-p', String(pid)], { env: { ...process.env, LC_ALL: 'C' } });
  const t = r.ok ? r.stdout.trim() : '';
  if (!t || /^[?-]+$/.test(t)) return null;
  return t.startsWith('/') ? t : `/dev/${t}`;
}

export function ttyOf(pid: number, t: ProcTable = procTable()): string | null {
  return t.kind === 'proc' ? linuxTty(pid) : psTty(pid);
}

const FORMAT = [
  '#{pane_id}',
  '#{pane_pid}',
  '#{pane_tty}',
  '#{session_id}',
  '#{window_index}',
  '#{pane_index}',
  '#{session_attached}',
  '#{session_name}',
].join('\t');

/** Every pane of a server with where it sits, or null when the server does not answer. */
export async function panesAt(socket: string): Promise<Omit<PaneAt, 'via'>[] | null> {
  const r = await tmux(socket, ['list-panes', '-a', '-F', FORMAT]);
  if (!r.ok) return null;
  const out: Omit<PaneAt, 'via'>[] = [];
  for (const line of r.stdout.split('\n')) {
    const f = line.split('\t');
    const [id = '', pid = '', tty = '', sessionId = '', window, index, attached] = f;
    if (f.length < 8 || !/^%\d+$/.test(id) || !/^\d+$/.test(pid)) continue;
    // the session's name is last: whatever it holds stays in it
    out.push({
      socket,
      id,
      pid: Number(pid),
      tty,
      sessionId,
      window: Number(window),
      index: Number(index),
      attached: Number(attached),
      session: f.slice(7).join('\t'),
    });
  }
  return out;
}

export interface WhereOptions {
  /** the caller's environment (TMUX, TMUX_PANE, TMUX_TMPDIR, RESUME_TMUX_SOCKET) */
  env?: NodeJS.ProcessEnv;
  table?: ProcTable;
}

/** Where the process `pid` runs: its terminal and its tmux pane, if any. */
export async function whereRuns(pid: number, o: WhereOptions = {}): Promise<Where> {
  const env = o.env ?? process.env;
  const t = o.table ?? procTable(env);
  const tty = ttyOf(pid, t);
  const uid = t.uid(pid) ?? process.getuid?.() ?? 0;
  const own = t.environ(pid);
  const sockets: string[] = [];
  const add = (s: string | null) => {
    if (s && !sockets.some((x) => sameSocket(x, s))) sockets.push(s);
  };
  add(socketOf(own?.TMUX));
  add(socketNamed(env.RESUME_TMUX_SOCKET, env, uid));
  add(socketOf(env.TMUX));
  for (const s of await userSockets(env.TMUX_TMPDIR, uid)) add(s);

  const chain = new Set(ancestry(pid, t));
  const callerSocket = socketOf(env.TMUX);
  for (const socket of sockets) {
    const panes = await panesAt(socket);
    if (!panes) continue;
    // One pane at most is an ancestor: a server's panes descend from the server, not from a client.
    const byTree = panes.find((p) => chain.has(p.pid));
    const byTty = tty ? panes.find((p) => p.tty === tty) : undefined;
    const hit = byTree ? { ...byTree, via: 'process tree' as const } : byTty ? { ...byTty, via: 'terminal' as const } : null;
    if (!hit) continue;
    const mine = callerSocket && sameSocket(callerSocket, socket) ? panes.find((p) => p.id === env.TMUX_PANE) : undefined;
    return { pid, tty, pane: hit, callerPane: mine ? { ...mine, via: 'process tree' } : null };
  }
  return { pid, tty, pane: null, callerPane: null };
}

/** `main:1.0 (%5)`: the pane as a person names it, then its id. */
export function paneName(p: Pick<PaneAt, 'session' | 'window' | 'index' | 'id'>): string {
  return `${p.session}:${p.window}.${p.index} (${p.id})`;
}
