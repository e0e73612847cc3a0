// `resume restart --outdated`: stop each outdated live Claude session once that is provably safe and
// resume it in the same tmux pane. Safe means, re-checked every few seconds until the timeout: the
// same process (start time), registry status exactly `idle`, the pane's foreground process, an empty
// input line; and never an ancestor of this process. Then: snapshot, SIGTERM, wait for the exit and
// the registry file to go and for the pane's shell to hold the foreground again, refuse when the
// session runs again by then, clear the line, type this resume by absolute path (`<node> <resume>
// <id>`: the pane's PATH may not have it), confirm the session registered again.
import fs from 'node:fs';
import path from 'node:path';
import { alive } from '../../../os/proc.js';
import { ancestry, inForeground, isAncestor, type ProcTable, procTable } from '../../../panes/proc.js';
import {
  capture,
  inputEmpty,
  listPanes,
  type Pane,
  paneExists,
  paneProcess,
  sendKeys,
  socketOf,
  userSockets,
} from '../../../panes/tmux.js';
import type { Ctx } from '../../../types.js';
import { addTo } from '../../../util/multimap.js';
import { findOutdated, type Outdated } from './outdated.js';
import { liveEntries, type RegEntry, readRegistry } from './registry.js';
import { snapshotAll } from './snapshot.js';

export const CHECK_MS = 2000;
const EXIT_MS = 30_000;
const REGISTER_MS = 60_000;
/** how long a stopped session's pane may take to give its shell the foreground back */
const SHELL_MS = 60_000;

/**
 * One word typed into a shell that may be sh, bash, zsh or fish: bare when every one reads it
 * literally, else in single quotes when it holds no quote, backslash or control character (the same
 * in all four); else null.
 */
