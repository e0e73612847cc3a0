import type { App } from '../app.js';
import { note } from './common.js';
import type { Call } from './table.js';

export async function run(app: App, call: Call): Promise<void> {
  const o = call.opts as { rebuild?: boolean };
  const t0 = Date.now();
  const r = await app.index({ rebuild: !!o.rebuild });
  const c = r.counts;
  const hidden = r.sessions.filter((s) => s.hidden).length;
  const mb = (c.bytes / 1048576).toFixed(1);
  note(
    `${r.sessions.length} sessions (${hidden} hidden) in ${c.sources} files: ${c.parsed} parsed, ${c.appended} appended, ` +
      `${c.reused} unchanged, ${c.dropped} dropped; ${mb} MiB read in ${Date.now() - t0} ms`,
  );
  const sk = r.skipped;
  if (sk.notRegular || sk.unreadable) note(`skipped: ${sk.notRegular} not regular files, ${sk.unreadable} unreadable`);
  for (const [h, msg] of Object.entries(sk.failed)) note(`${h}: ${msg}`);
}
