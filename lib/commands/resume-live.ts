// `resume ID` for a session that is running (lib/launch/reach.ts says where and how): go to its tmux
// pane, or, in each other mode, say or hand over how to: --dry-run describes it, --print and emit
// print the tmux line, --copy copies it, the shell integration (RESUME_EMIT_FILE) gets it to run.

import { ExitError } from '../errors.js';
import { writeEmitFile } from '../launch/emit.js';
import type { LiveError } from '../launch/plan.js';
import { paneShown, type Reach, reach, reachJson, reachLine, reachNote, reachText } from '../launch/reach.js';
import { attached } from '../os/run.js';
import { tmux } from '../panes/tmux.js';
import type { Session } from '../types.js';
import type { ShellName } from '../util/quote.js';
import { note, out } from './common.js';

export interface LiveMode {
  dryRun?: boolean;
  json?: boolean;
  print?: boolean;
  copy?: boolean;
  /** `resume emit`: the line on stdout */
  emit?: boolean;
}

/** Take the caller to the running session `s` (or say how); an ExitError(2) when it cannot be reached. */
export async function goLive(s: Session, live: LiveError, m: LiveMode, shell: ShellName): Promise<void> {
  const emitFile = m.dryRun || m.print || m.copy || m.emit ? undefined : process.env.RESUME_EMIT_FILE;
  // Lines handed to a shell run on a terminal; a direct run attaches only when it has one.
  const handed = !!(m.print || m.copy || m.emit || emitFile);
  const r = await reach(live.session, live.hit, { terminal: handed || (!!process.stdin.isTTY && !!process.stdout.isTTY) });
  if (m.dryRun) {
    out(m.json ? `${JSON.stringify(reachJson(r, s.harness, s.id), null, 2)}\n` : reachText(r));
    return;
  }
  if (m.print || m.emit) {
    out(`${reachLine(r, shell)}\n`);
    return handedNote(r);
  }
  if (m.copy) {
    const { copyText } = await import('../launch/clipboard.js');
    const where = copyText(reachLine(r, shell));
    note(`resume: copied the line that goes to ${live.session}'s tmux pane ${paneShown(r.pane)} to ${where}`);
    return;
  }
  if (emitFile) {
    writeEmitFile(emitFile, reachLine(r, shell));
    return handedNote(r);
  }
  await go(r);
}

/** A line whose tmux commands cannot bring the caller over (another server) says how to attach. */
function handedNote(r: Reach): void {
  if (r.how === 'elsewhere') note(`resume: ${reachNote(r)}`);
}

/** Run it: the tmux commands on the pane's server, then attach this terminal when that is the way. */
async function go(r: Reach): Promise<void> {
  const attach = r.argv.indexOf('attach-session');
  const cmds = r.argv.slice(r.argv.indexOf('select-window'), attach < 0 ? undefined : attach - 1);
  const c = await tmux(r.pane.socket, cmds);
  if (!c.ok) {
    throw new ExitError(
      2,
      `${r.name} is running in tmux pane ${paneShown(r.pane)} (pid ${r.where.pid}), but tmux could not go there: ${c.error}; use --fork to open a copy of it`,
    );
  }
  if (attach < 0) {
    note(`resume: ${reachNote(r)}`);
    return;
  }
  process.exitCode = await attached('tmux', ['-S', r.pane.socket, 'attach-session', '-t', r.pane.id]).catch(() => 2);
}
