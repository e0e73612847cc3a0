// `resume snapshot [--quiet]`: capture what a live Claude session's exit destroys (its name and its
// tasks) into the snapshot store. Always exits 0: it runs as a Stop hook, and a failed snapshot
// must never fail a turn.
import type { App } from '../app.js';
import type { SnapshotRun } from '../harness/claude/care/snapshot.js';
import { tildify } from '../util/paths.js';
import { oneLine } from '../util/text.js';
import { out } from './common.js';
import type { Call } from './table.js';

export async function run(app: App, call: Call): Promise<void> {
  const o = call.opts as { quiet?: boolean };
  try {
    const { snapshotAll } = await import('../harness/claude/care/snapshot.js');
    const r = snapshotAll(app.ctx);
    if (o.quiet) return;
    let text = '';
    for (const c of r.captured) {
      text += `${c.id}\t${c.tasks} task(s)${c.added > 0 ? ` (+${c.added})` : ''}\t${c.name ? oneLine(c.name) : ''}\n`;
    }
    out(text);
    tellRun(r, app.ctx.home);
  } catch (err) {
    if (!o.quiet) process.stderr.write(`resume: snapshot failed: ${oneLine(err instanceof Error ? err.message : String(err))}\n`);
  }
  process.exitCode = 0;
}

/** On stderr: how many were snapshotted and where, the failures, the records pruned. */
function tellRun(r: SnapshotRun, home: string): void {
  const where = oneLine(tildify(r.dir, home));
  process.stderr.write(`resume: ${r.captured.length} live Claude session(s) snapshotted in ${where}\n`);
  for (const f of r.failed) process.stderr.write(`resume: snapshot of ${oneLine(f.id)} failed: ${oneLine(f.error)}\n`);
  if (r.prune?.note) process.stderr.write(`resume: ${oneLine(r.prune.note)}\n`);
  else if (r.prune?.retired.length) {
    const p = r.prune;
    const why = p.aged.length
      ? ` (${p.retired.length - p.aged.length} whose transcript is gone, ${p.aged.length} older than 180 days)`
      : ' whose transcript is gone';
    process.stderr.write(`resume: pruned ${p.retired.length} record(s)${why}\n`);
  }
}
