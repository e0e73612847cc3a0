// `resume hooks run|install|status`: update hooks (`[[resume.on_update]]` in the config) fired when
// claude changes version, a watcher that runs them (systemd user units / a launchd agent), and a
// status report. See lib/hooks/.
import type { App } from '../app.js';
import { ExitError, usage } from '../errors.js';
import type { HooksReport } from '../hooks/status.js';
import { oneLine } from '../util/text.js';
import { out } from './common.js';
import type { Call } from './table.js';

const SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;

function settleMs(env: NodeJS.ProcessEnv): number | undefined {
  const v = env.RESUME_HOOKS_SETTLE_MS;
  if (v == null || v === '') return undefined;
  const n = Number(v);
  if (!Number.isInteger(n) || n < 0 || n > 60_000)
    throw new ExitError(2, `RESUME_HOOKS_SETTLE_MS must be whole milliseconds (0 to 60000), not '${oneLine(v)}'`);
  return n;
}

export async function run(app: App, call: Call): Promise<void> {
  const o = call.opts as { trigger: string };
  if (o.trigger !== 'manual' && o.trigger !== 'watcher') throw usage(`--trigger takes manual or watcher, not '${oneLine(o.trigger)}'`);
  const trigger = o.trigger;
  const { loadConfig } = await import('../launch/config.js');
  const cfg = loadConfig(app.ctx);
  const pause = settleMs(app.ctx.env);
  const { hooksRun, files, interrupt } = await import('../hooks/run.js');
  const r = { interrupted: null as NodeJS.Signals | null, stop: { stop: false }, child: null };
  const onSig = (sig: NodeJS.Signals) => interrupt(r, sig);
  for (const s of SIGNALS) process.on(s, onSig);
  // The handlers are in place before the lock exists: a signal can never leave it behind.
  const { acquireWait } = await import('../os/lock.js');
  const f = files(app.ctx);
  // A second run (the path unit and the timer at once, or by hand) waits its turn: it then sees
  // what the first recorded and fires only what is still new.
  const lock = await acquireWait(f.lock, {
    onWait: (pid) => process.stderr.write(`resume: waiting for the hooks run of pid ${pid} to finish (lock ${f.lock})\n`),
    stopped: () => r.interrupted != null,
  });
  try {
    if (!lock?.ok)
      throw new ExitError(1, `${r.interrupted ?? 'stopped'} while waiting for another hooks run; nothing run, nothing recorded`);
    const res = await hooksRun(
      app.ctx,
      cfg.onUpdate ?? [],
      r,
      {
        line: (s) => out(`${s.split('\t').map(oneLine).join('\t')}\n`),
        note: (s) => process.stderr.write(`resume: ${oneLine(s)}\n`),
      },
      { settleMs: pause, self: [process.execPath, app.self], trigger },
    );
    process.exitCode = res.code;
  } finally {
    if (lock?.ok) lock.release();
    for (const s of SIGNALS) process.off(s, onSig);
  }
}

