// What `resume hooks status` reports, and the summary `resume doctor` prints: the watcher (installed,
// current, loaded), the configured hooks, the recorded and installed claude versions, pending work,
// the last runs.
import path from 'node:path';
import type { App } from '../app.js';
import { installedVersion } from '../harness/claude/care/version.js';
import { loadConfig } from '../launch/config.js';
import { type Alert, alertLine, readAlert } from './alert.js';
import { lastRuns, type RunRecord } from './audit.js';
import { installState } from './install.js';
import { files as hookFiles, readState } from './run.js';

export interface HooksReport {
  platform: string;
  installed: boolean;
  files: { file: string; state: 'current' | 'different' | 'missing' }[];
  loaded: boolean | null;
  loaded_detail: string;
  hooks: { hook: number; harness: string; kind: 'restart' | 'command'; program: string | null; timeout_seconds: number }[];
  claude: {
    recorded: string | null;
    recorded_at: string | null;
    installed: string | null;
    installed_error: string | null;
    pending_restart: unknown;
  };
  pending: string[];
  /** a failed unattended restart not yet acknowledged (resume hooks ack), or null */
  alert: Alert | null;
  state_dir: string;
  runs_file: string;
  runs: RunRecord[];
}

export function hooksReport(app: App, nRuns = 5): HooksReport {
  const cfg = loadConfig(app.ctx);
  const f = hookFiles(app.ctx);
  const st = readState(f.state);
  const ins = installState(app.ctx, app.self);
  const now = installedVersion(app.ctx);
  const rec = st.claude ?? null;
  const pending: string[] = [];
  if (!rec) pending.push('no baseline recorded: the next run records one and fires nothing');
  else if (!('error' in now) && now.version !== rec.version)
    pending.push(`claude ${rec.version} -> ${now.version}: the next run fires the hooks`);
  if (rec?.pending)
    pending.push(
      `restart for claude ${rec.pending.old} -> ${rec.pending.new} unfinished after ${rec.pending.attempts} of 3 attempts (hooks ${rec.pending.hooks.join(', ')})`,
    );
  return {
    platform: process.platform,
    installed: ins.files.every((x) => x.state !== 'missing'),
    files: ins.files,
    loaded: ins.loaded,
    loaded_detail: ins.loadedDetail,
    hooks: (cfg.onUpdate ?? []).map((h) => ({
      hook: h.n,
      harness: h.harness,
      kind: h.action ? ('restart' as const) : ('command' as const),
      program: h.action ? null : path.basename(h.command?.[0] ?? ''),
      timeout_seconds: h.timeoutSeconds,
    })),
    claude: {
      recorded: rec?.version ?? null,
      recorded_at: rec?.recorded ?? null,
      installed: 'error' in now ? null : now.version,
      installed_error: 'error' in now ? now.error : null,
      pending_restart: rec?.pending ?? null,
    },
    pending,
    alert: readAlert(app.ctx),
    state_dir: f.dir,
    runs_file: f.runs,
    runs: lastRuns(f.runs, nRuns),
  };
}

/** doctor's warnings about the hooks: configured but not watched, stale unit files, a failed last run. */
export function hooksWarnings(r: HooksReport): string[] {
  const w: string[] = [];
  if (r.alert) w.push(alertLine(r.alert));
  if (r.hooks.length && !r.installed)
    w.push(
      `${r.hooks.length} update hook(s) configured but no watcher installed: they run only when \`resume hooks run\` is run (resume hooks install)`,
    );
  if (r.files.some((x) => x.state === 'different'))
    w.push('the watcher files differ from what this resume would write (moved resume or claude?): resume hooks install');
  if (r.installed && r.loaded === false) w.push(`the watcher is installed but not loaded (${r.loaded_detail})`);
  if (r.installed && !r.hooks.length) w.push('a watcher is installed but no [[resume.on_update]] hook is configured');
  const last = r.runs[r.runs.length - 1];
  if (last && last.event === 'hook' && (last.stopped || (last.exit_code != null && last.exit_code !== 0))) {
    w.push(`the last hook run failed: hook ${last.hook} ${last.program ?? ''} ${last.stopped ?? `exit ${last.exit_code}`} (${last.time})`);
  }
  return w;
}
