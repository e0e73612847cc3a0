import type { App } from '../app.js';
import { ExitError } from '../errors.js';
import { indexFiles } from '../index/files.js';
import type { Harness } from '../types.js';
import { makeDir } from '../util/fsx.js';
import { progressBar } from '../util/progress.js';
import { note } from './common.js';
import type { Call } from './table.js';

export async function run(app: App, call: Call): Promise<void> {
  const o = call.opts as { rebuild?: boolean };
  // (other commands list from an index in memory when the cache directory cannot be made; this
  // one's whole job is to keep an index, so it says so)
  const dir = indexFiles(app.ctx).dir;
  try {
    makeDir(dir);
  } catch (err) {
    throw new ExitError(
      2,
      `cannot keep an index in ${dir}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message} (RESUME_CACHE_DIR)`,
    );
  }
  // the listing's sessions are let go before the search index is made: what it needs of them is
  // their files (a full build at 22,000 sessions peaked 20 MiB higher holding both, and 20 more
  // when V8 kept the listing's heap through the fill: a full collection lets V8 give it back)
  const files = await listing(app, !!o.rebuild);
  (await import('../util/gc.js')).fullCollector()?.();
  // then what searches use to pass over the files their words are not in (lib/search/sigfill.ts)
  const t1 = Date.now();
  // (by files: how many bytes each will take to hash is not known before it is opened)
  const bar = progressBar('signatures');
  const { fillAll } = await import('../search/sigfill.js');
  const t = await fillAll(app, files, (done, total) => bar.update(0, 0, done, total)).finally(() => bar.end());
  if (!t) note('signatures: another process is making them');
  else {
    const smb = (t.bytes / 1048576).toFixed(1);
    note(
      `signatures of ${t.files} files: ${t.made} made, ${t.extended} extended, ${t.gone} dropped; ${smb} MiB read in ${Date.now() - t1} ms`,
    );
    // (the picker's first search from them then loads only what may hold its words: groupmap.ts)
    const { prepareSearch } = await import('../search/run.js');
    await prepareSearch(app);
  }
}

/** The listing brought up to date, said on stderr; the files searches read, with their harness. */
async function listing(app: App, rebuild: boolean): Promise<Map<string, Harness>> {
  const t0 = Date.now();
  const r = await app.index({ rebuild, keep: false });
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
  const { searchedFiles } = await import('../search/sigfill.js');
  const { loadExtractors } = await import('../search/registry.js');
  await loadExtractors();
  return searchedFiles(r.sessions);
}
