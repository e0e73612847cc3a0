// A failed unattended restart must reach a person: nobody reads the output of a run the watcher
// started. It raises an alert: a desktop notification (notify-send, when on PATH) once, and
// `alert.json` in the state directory, which `resume hooks status` and `resume doctor` show until
// `resume hooks ack` removes it. A later failure while one is unacknowledged notifies nobody again.

import fs from 'node:fs';
import path from 'node:path';
import { runDetached } from '../os/run.js';
import type { Ctx } from '../types.js';
import { makeDir, writeAtomic } from '../util/fsx.js';
import { stateDir } from '../util/paths.js';
import { oneLine } from '../util/text.js';
import { onPath } from '../util/which.js';

export interface Alert {
  time: string;
  old_version: string;
  new_version: string;
  /** what the restart said, one line per session, scrubbed */
  detail: string;
}

export const alertFile = (ctx: Ctx) => path.join(stateDir(ctx), 'alert.json');

export function readAlert(ctx: Ctx): Alert | null {
  try {
    const o = JSON.parse(fs.readFileSync(alertFile(ctx), 'utf8')) as Alert;
    return o && typeof o.old_version === 'string' && typeof o.new_version === 'string' ? o : null;
  } catch {
    return null;
  }
}

/** The one line status and doctor show. */
export function alertLine(a: Alert): string {
  return `the unattended restart for claude ${a.old_version} -> ${a.new_version} failed (${a.time}): ${a.detail}; resume hooks ack once seen`;
}

/** Record the alert and notify, unless one is already waiting to be acknowledged. */
export function raiseAlert(ctx: Ctx, a: Omit<Alert, 'time'>): void {
  if (readAlert(ctx)) return;
  const rec: Alert = { time: new Date().toISOString(), ...a, detail: oneLine(a.detail) };
  makeDir(stateDir(ctx));
  writeAtomic(alertFile(ctx), `${JSON.stringify(rec, null, 2)}\n`);
  const bin = onPath('notify-send', ctx.env.PATH ?? '');
  if (!bin) return;
  // Never blocks the run, never fails it: no session bus, no notification daemon is a quiet no.
  runDetached(
    bin,
    [
      '--app-name=resume',
      '--urgency=critical',
      'resume: claude restart failed',
      `claude ${a.old_version} -> ${a.new_version}: ${rec.detail}`,
    ],
    { env: ctx.env },
  );
}

/** Remove the alert; the one removed, or null when there was none. */
export function ackAlert(ctx: Ctx): Alert | null {
  const a = readAlert(ctx);
  fs.rmSync(alertFile(ctx), { force: true });
  return a;
}
