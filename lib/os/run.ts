// Child processes: the one way to run a program to its end and read what it printed, and the one
// timeout policy. A child we wait for is a query (ps, lsof, tmux, git, `--version`, a clipboard tool,
// notify-send): it gets QUICK_MS, then SIGKILL, since a wedged query must never hang resume. A
// service manager asked to load units (systemctl, launchctl) may start things and gets SLOW_MS. A
// program handed the terminal (`attached`: the harness, `tmux attach`) runs as long as the person
// keeps it, as does work the person asked for that takes as long as it takes (`git worktree add`
// checking out files: `timeout: 0`). (A hook program runs under its own configured timeout:
// lib/hooks/run.ts.)
//
// node:child_process rather than execa: these are short argv calls with captured text, where execa
// would add a package and its start-up cost for what spawnSync and execFile already do.
import { type ChildProcess, execFile, spawn, spawnSync } from 'node:child_process';
import { nodeOs } from '../util/lazy.js';

/** A query: ps, lsof, tmux, git, a `--version`, a clipboard tool, a notification. */
export const QUICK_MS = 5_000;
/** A service manager asked to load or unload units (systemctl, launchctl). */
export const SLOW_MS = 30_000;

export interface RunOptions {
  /** the environment (default: this process's) */
  env?: NodeJS.ProcessEnv;
  cwd?: string;
  /** text for its stdin; without it stdin is /dev/null */
  input?: string;
  /** ms before SIGKILL (default QUICK_MS; 0: none) */
  timeout?: number;
  /** most bytes kept of stdout and of stderr (default 16 MiB); past it the child is killed */
  maxBuffer?: number;
  /**
   * (runSync) stdout and stderr to /dev/null, not read: for a program that leaves a process behind holding
   * them (xclip keeps the selection), which a wait for their end would wait on
   */
  discard?: boolean;
}

export interface RunResult {
  /** exit status 0 */
  ok: boolean;
  /** exit status, or null when it did not start or a signal ended it */
  status: number | null;
  stdout: string;
  stderr: string;
  /** why it did not run or finish (`ENOENT`, `timed out after 5 s`, `signal SIGTERM`), null when it exited */
  error: string | null;
}

const MAX_BUFFER = 16 << 20;

function why(err: (Error & { code?: unknown; killed?: boolean; signal?: unknown }) | null | undefined, timeout: number): string | null {
  if (!err) return null;
  if (err.code === 'ETIMEDOUT' || (err.killed && err.signal === 'SIGKILL')) return `timed out after ${timeout / 1000} s`;
  return typeof err.code === 'string' ? err.code : err.message;
}

/** Run `cmd` to its end, waiting here (the caller needs the answer before it can go on). */
export function runSync(cmd: string, args: readonly string[], o: RunOptions = {}): RunResult {
  const timeout = o.timeout ?? QUICK_MS;
  const r = spawnSync(cmd, args, {
    encoding: 'utf8',
    env: o.env ?? process.env,
    cwd: o.cwd,
    input: o.input,
    stdio: [o.input == null ? 'ignore' : 'pipe', o.discard ? 'ignore' : 'pipe', o.discard ? 'ignore' : 'pipe'],
    timeout,
    killSignal: 'SIGKILL',
    maxBuffer: o.maxBuffer ?? MAX_BUFFER,
  });
  const error = why(r.error, timeout) ?? (r.signal ? `signal ${r.signal}` : null);
  return { ok: r.status === 0 && !r.error, status: r.status, stdout: r.stdout ?? '', stderr: r.stderr ?? '', error };
}

