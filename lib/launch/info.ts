// What `ls --json` says about launching: the argv resume would run, and whether a session is live.
import type { App } from '../app.js';
import type { Session } from '../types.js';
import { defaultLaunch, type LaunchFn } from '../output.js';

export async function launchInfo(_app: App): Promise<LaunchFn> {
  return defaultLaunch;
}

export async function liveInfo(_app: App, _sessions: Session[]): Promise<Map<string, { pid: number }>> {
  return new Map();
}