export async function install(app: App, call: Call): Promise<void> {
  const o = call.opts as { dryRun?: boolean };
  const { loadConfig } = await import('../launch/config.js');
  loadConfig(app.ctx); // a bad config is reported now, not when the watcher fires
  const ins = await import('../hooks/install.js');
  const p = ins.paths(app.ctx, app.self);
  if ('error' in p) throw new ExitError(2, p.error);
  const units = ins.unitFiles(app.ctx, p);
  if (o.dryRun) {
    out(units.map((u) => `# ${u.file}\n${u.text}`).join('\n'));
    process.stderr.write(
      `resume: dry run: nothing written; ${process.platform === 'darwin' ? 'would load it with launchctl bootstrap' : 'would run systemctl --user daemon-reload and enable --now resume-hooks.path resume-hooks.timer'}\n`,
    );
    return;
  }
  const w = ins.writeUnits(units);
  for (const x of w) out(`${x.changed ? 'written' : 'unchanged'}\t${x.file}\n`);
  const a = ins.activate(
    app.ctx,
    w.some((x) => x.changed),
  );
  for (const c of a.ran) if (!c.ok) process.stderr.write(`resume: ${c.argv.join(' ')} failed: ${oneLine(c.out).slice(0, 300)}\n`);
  if (a.manual) process.stderr.write(`resume: not loaded from here; run: ${a.manual}\n`);
  else out(`loaded\t${a.ran.map((c) => c.argv.join(' ')).join('; ')}\n`);
  // A baseline now, so the first update after installing fires the hooks.
  const { files, readState, hooksRun } = await import('../hooks/run.js');
  const { tryLock } = await import('../os/lock.js');
  const f = files(app.ctx);
  // Under the run's lock; a run holding it records the baseline itself.
  const lock = readState(f.state).claude ? null : tryLock(f.lock);
  if (lock?.ok) {
    try {
      await hooksRun(
        app.ctx,
        [],
        { interrupted: null, stop: { stop: false }, child: null },
        {
          line: (s) => out(`${s}\n`),
          note: (s) => process.stderr.write(`resume: ${oneLine(s)}\n`),
        },
        { settleMs: settleMs(app.ctx.env), self: [process.execPath, app.self], trigger: 'install' },
      );
    } finally {
      lock.release();
    }
  }
}

export async function status(app: App, call: Call): Promise<void> {
  const o = call.opts as { json?: boolean };
  const { hooksReport } = await import('../hooks/status.js');
  const { alertLine } = await import('../hooks/alert.js');
  const report = hooksReport(app);
  const { runs_file: runsFile, ...json } = report;
  if (o.json) {
    out(`${JSON.stringify(json, null, 2)}\n`);
    return;
  }
  out(statusText(report, runsFile, report.alert ? alertLine(report.alert) : null));
}

export async function ack(app: App, _call: Call): Promise<void> {
  const { ackAlert, alertLine } = await import('../hooks/alert.js');
  const a = ackAlert(app.ctx);
  process.stderr.write(a ? `resume: acknowledged: ${oneLine(alertLine(a))}\n` : 'resume: nothing to acknowledge\n');
}

/** `resume hooks status` as text: the watcher, the hooks, the versions, pending work, the last runs. */
function statusText(report: HooksReport, runsFile: string, alert: string | null): string {
  const L: string[] = [];
  L.push(
    `watcher: ${report.installed ? 'installed' : 'not installed'}; loaded: ${report.loaded == null ? `unknown (${report.loaded_detail})` : report.loaded ? `yes (${report.loaded_detail})` : `no (${report.loaded_detail})`}`,
  );
  for (const x of report.files) L.push(`  ${x.state}\t${x.file}`);
  L.push(
    `hooks: ${report.hooks.length ? report.hooks.map((h) => `${h.hook} ${h.kind === 'restart' ? 'restart' : h.program} (${h.timeout_seconds} s)`).join(', ') : 'none configured'}`,
  );
  const c = report.claude;
  L.push(
    `claude: recorded ${c.recorded ? `${c.recorded} (${c.recorded_at})` : 'none'}; installed ${c.installed ?? `unknown (${c.installed_error})`}`,
  );
  L.push(`pending: ${report.pending.length ? report.pending.join('; ') : 'nothing'}`);
  if (alert != null) L.push(`alert: ${alert}`);
  L.push(`last runs (${runsFile}):`);
  for (const r of report.runs) L.push(runLine(r));
  if (!report.runs.length) L.push('  none');
  return `${L.map((l) => l.split('\t').map(oneLine).join('\t')).join('\n')}\n`;
}

/** One run of runs.jsonl, tab-separated. */
function runLine(r: HooksReport['runs'][number]): string {
  const res = r.event === 'hook' ? (r.stopped ?? `exit ${r.exit_code}`) : r.event;
  return `  ${r.time}\t${r.trigger ?? '-'}\t${r.harness} ${r.old_version ?? '-'} -> ${r.new_version ?? '-'}\t${r.hook != null ? `hook ${r.hook} ${r.program}` : r.event}\t${res}\t${r.duration_ms ?? '-'} ms\t${r.stderr_tail}`;
}