/** Run `cmd` to its end without blocking (several at once, or beside other work). Never rejects. */
export function run(cmd: string, args: readonly string[], o: RunOptions = {}): Promise<RunResult> {
  const timeout = o.timeout ?? QUICK_MS;
  return new Promise((resolve) => {
    let child: ChildProcess;
    try {
      child = execFile(
        cmd,
        args,
        { encoding: 'utf8', env: o.env ?? process.env, cwd: o.cwd, timeout, killSignal: 'SIGKILL', maxBuffer: o.maxBuffer ?? MAX_BUFFER },
        (err, stdout, stderr) => {
          const status = err ? (typeof err.code === 'number' ? err.code : null) : 0;
          const error = err && status === null ? why(err, timeout) : null;
          resolve({ ok: !err, status, stdout: String(stdout ?? ''), stderr: String(stderr ?? ''), error });
        },
      );
    } catch (err) {
      resolve({ ok: false, status: null, stdout: '', stderr: '', error: why(err as Error, timeout) });
      return;
    }
    child.stdin?.on('error', () => {
      /* it exited before reading its input */
    });
    child.stdin?.end(o.input ?? '');
  });
}

/** Start `cmd` and leave it (a notification): no wait, no output, never an error; killed past QUICK_MS. */
export function runDetached(cmd: string, args: readonly string[], o: { env?: NodeJS.ProcessEnv } = {}): void {
  try {
    const c = spawn(cmd, args, { stdio: 'ignore', env: o.env ?? process.env, timeout: QUICK_MS, killSignal: 'SIGKILL' });
    c.on('error', () => {});
  } catch {
    /* cannot start it */
  }
}

/**
 * Start `cmd` in the background and leave it running past this process (its own session, no
 * terminal, no output, at `nice` when given): work made for a later run, such as a `resume index`
 * a search starts. Never an error: a program that cannot start (or be lowered) is left out.
 */
export function runBackground(cmd: string, args: readonly string[], o: { env?: NodeJS.ProcessEnv; nice?: number } = {}): void {
  try {
    const c = spawn(cmd, args, { detached: true, stdio: 'ignore', env: o.env ?? process.env });
    c.on('error', () => {});
    if (c.pid && o.nice) nodeOs().setPriority(c.pid, o.nice);
    c.unref();
  } catch {
    /* cannot start it, or lower it */
  }
}

const FORWARD = ['SIGINT', 'SIGQUIT', 'SIGTERM', 'SIGHUP'] as const;

/**
 * Run `cmd` on this terminal (stdio inherited; stdin fed `input` when given: a pager) and resolve with the exit code to end with (128 +
 * signal number when a signal ended it); rejects with the spawn error (ENOENT, EACCES). Signals sent
 * to resume are passed on. Ctrl-C and Ctrl-\ typed on a terminal already reach the child (it is in
 * the same foreground process group), so SIGINT and SIGQUIT are only passed on when stdin is not a
 * terminal: a second copy would make an interactive program quit instead of interrupting its work.
 */
export function attached(
  cmd: string,
  args: readonly string[],
  o: { cwd?: string; env?: NodeJS.ProcessEnv; input?: string } = {},
): Promise<number> {
  return new Promise((resolve, reject) => {
    // Handlers first, so a signal arriving while the child starts is caught (JS handlers run on a
    // later tick, when `child` is set) instead of ending resume and orphaning the child.
    let child: ChildProcess | null = null;
    const handlers = new Map<string, () => void>();
    for (const sig of FORWARD) {
      const h = () => {
        if ((sig === 'SIGINT' || sig === 'SIGQUIT') && process.stdin.isTTY) return;
        try {
          child?.kill(sig);
        } catch {
          /* already gone */
        }
      };
      handlers.set(sig, h);
      process.on(sig, h);
    }
    const done = () => {
      for (const [sig, h] of handlers) process.removeListener(sig, h);
    };
    child = spawn(cmd, args, {
      cwd: o.cwd,
      stdio: [o.input == null ? 'inherit' : 'pipe', 'inherit', 'inherit'],
      env: o.env ?? process.env,
    });
    if (o.input != null) {
      child.stdin?.on('error', () => {
        /* it quit before reading everything (a pager closed early) */
      });
      child.stdin?.end(o.input);
    }
    child.on('error', (err) => {
      done();
      reject(err);
    });
    child.on('exit', (code, signal) => {
      done();
      resolve(code ?? 128 + (signal ? (nodeOs().constants.signals[signal] ?? 0) : 0));
    });
  });
}
