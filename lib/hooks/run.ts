// `resume hooks run`: fire the `[[resume.on_update]]` hooks when the installed claude has changed
// version since the recorded one.
//
// - The first run records a baseline version and fires nothing.
// - A version counts only once it has settled: two reads in a row agree (up to 5 re-reads, a short
//   pause between them); a version still moving fires nothing and records nothing.
// - Up to 3 passes under a lock: a change that lands while the hooks run is taken by the next pass.
// - Hooks run in config order; a command is argv without a shell, with RESUME_HARNESS,
//   RESUME_OLD_VERSION and RESUME_NEW_VERSION set, bounded by its timeout_seconds; one failure does
//   not stop the next. `action = "restart"` is `resume restart --outdated`, in process.
// - The new version is recorded only after every hook has run. A signal (SIGTERM, SIGINT, SIGHUP)
//   ends the run with exit 1 and records nothing, so the next run fires the hooks again.
// - A restart that did not finish (a session busy until the timeout, a refusal) stays pending and is
//   retried by later runs while the version stays the same, 3 attempts in all.

import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { installedVersion } from '../harness/claude/care/version.js';
import type { Ctx } from '../types.js';
import { writeAtomic } from '../util/fsx.js';
import { stateDir } from '../util/paths.js';
import { raiseAlert } from './alert.js';
import { appendRun, type RunRecord, scrubTail, type Trigger } from './audit.js';
import type { OnUpdate } from './config.js';

export const PASSES = 3;
export const REREADS = 5;
export const ATTEMPTS = 3;
export const SETTLE_MS = 2000;
const KILL_GRACE_MS = 5000;

export interface Pending {
  /** the restart hooks (1-based config positions) still to finish */
  hooks: number[];
  old: string;
  new: string;
  /** attempts made so far (the run that fired them is the first) */
  attempts: number;
  last: string;
  detail: string;
}

export interface HarnessState {
  version: string;
  recorded: string;
  pending: Pending | null;
}

export type State = Partial<Record<'claude', HarnessState>>;

export const files = (ctx: Ctx) => {
  const dir = stateDir(ctx);
  return { dir, state: path.join(dir, 'hooks.json'), runs: path.join(dir, 'runs.jsonl'), lock: path.join(dir, 'hooks.lock') };
};

export function readState(file: string): State {
  try {
    const o = JSON.parse(fs.readFileSync(file, 'utf8'));
    return o && typeof o === 'object' && !Array.isArray(o) ? (o as State) : {};
  } catch {
    return {};
  }
}

/** What a signal has asked for, and the hook child to stop. */
export interface Runner {
  interrupted: NodeJS.Signals | null;
  /** handed to the in-process restart: stop waiting, never a relaunch under way */
  stop: { stop: boolean };
  child: ChildProcess | null;
}

export function interrupt(r: Runner, sig: NodeJS.Signals): void {
  r.interrupted ??= sig;
  r.stop.stop = true;
  const c = r.child;
  const pid = c?.pid;
  if (pid && c.exitCode == null && c.signalCode == null) {
    killGroup(pid, 'SIGTERM');
    setTimeout(() => killGroup(pid, 'SIGKILL'), KILL_GRACE_MS).unref();
  }
}

