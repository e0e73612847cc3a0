// `resume restart --outdated [--session ID]... [--dry-run] [--timeout 30m]`: stop each outdated live
// Claude session once it is provably safe and resume it in the same tmux pane.
// Exit 0 when every session was resumed or skipped; 1 for a failure, a timeout, a vanished pane or a
// refusal; 2 for bad usage, and for a --dry-run whose plan holds a refusal (one the user can fix).
import type { App } from '../app.js';
import { ExitError, usage } from '../errors.js';
import type { restartTargets as RestartTargets, Target } from '../harness/claude/care/restart.js';
import { oneLine } from '../util/text.js';
import { parseDuration } from '../util/time.js';
import { out } from './common.js';
import type { Call } from './table.js';

interface Opts {
  outdated?: boolean;
  session: string[];
  dryRun?: boolean;
  timeout: string;
}

export async function run(app: App, call: Call): Promise<void> {
  const o = call.opts as unknown as Opts;
  if (!o.outdated) throw usage('restart needs --outdated (the only selection it has)');
  const { noProcTable } = await import('../panes/proc.js');
  const cannot = noProcTable(process.env.PATH);
  if (cannot) throw usage(cannot);
  const { plan, relaunchLine, restartTargets } = await import('../harness/claude/care/restart.js');
  const self = [process.execPath, app.self];
  // a bare number is seconds
  const timeoutMs = parseDuration(o.timeout, 's');
  if (!timeoutMs) throw usage(`--timeout takes a duration like 30m, 90s or 1h, not '${oneLine(o.timeout)}'`);
  const p = await plan(app.ctx, o.session);
  if ('error' in p) throw new ExitError(2, `cannot tell the installed claude version: ${p.error}`);
  for (const n of p.notes) process.stderr.write(`resume: note: ${oneLine(n)}\n`);
  for (const q of p.unknown) process.stderr.write(`resume: no outdated live session matches '${oneLine(q)}'\n`);
  if (o.dryRun) {
    out(planText(p.targets, { timeout: o.timeout, self, relaunchLine }));
    if (!p.targets.length) process.stderr.write('resume: no outdated live Claude sessions\n');
    // a refusal the user can fix (a pane, a draft…): 2, so a script checking the plan sees it
    process.exitCode = p.targets.some((t) => t.refused) ? 2 : p.unknown.length ? 1 : 0;
    return;
  }
  await restartAll(app.ctx, p, { timeoutMs, self, restartTargets });
}

/** The --dry-run plan: a line a session, with its pane and what would be waited for and typed. */
function planText(
  targets: Target[],
  { timeout, self, relaunchLine }: { timeout: string; self: string[]; relaunchLine: (self: string[], id: string) => string | null },
): string {
  let text = '';
  for (const t of targets) {
    const where = t.pane ? `pane ${t.pane} (${t.via}) on ${t.socket}` : 'no pane';
    const what = t.refused
      ? `refused: ${t.refused}`
      : `wait up to ${timeout} for: same process, status idle, foreground in the pane, empty input line; then snapshot, SIGTERM, wait for the pane's shell, type \`${relaunchLine(self, t.o.session) ?? '(cannot be typed)'}\``;
    text += `${t.o.session}\tpid ${t.o.pid}\t${t.o.version ?? '?'} < ${t.o.installed}\t${oneLine(where)}\t${oneLine(what)}\n`;
  }
  return text;
}

/** Restart the plan's sessions, SIGINT, SIGTERM and SIGHUP ending the waiting; the exit code as restart's. */
async function restartAll(
  ctx: App['ctx'],
  p: { targets: Target[]; unknown: string[] },
  { timeoutMs, self, restartTargets }: { timeoutMs: number; self: string[]; restartTargets: typeof RestartTargets },
): Promise<void> {
  const stop = { stop: false };
  const onSig = (sig: NodeJS.Signals) => {
    if (!stop.stop) process.stderr.write(`resume: ${sig}: no more waiting; a relaunch under way is finished first\n`);
    stop.stop = true;
  };
  for (const s of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.on(s, onSig);
  // The handlers are in place before the lock exists: a signal can never leave it behind.
  let r: Awaited<ReturnType<typeof RestartTargets>>;
  try {
    r = await restartTargets(ctx, p.targets, {
      timeoutMs,
      stop,
      relaunch: { self, note: (s) => process.stderr.write(`resume: ${oneLine(s)}\n`) },
      onLine: (l) => out(`${l.split('\t').map(oneLine).join('\t')}\n`),
    });
  } finally {
    for (const s of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.off(s, onSig);
  }
  if ('locked' in r) throw new ExitError(1, `another restart is running (pid ${r.locked}; lock ${r.file})`);
  const bad = p.unknown.length > 0 || !r.complete;
  process.exitCode = bad ? 1 : 0;
}