export function typedWord(w: string): string | null {
  if (/^[A-Za-z0-9_/.,:@+-]+$/.test(w)) return w;
  // biome-ignore lint/suspicious/noControlCharactersInRegex: a word holding a control character is refused: it cannot be typed the same into every shell
  return /^[^'\\\x00-\x1f\x7f]*$/.test(w) ? `'${w}'` : null;
}

/** The line the relaunch types: this node and this resume by absolute path, then the id; or null. */
export function relaunchLine(self: string[], id: string): string | null {
  const words = [...self, id].map(typedWord);
  return words.every((x) => x != null) ? words.join(' ') : null;
}

export interface Target {
  o: Outdated;
  entry: RegEntry;
  socket: string | null;
  pane: string | null;
  /** how the pane was found: `process tree`, `environment (fallback)` */
  via: string | null;
  /** set when this session is refused before any waiting */
  refused: string | null;
  /** the process's start time when the plan was made, as the process table tells it (the pid-reuse guard) */
  start: string | null;
}

export interface Outcome {
  session: string;
  result: 'resumed' | 'skipped' | 'failed' | 'timeout' | 'vanished' | 'interrupted' | 'refused';
  detail: string;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * The pane holding `pid` in its process tree, on the server named by the process's own TMUX variable.
 * Without one (TMUX cleared, e.g. by `env -i`), every server socket of this user is asked, with a note.
 */
export async function locate(
  e: RegEntry,
  t: ProcTable = procTable(),
): Promise<Pick<Target, 'socket' | 'pane' | 'via' | 'refused'> & { notes: string[] }> {
  const env = t.environ(e.pid);
  const notes: string[] = [];
  if (env?.HERDR_PANE_ID && !env.TMUX)
    return { socket: null, pane: null, via: null, refused: 'runs in a herdr pane; restart drives tmux panes only', notes };
  const named = socketOf(env?.TMUX);
  const uid = t.uid(e.pid) ?? process.getuid?.() ?? 0;
  const sockets = named ? [named] : await userSockets(env?.TMUX_TMPDIR ?? process.env.TMUX_TMPDIR, uid);
  if (!sockets.length)
    return {
      socket: null,
      pane: null,
      via: null,
      refused: 'not in a tmux pane (no TMUX in its environment and no tmux server of its user)',
      notes,
    };
  const chain = new Set(ancestry(e.pid, t));
  const hits: { socket: string; pane: Pane }[] = [];
  let answered = false;
  for (const socket of sockets) {
    const panes = await listPanes(socket);
    if (!panes) continue;
    answered = true;
    for (const p of panes) if (chain.has(p.pid)) hits.push({ socket, pane: p });
  }
  if (hits.length > 1)
    return {
      socket: null,
      pane: null,
      via: null,
      refused: `${hits.length} panes claim it (${hits.map((h) => h.pane.id).join(', ')})`,
      notes,
    };
  const [hit] = hits;
  if (hit) {
    const { socket, pane } = hit;
    const via = named ? 'process tree' : `process tree, server ${socket} found by asking every tmux server (no TMUX in its environment)`;
    if (pane.pid === e.pid)
      return {
        socket,
        pane: pane.id,
        via,
        refused: "claude is the pane's own process: the pane would close with it and nothing could type the resume",
        notes,
      };
    return { socket, pane: pane.id, via, refused: null, notes };
  }
  if (named && env?.TMUX_PANE) {
    notes.push(
      `pane of ${e.sessionId} taken from its TMUX_PANE (${answered ? 'no pane of that server holds the process' : 'the tmux server did not answer'})`,
    );
    return { socket: named, pane: env.TMUX_PANE, via: 'environment (fallback)', refused: null, notes };
  }
  return {
    socket: null,
    pane: null,
    via: null,
    refused: named ? 'no tmux pane holds it' : 'no pane of any tmux server of its user holds it (no TMUX in its environment)',
    notes,
  };
}

/** The tmux server and pane of a target that was not refused (locate sets both whenever it refuses nothing). */
function paneOfTarget(t: Target): { socket: string; pane: string } {
  if (t.socket == null || t.pane == null) throw new Error(`restart: session ${t.o.session} has no tmux pane but was not refused`);
  return { socket: t.socket, pane: t.pane };
}

/** Every check that must hold before a signal; the first that fails, or null when all hold. */
export async function unsafe(t: Target, self = process.pid, table: ProcTable = procTable()): Promise<string | null> {
  const e = t.entry;
  const st = table.stat(e.pid);
  if (!st || (t.start != null && st.start !== t.start)) return 'gone';
  if (isAncestor(e.pid, self, table)) return 'it is an ancestor of this resume';
  const { socket, pane } = paneOfTarget(t);
  if (!(await paneExists(socket, pane))) return 'pane vanished';
  const now = readRegistry(e.root).find((r) => r.pid === e.pid && r.sessionId === e.sessionId);
  if (!now) return 'its registry file is gone';
  if (now.status !== 'idle') return `status is ${now.status ?? 'unknown'}, not idle`;
  if (!inForeground(e.pid, table)) return "it is not the pane's foreground process";
  const screen = await capture(socket, pane);
  if (screen == null) return 'pane vanished';
  if (!inputEmpty(screen)) return 'the input line is not empty (a draft would be lost)';
  return null;
}

export interface Stop {
  /** set by a signal: stop waiting (never a relaunch under way) */
  stop: boolean;
}

async function waitFor(cond: () => boolean, ms: number): Promise<boolean> {
  const end = Date.now() + ms;
  for (;;) {
    if (cond()) return true;
    if (Date.now() >= end) return false;
    await sleep(200);
  }
}

export interface Relaunch {
  /** the argv prefix typed before the id: this node and this resume, absolute */
  self: string[];
  /** a note on stderr (what it waits for) */
  note?: (s: string) => void;
}

export interface RestartOne {
  /** how long to wait for the session to be safe to stop */
  timeoutMs: number;
  stop: Stop;
  relaunch: Relaunch;
  /** the pause between safety checks */
  checkMs?: number;
}

/** Wait until the session is safe to stop: null when it is, else the outcome that ends it. */
async function waitSafe(t: Target, o: RestartOne, table: ProcTable): Promise<Outcome | null> {
  const id = t.o.session;
  const checkMs = o.checkMs ?? CHECK_MS;
  const end = Date.now() + o.timeoutMs;
  let why: string | null = null;
  for (;;) {
    if (o.stop.stop) return { session: id, result: 'interrupted', detail: `stopped waiting (${why ?? 'not yet checked'})` };
    why = await unsafe(t, process.pid, table);
    if (why === 'gone') return { session: id, result: 'skipped', detail: 'the process exited by itself' };
    if (why === 'pane vanished') return { session: id, result: 'vanished', detail: `pane ${t.pane} vanished` };
    if (!why) return null;
    if (Date.now() + checkMs > end) return { session: id, result: 'timeout', detail: `not safe to stop within the timeout: ${why}` };
    await sleep(checkMs);
  }
}

/** Snapshot, SIGTERM, wait for the exit and for the registry file to go: null when done, else the failure. */
async function stopSession(ctx: Ctx, t: Target): Promise<Outcome | null> {
  const id = t.o.session;
  const e = t.entry;
  try {
    snapshotAll(ctx);
  } catch {
    /* snapshot never blocks a restart; it is insurance */
  }
  try {
    process.kill(e.pid, 'SIGTERM');
  } catch (err) {
    return { session: id, result: 'failed', detail: `SIGTERM: ${(err as NodeJS.ErrnoException).code}` };
  }
  if (!(await waitFor(() => !alive(e.pid, e.procStart), EXIT_MS)))
    return { session: id, result: 'failed', detail: `pid ${e.pid} did not exit within ${EXIT_MS / 1000} s of SIGTERM` };
  if (!(await waitFor(() => !fs.existsSync(e.file), EXIT_MS)))
    return { session: id, result: 'failed', detail: `its registry file ${path.basename(e.file)} stayed after the exit` };
  return null;
}

/**
 * Whatever ran claude may start something else that reads the terminal (`claude; read-something`):
 * a line typed then would be its input. Type only once the pane's own process (its shell) holds the
 * terminal's foreground again. null when it does, else the outcome that ends it.
 */
async function waitShell(t: Target, line: string, rl: Relaunch): Promise<Outcome | null> {
  const id = t.o.session;
  const { socket, pane } = paneOfTarget(t);
  const shellEnd = Date.now() + SHELL_MS;
  let told = false;
  for (;;) {
    const pp = await paneProcess(socket, pane);
    if (!pp) return { session: id, result: 'vanished', detail: `pane ${t.pane} closed with the session` };
    if (inForeground(pp.pid, procTable())) return null;
    if (Date.now() >= shellEnd)
      return {
        session: id,
        result: 'failed',
        detail: `stopped, but the shell in pane ${t.pane} did not get the foreground back within ${SHELL_MS / 1000} s (${pp.current || 'another program'} holds it); nothing typed: run \`${line}\` there`,
      };
    if (!told)
      rl.note?.(
        `${id}: waiting for the shell in pane ${t.pane} to hold the foreground again (${pp.current || 'another program'} holds it)`,
      );
    told = true;
    await sleep(200);
  }
}

/** Type the relaunch line into the pane and wait for the session to register again. */
async function typeRelaunch(ctx: Ctx, t: Target, line: string): Promise<Outcome> {
  const id = t.o.session;
  const e = t.entry;
  const { socket, pane } = paneOfTarget(t);
  // Started again meanwhile (by hand, elsewhere): a second resume would make two writers of one transcript.
  const running = liveEntries(ctx).find((r) => r.sessionId === id && r.pid !== e.pid);
  if (running)
    return {
      session: id,
      result: 'refused',
      detail: `stopped, but it is running again (pid ${running.pid}); nothing typed into ${t.pane}`,
    };
  const typed =
    (await sendKeys(socket, pane, ['C-e', 'C-u'])) &&
    (await sendKeys(socket, pane, [line], true)) &&
    (await sendKeys(socket, pane, ['Enter']));
  if (!typed) return { session: id, result: 'vanished', detail: `could not type into pane ${t.pane}` };
  const again = await waitFor(() => liveEntries(ctx).some((r) => r.sessionId === id && r.pid !== e.pid), REGISTER_MS);
  if (!again)
    return {
      session: id,
      result: 'failed',
      detail: `typed \`${line}\` into ${t.pane}, but the session did not register again within ${REGISTER_MS / 1000} s`,
    };
  return { session: id, result: 'resumed', detail: `resumed in pane ${t.pane}` };
}

/** One session: wait until safe (or timeout/stop), then the relaunch sequence. */
export async function restartOne(ctx: Ctx, t: Target, o: RestartOne): Promise<Outcome> {
  const table = procTable();
  const id = t.o.session;
  const line = relaunchLine(o.relaunch.self, id);
  if (!line)
    return {
      session: id,
      result: 'refused',
      detail: `the path of this resume (${o.relaunch.self.join(' ')}) holds a quote, backslash or control character: it cannot be typed the same into every shell`,
    };
  const waited = await waitSafe(t, o, table);
  if (waited) return waited;
  // From here on a signal does not interrupt: the relaunch is finished or fails on its own.
  return (await stopSession(ctx, t)) ?? (await waitShell(t, line, o.relaunch)) ?? (await typeRelaunch(ctx, t, line));
}

/** The sessions to act on (outdated, narrowed by --session ids or prefixes) with their panes. */
export async function plan(
  ctx: Ctx,
  only: string[],
): Promise<{ targets: Target[]; notes: string[]; unknown: string[] } | { error: string }> {
  const r = findOutdated(ctx);
  if ('error' in r) return r;
  const live = liveEntries(ctx);
  const table = procTable();
  let list = r.sessions;
  const unknown: string[] = [];
  if (only.length) {
    for (const q of only) if (!list.some((s) => s.session.startsWith(q))) unknown.push(q);
    list = list.filter((s) => only.some((q) => s.session.startsWith(q)));
  }
  const notes: string[] = [];
  const targets: Target[] = [];
  const bySession = new Map<string, Outdated[]>();
  for (const s of list) addTo(bySession, s.session, s);
  for (const [sid, group] of bySession) {
    // Each outdated process with its registry entry; one that has gone since is left out.
    const pairs = group.flatMap((g) => {
      const entry = live.find((e) => e.pid === g.pid);
      return entry ? [{ o: g, entry }] : [];
    });
    const located = await Promise.all(pairs.map(async (p) => ({ ...p, l: await locate(p.entry, table) })));
    for (const { l } of located) notes.push(...l.notes);
    const panes = new Set(located.filter(({ l }) => l.pane).map(({ l }) => `${l.socket} ${l.pane}`));
    for (const { o, entry, l } of located) {
      let refused = l.refused;
      if (isAncestor(entry.pid, process.pid, table)) refused = 'it is an ancestor of this resume (it would stop itself)';
      if (pairs.length > 1 || panes.size > 1) refused = `${Math.max(panes.size, pairs.length)} panes claim session ${sid}`;
      targets.push({ o, entry, socket: l.socket, pane: l.pane, via: l.via, refused, start: table.stat(entry.pid)?.start ?? null });
    }
  }
  return { targets, notes, unknown };
}

export interface Pass {
  /** false when a session was refused, timed out, failed, vanished or was interrupted */
  complete: boolean;
  /** one tab-separated line per session: id, result, why */
  lines: string[];
}

/**
 * Every planned target in turn under the restart lock (`restart.lock` in the state directory). Each
 * session waits at most `timeoutMs`, and never past `deadline` (epoch ms) when one is given. A lock
 * held by another restart returns `{ locked }` and touches nothing.
 */
export async function restartTargets(
  ctx: Ctx,
  targets: Target[],
  o: { timeoutMs: number; deadline?: number; stop: Stop; relaunch: Relaunch; onLine?: (line: string) => void; checkMs?: number },
): Promise<Pass | { locked: number; file: string }> {
  const { tryLock } = await import('../../../os/lock.js');
  const { stateDir } = await import('../../../util/paths.js');
  const file = path.join(stateDir(ctx), 'restart.lock');
  const lock = tryLock(file);
  if (!lock.ok) return { locked: lock.holder, file };
  const res: Pass = { complete: true, lines: [] };
  const say = (l: string) => {
    res.lines.push(l);
    o.onLine?.(l);
  };
  try {
    for (const t of targets) {
      if (t.refused) {
        res.complete = false;
        say(`${t.o.session}\trefused\t${t.refused}`);
        continue;
      }
      if (o.stop.stop) {
        res.complete = false;
        say(`${t.o.session}\tinterrupted\tnot started`);
        continue;
      }
      const left = o.deadline == null ? o.timeoutMs : Math.min(o.timeoutMs, o.deadline - Date.now());
      if (left <= 0) {
        res.complete = false;
        say(`${t.o.session}\ttimeout\tnot started: the time allowed had passed`);
        continue;
      }
      const r = await restartOne(ctx, t, { timeoutMs: left, stop: o.stop, relaunch: o.relaunch, checkMs: o.checkMs });
      if (r.result !== 'resumed' && r.result !== 'skipped') res.complete = false;
      say(`${r.session}\t${r.result}\t${r.detail}`);
    }
  } finally {
    lock.release();
  }
  return res;
}