function killGroup(pid: number, sig: NodeJS.Signals): void {
  try {
    process.kill(-pid, sig);
  } catch {
    try {
      process.kill(pid, sig);
    } catch {
      /* gone */
    }
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The installed version once two reads in a row agree (up to REREADS re-reads). */
export async function settledVersion(
  ctx: Ctx,
  pauseMs: number,
  r: Runner,
): Promise<{ version: string } | { error: string } | { unsettled: string[] }> {
  let prev = installedVersion(ctx);
  if ('error' in prev) return prev;
  const seen = [prev.version];
  for (let i = 0; i < REREADS; i++) {
    await sleep(pauseMs);
    if (r.interrupted) return { unsettled: seen };
    const cur = installedVersion(ctx);
    if ('error' in cur) return cur;
    seen.push(cur.version);
    if (cur.version === prev.version) return { version: cur.version };
    prev = cur;
  }
  return { unsettled: seen };
}

export interface HookResult {
  exit: number | null;
  stopped: string | null;
  stderr: string;
  ms: number;
  /** restart only: did every session finish (resumed or skipped)? */
  complete?: boolean;
}

export interface Io {
  /** one data line on stdout */
  line(s: string): void;
  /** one note on stderr */
  note(s: string): void;
}

/** Run one command hook: argv, no shell, its own process group, bounded by its timeout. */
export function runCommand(ctx: Ctx, h: OnUpdate, { oldV, newV, r }: { oldV: string; newV: string; r: Runner }): Promise<HookResult> {
  const [bin, ...args] = h.command ?? [];
  if (bin === undefined) throw new Error(`hook ${h.n} is a command hook without a command`);
  const t0 = Date.now();
  return new Promise((resolve) => {
    let tail = '';
    let stopped: string | null = null;
    let done = false;
    const env = { ...ctx.env, RESUME_HARNESS: h.harness, RESUME_OLD_VERSION: oldV, RESUME_NEW_VERSION: newV };
    let child: ChildProcess;
    try {
      child = spawn(bin, args, {
        shell: false,
        detached: true,
        stdio: ['ignore', 'pipe', 'pipe'],
        env,
        cwd: ctx.home || '/',
      });
    } catch (err) {
      resolve({
        exit: null,
        stopped: `cannot run: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`,
        stderr: '',
        ms: Date.now() - t0,
      });
      return;
    }
    r.child = child;
    const finish = (exit: number | null, sig: NodeJS.Signals | null) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      r.child = null;
      if (!stopped && sig) stopped = `signal ${sig}`;
      if (r.interrupted && !stopped?.startsWith('timeout')) stopped = `interrupted (${r.interrupted})`;
      resolve({ exit, stopped, stderr: tail, ms: Date.now() - t0 });
    };
    const timer = setTimeout(() => {
      stopped = `timeout after ${h.timeoutSeconds} s`;
      const pid = child.pid;
      if (pid) {
        killGroup(pid, 'SIGTERM');
        setTimeout(() => killGroup(pid, 'SIGKILL'), KILL_GRACE_MS).unref();
      }
    }, h.timeoutSeconds * 1000);
    // Its output is drained, never echoed raw: the scrubbed stderr tail is what is reported.
    child.stdout?.resume();
    child.stderr?.on('data', (b: Buffer) => {
      tail = (tail + b.toString('utf8')).slice(-16384);
    });
    child.on('error', (err) => {
      stopped = `cannot run: ${(err as NodeJS.ErrnoException).code ?? err.message}`;
      finish(null, null);
    });
    child.on('exit', (code, sig) => {
      // A program that left children holding its output: do not wait for them past a second.
      let closed = false;
      child.once('close', () => {
        closed = true;
        finish(code, sig);
      });
      setTimeout(() => {
        if (!closed) finish(code, sig);
      }, 1000).unref();
    });
  });
}

/** `action = "restart"`: `resume restart --outdated` in process, bounded by the hook's timeout. */
async function runRestart(ctx: Ctx, h: OnUpdate, r: Runner, io: Io, self: string[]): Promise<HookResult> {
  const t0 = Date.now();
  const { noProcTable } = await import('../panes/proc.js');
  const cannot = noProcTable(process.env.PATH);
  if (cannot) return { exit: 1, stopped: null, stderr: cannot, ms: 0, complete: false };
  const { plan, restartTargets } = await import('../harness/claude/care/restart.js');
  const p = await plan(ctx, []);
  if ('error' in p)
    return { exit: 1, stopped: null, stderr: `cannot tell the installed claude version: ${p.error}`, ms: Date.now() - t0, complete: false };
  for (const n of p.notes) io.note(`restart: note: ${n}`);
  if (!p.targets.length) return { exit: 0, stopped: null, stderr: 'no outdated live Claude sessions', ms: Date.now() - t0, complete: true };
  const ms = h.timeoutSeconds * 1000;
  const res = await restartTargets(ctx, p.targets, {
    timeoutMs: ms,
    deadline: t0 + ms,
    stop: r.stop,
    relaunch: { self, note: (s) => io.note(`restart: ${s}`) },
    onLine: (l) => io.note(`restart: ${l}`),
  });
  if ('locked' in res)
    return { exit: 1, stopped: null, stderr: `another restart is running (pid ${res.locked})`, ms: Date.now() - t0, complete: false };
  const stopped = r.interrupted ? `interrupted (${r.interrupted})` : null;
  return { exit: res.complete ? 0 : 1, stopped, stderr: res.lines.join('; '), ms: Date.now() - t0, complete: res.complete };
}

/** The program of a command hook, as reported (its base name). */
function commandName(h: OnUpdate): string {
  return path.basename(h.command?.[0] ?? '');
}

function recordOf(
  trigger: Trigger,
  base: Pick<RunRecord, 'old_version' | 'new_version'>,
  h: OnUpdate | null,
  x: Partial<RunRecord>,
): RunRecord {
  return {
    time: new Date().toISOString(),
    harness: 'claude',
    trigger,
    event: 'hook',
    ...base,
    hook: h ? h.n : null,
    kind: h ? (h.action ? 'restart' : 'command') : null,
    program: h ? (h.action ? 'resume restart --outdated' : commandName(h)) : null,
    exit_code: null,
    stopped: null,
    duration_ms: null,
    stderr_tail: '',
    ...x,
  };
}

export interface RunOutcome {
  /** 0: done (baseline, unchanged, or every hook succeeded); 1: a hook failed, unsettled, interrupted, or an error */
  code: number;
}

/** What one `hooks run` works with. */
interface RunCtx {
  ctx: Ctx;
  r: Runner;
  io: Io;
  self: string[];
  trigger: Trigger;
  settleMs: number;
  f: ReturnType<typeof files>;
  /** has a hook failed in this run */
  failed: boolean;
  record(base: Pick<RunRecord, 'old_version' | 'new_version'>, h: OnUpdate | null, x: Partial<RunRecord>): RunRecord;
  audit(rec: RunRecord): void;
}

interface Firing {
  list: OnUpdate[];
  oldV: string;
  newV: string;
  attempt?: number;
}

/** Run one hook, record it and say how it went; its result and scrubbed stderr tail. */
async function fireOne(c: RunCtx, h: OnUpdate, { oldV, newV, attempt }: Omit<Firing, 'list'>): Promise<{ res: HookResult; tail: string }> {
  const { ctx, r, io } = c;
  const res = h.action ? await runRestart(ctx, h, r, io, c.self) : await runCommand(ctx, h, { oldV, newV, r });
  const tail = scrubTail(res.stderr, undefined, h.command?.slice(1));
  c.audit(
    c.record({ old_version: oldV, new_version: newV }, h, {
      exit_code: res.exit,
      stopped: res.stopped,
      duration_ms: res.ms,
      stderr_tail: tail,
      ...(attempt ? { attempt } : {}),
    }),
  );
  const ok = res.exit === 0 && !res.stopped;
  if (!ok) c.failed = true;
  const what = h.action ? 'restart' : commandName(h);
  io.line(
    ['claude', `${oldV} -> ${newV}`, `hook ${h.n}`, what, ok ? 'ok' : (res.stopped ?? `exit ${res.exit}`), `${res.ms} ms`].join('\t'),
  );
  if (tail && !ok) io.note(`hook ${h.n} (${what}): ${tail}`);
  return { res, tail };
}

/** Run the given hooks from old to new; returns the unfinished restart hooks, or null when interrupted. */
async function fire(c: RunCtx, { list, ...run }: Firing): Promise<{ unfinished: number[]; detail: string } | null> {
  const unfinished: number[] = [];
  let detail = '';
  for (const h of list) {
    if (c.r.interrupted) return null;
    const { res, tail } = await fireOne(c, h, run);
    if (h.action && !res.complete) {
      unfinished.push(h.n);
      detail = tail;
      // nobody reads a watcher's output: a person has to hear of it (alert.ts)
      if (c.trigger === 'watcher' && !c.r.interrupted) raiseAlert(c.ctx, { old_version: run.oldV, new_version: run.newV, detail: tail });
    }
    if (c.r.interrupted) return null;
  }
  return { unfinished, detail };
}

function interrupted(c: RunCtx, v: { old: string | null; new: string | null }): RunOutcome {
  c.audit(
    c.record({ old_version: v.old, new_version: v.new }, null, {
      event: 'interrupted',
      stderr_tail: `${c.r.interrupted}: nothing recorded`,
    }),
  );
  c.io.note(`${c.r.interrupted}: stopped; nothing recorded (the next run fires the hooks again)`);
  return { code: 1 };
}

/** The settled installed version, or the outcome when there is none (interrupted, unreadable, still moving). */
async function settled(c: RunCtx, old: string | null): Promise<string | RunOutcome> {
  const v = await settledVersion(c.ctx, c.settleMs, c.r);
  if (c.r.interrupted) return interrupted(c, { old, new: null });
  if ('error' in v) {
    c.audit(c.record({ old_version: old, new_version: null }, null, { event: 'error', stderr_tail: scrubTail(v.error) }));
    c.io.note(`cannot tell the installed claude version: ${v.error}`);
    return { code: 1 };
  }
  if ('unsettled' in v) {
    c.audit(
      c.record({ old_version: old, new_version: null }, null, {
        event: 'unsettled',
        stderr_tail: `reads: ${v.unsettled.join(', ')}`,
      }),
    );
    c.io.note(`the claude version has not settled (${v.unsettled.join(', ')}); nothing fired, nothing recorded`);
    return { code: 1 };
  }
  return v.version;
}

interface Retry {
  st: State;
  rec: HarnessState;
  p: Pending;
  mine: OnUpdate[];
  now: string;
}

/** A restart left unfinished by an earlier run: try again (the version has not moved since). */
async function retryPending(c: RunCtx, { st, rec, p, mine, now }: Retry): Promise<RunOutcome> {
  const list = mine.filter((h) => h.action === 'restart' && p.hooks.includes(h.n));
  const attempt = p.attempts + 1;
  let pending: Pending | null = null;
  if (list.length) {
    const res = await fire(c, { list, oldV: p.old, newV: p.new, attempt });
    if (!res) return interrupted(c, { old: p.old, new: p.new });
    if (res.unfinished.length && attempt < ATTEMPTS)
      pending = { ...p, hooks: res.unfinished, attempts: attempt, last: now, detail: res.detail };
    else if (res.unfinished.length) {
      c.audit(
        c.record({ old_version: p.old, new_version: p.new }, null, {
          event: 'retry-abandoned',
          stderr_tail: scrubTail(`restart still unfinished after ${attempt} attempts: ${res.detail}`),
        }),
      );
      c.io.note(`restart for claude ${p.old} -> ${p.new} still unfinished after ${attempt} attempts; not retried again`);
    }
  } else c.io.note('a pending restart is no longer configured; dropped');
  writeAtomic(c.f.state, `${JSON.stringify({ ...st, claude: { ...rec, pending } }, null, 2)}\n`);
  return { code: c.failed ? 1 : 0 };
}

/** The version changed: fire every hook, then record the new version. An outcome only when interrupted. */
async function fireChange(
  c: RunCtx,
  { rec, version, mine, now }: { rec: HarnessState; version: string; mine: OnUpdate[]; now: string },
): Promise<RunOutcome | null> {
  const res = await fire(c, { list: mine, oldV: rec.version, newV: version });
  if (!res) return interrupted(c, { old: rec.version, new: version });
  if (!mine.length) c.io.line(`claude\t${rec.version} -> ${version}\tno hooks configured`);
  const pending: Pending | null = res.unfinished.length
    ? { hooks: res.unfinished, old: rec.version, new: version, attempts: 1, last: now, detail: res.detail }
    : null;
  writeAtomic(
    c.f.state,
    `${JSON.stringify({ ...readState(c.f.state), claude: { version, recorded: new Date().toISOString(), pending } }, null, 2)}\n`,
  );
  return null;
}

/** Run the hooks of `hooks` (claude only) once under the caller's lock. */
export async function hooksRun(
  ctx: Ctx,
  hooks: OnUpdate[],
  r: Runner,
  io: Io,
  o: { settleMs?: number; self: string[]; trigger: Trigger },
): Promise<RunOutcome> {
  const f = files(ctx);
  const c: RunCtx = {
    ctx,
    r,
    io,
    self: o.self,
    trigger: o.trigger,
    settleMs: o.settleMs ?? SETTLE_MS,
    f,
    failed: false,
    record: (base, h, x) => recordOf(o.trigger, base, h, x),
    audit: (rec) => appendRun(f.runs, rec),
  };

  for (let pass = 1; pass <= PASSES; pass++) {
    const st = readState(f.state);
    const rec = st.claude ?? null;
    const version = await settled(c, rec?.version ?? null);
    if (typeof version !== 'string') return version;
    const now = new Date().toISOString();
    if (!rec) {
      writeAtomic(f.state, `${JSON.stringify({ ...st, claude: { version, recorded: now, pending: null } }, null, 2)}\n`);
      c.audit(c.record({ old_version: null, new_version: version }, null, { event: 'baseline' }));
      io.line(`claude\t${version}\tbaseline recorded; no hooks fired`);
      return { code: 0 };
    }
    const mine = hooks.filter((h) => h.harness === 'claude');
    if (version === rec.version) {
      const p = rec.pending;
      if (pass > 1 || !p) {
        if (pass === 1) io.line(`claude\t${version}\tunchanged`);
        return { code: c.failed ? 1 : 0 };
      }
      return retryPending(c, { st, rec, p, mine, now });
    }
    const stop = await fireChange(c, { rec, version, mine, now });
    if (stop) return stop;
  }
  io.note(`${PASSES} passes done; a change after them is taken by the next run`);
  return { code: c.failed ? 1 : 0 };
}
