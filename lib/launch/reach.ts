// A session that is running is reached, not started twice: when it runs in a tmux pane, that pane is
// made active and the caller is taken to it. What "taken to it" means depends on where the caller is:
//   in tmux, the same session          select-window, select-pane
//   in tmux, another session           the same, then switch-client (the caller's client moves)
//   in tmux, on another server         select-window, select-pane there; says how to attach (a client
//                                      cannot move between servers, and tmux in tmux is refused)
//   outside tmux, on a terminal        select-window, select-pane, attach-session: this terminal
//                                      becomes a client of that session (as well as any other)
//   outside tmux, no terminal          select-window, select-pane; says how to attach
// Elsewhere it is refused, saying where it runs (pid, terminal, pane), with `--fork` as the way in:
// no pane holds it, this command runs inside the session itself (its own shell tool), or the pane is
// the caller's own (a job of the caller's shell: `fg`).
import path from 'node:path';
import { ExitError } from '../errors.js';
import { isAncestor, procTable } from '../panes/proc.js';
import { socketOf } from '../panes/tmux.js';
import { defaultSocket, type PaneAt, paneName, sameSocket, type Where, whereRuns } from '../panes/where.js';
import { quoteFor, quotePosix, type ShellName, shown } from '../util/quote.js';
import { oneLine } from '../util/text.js';
import type { LiveHit } from './live.js';

export type How = 'select' | 'switch' | 'elsewhere' | 'attach';

export interface Reach {
  name: string;
  where: Where;
  pane: PaneAt;
  how: How;
  /** tmux and its arguments (`-L NAME`/`-S PATH` when not the server a bare `tmux` talks to) */
  argv: string[];
}

/** The pane as messages show it: control characters out of the session's name. */
export function paneShown(p: PaneAt): string {
  return oneLine(paneName(p));
}

/** `-L NAME` for a socket in the user's tmux directory, `-S PATH` elsewhere, nothing for the default one. */
function serverArgs(socket: string, env: NodeJS.ProcessEnv, uid: number): string[] {
  if (sameSocket(socket, defaultSocket(env, uid))) return [];
  const dir = path.join(env.TMUX_TMPDIR || '/tmp', `tmux-${uid}`);
  return path.dirname(socket) === dir ? ['-L', path.basename(socket)] : ['-S', socket];
}

/**
 * Where the live session runs and how to get there; an ExitError(2) refusal when there is no pane
 * to go to. `terminal`: the caller could attach a tmux client here (stdin and stdout are terminals,
 * or the shell integration will run the line on one).
 */
export async function reach(name: string, hit: LiveHit, o: { env?: NodeJS.ProcessEnv; terminal: boolean }): Promise<Reach> {
  const env = o.env ?? process.env;
  const table = procTable(env);
  const where = await whereRuns(hit.pid, { env, table });
  const at = (p: PaneAt | null) =>
    `pid ${hit.pid}${where.tty ? ` on ${where.tty}` : ', no terminal'}${p ? `, in tmux pane ${paneShown(p)}` : ''}`;
  const pane = where.pane;
  if (!pane) throw new ExitError(2, `${name} is running (${at(null)}; no tmux pane holds it); use --fork to open a copy of it`);
  if (isAncestor(hit.pid, process.pid, table)) {
    throw new ExitError(2, `${name} is running (${at(pane)}) and this command runs inside it; use --fork to open a copy of it`);
  }
  if (where.callerPane?.id === pane.id) {
    // a job of this very shell (Ctrl-Z, `&`): tmux has nowhere to take the caller
    throw new ExitError(
      2,
      `${name} is running (${at(pane)}), the pane this command runs in (a job of this shell? fg brings it back); or use --fork to open a copy of it`,
    );
  }
  const uid = table.uid(hit.pid) ?? process.getuid?.() ?? 0;
  const caller = socketOf(env.TMUX);
  const how: How = caller
    ? sameSocket(caller, pane.socket)
      ? where.callerPane?.sessionId === pane.sessionId
        ? 'select'
        : 'switch'
      : 'elsewhere'
    : 'attach';
  const t = pane.id;
  const argv = ['tmux', ...serverArgs(pane.socket, env, uid), 'select-window', '-t', t, ';', 'select-pane', '-t', t];
  if (how === 'switch') argv.push(';', 'switch-client', '-t', t);
  if (how === 'attach' && o.terminal) argv.push(';', 'attach-session', '-t', t);
  return { name, where, pane, how: how === 'attach' && !o.terminal ? 'elsewhere' : how, argv };
}

/** The line the shell runs (--print, --copy, the shell integration, emit). */
export function reachLine(r: Reach, shell: ShellName): string {
  const q = quoteFor(shell);
  return r.argv.map(q).join(' ');
}

/** How a person attaches to the pane's session from a plain terminal. */
export function attachHint(r: Reach): string {
  const server = r.argv.slice(1, r.argv.indexOf('select-window'));
  return ['tmux', ...server, 'attach', '-t', r.pane.session].map(quotePosix).join(' ');
}

/** The note on stderr once the pane is active (nothing for an attach: the screen is tmux's). */
export function reachNote(r: Reach): string | null {
  const p = paneShown(r.pane);
  switch (r.how) {
    case 'select':
    case 'switch':
      return `${r.name} is running in tmux pane ${p}; went there`;
    case 'elsewhere':
      return `${r.name} is running in tmux pane ${p}, now its window's active pane; attach with: ${oneLine(attachHint(r))}`;
    case 'attach':
      return null;
  }
}

/** `--dry-run`: what would be done, for a person. */
export function reachText(r: Reach): string {
  const w = r.where;
  return (
    `pid   ${w.pid}\n` +
    `tty   ${w.tty ?? '-'}\n` +
    `pane  ${paneShown(r.pane)} on ${shown(r.pane.socket)} (found by ${r.pane.via})\n` +
    `go    ${reachLine(r, 'bash')}\n`
  );
}

/** `--dry-run --json`. */
export function reachJson(r: Reach, harness: string, id: string): object {
  const p = r.pane;
  return {
    harness,
    id,
    running: {
      pid: r.where.pid,
      tty: r.where.tty,
      pane: { socket: p.socket, id: p.id, session: p.session, window: p.window, index: p.index, via: p.via },
    },
    go: r.argv,
  };
}
