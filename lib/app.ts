// What every command shares: the environment (real or demo) and the index.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { readNames, storeDir } from './harness/claude/care/store.js';
import { rootVars } from './harness/registry.js';
import type { IndexFiles, IndexOptions } from './index/index.js';
import { type IndexResult, type ListedSession, lastRowBin, listSessions, storedRows, toListed, updateIndex } from './index/index.js';
import { dirFilterable, type RowBin, untitledClaude } from './index/rowbin.js';
import { CANDIDATES_OUT, printRowsOut, type RowsOutKey, RowsTape, rowsOutKey, rowsOutName } from './index/rowsout.js';
import type { Ctx, Harness, Session } from './types.js';
import { makeDir } from './util/fsx.js';
import { cacheDir, configFile, makeCtx } from './util/paths.js';
import { progressBar } from './util/progress.js';
import { oneLine } from './util/text.js';

export { ExitError, usage } from './errors.js';

export interface App {
  ctx: Ctx;
  demo: boolean;
  /** the directory holding the bundle (dist/) */
  distDir: string;
  /** the package directory (bin/, shell/, demo/) */
  pkgDir: string;
  /** absolute path of the resume executable, for fzf callbacks */
  self: string;
  index(opts?: {
    rebuild?: boolean;
    harnesses?: Harness[];
    withEntries?: boolean;
    quiet?: boolean;
    onSessions?: (s: Session[]) => void;
    /** false: the result is not kept for the app's later calls (a caller that lets the sessions go) */
    keep?: boolean;
  }): Promise<IndexResult>;
  sessions(): Promise<Session[]>;
  /** every session's short id (its id's shortest unique prefix among all): the index's, else worked out over `sessions()` */
  shorts(): Promise<Map<string, string>>;
  /** sessions as this app shows them (the demo's directories and fixed times; else as they are) */
  view<T extends Pick<Session, 'key' | 'cwd' | 'started' | 'updated'>>(sessions: T[]): T[];
  /** environment for the launched harness (the demo puts its stand-in commands first on PATH) */
  launchEnv(): Record<string, string>;
  /** What a listing row needs of every session (from the index database). */
  listing(o?: { onSessions?: (batch: Session[]) => void; quiet?: boolean }): Promise<ListedSession[]>;
  /**
   * As `listing`, but a no-change run hands back the rendered rows (rows.bin) instead, with the
   * snapshot names to apply as they are printed (`resume rows`). Never for the demo. With `dir`
   * (a directory filter the caller applies), only rendered rows that can apply it (dirFilterable);
   * else the listing rows of the build just checked. With `rowsOut` (`resume rows` with no harness or
   * directory filter), a no-change run prints what rows.out holds when it is still good, and hands
   * back `printed`; else rows.bin with a tape to print it with and `keep` to write rows.out after
   * (lib/index/rowsout.ts). A run that built hands back rows.bin without a tape: it does not keep
   * rows.out (measured at 22,000 sessions: keeping it made an append's run ~10 ms slower, and only
   * the next run, when nothing changed between, ~24 ms quicker).
   */
  listingRows(o?: {
    onSessions?: (batch: Session[]) => void;
    quiet?: boolean;
    dir?: string | null;
    rowsOut?: RowsOutAsk;
  }): Promise<
    | { bin: RowBin; names: () => Record<string, string>; tape?: RowsTape; keep?: () => void }
    | { sessions: ListedSession[]; printed?: boolean }
  >;
  /**
   * Bring the index up to date for a caller that then reads the database itself (search, a lookup
   * by id): as listingRows, but nothing is handed back, so a run that finds nothing changed stops at
   * the stat check (opening rows.bin to hand it back was ~7 ms of a search at 22,000 sessions).
   */
  upToDate(o?: { quiet?: boolean }): Promise<void>;
  /**
   * The rendered rows of the last build, as they were: nothing is statted or checked against the
   * sources (the picker shows them at once while listingRows checks). Null when there are none,
   * and for the demo.
   */
  lastRows(): { bin: RowBin; names: () => Record<string, string> } | null;
  /** Sessions with their snapshot names (a Claude session without a title takes the name it was given). */
  named<T extends Pick<Session, 'harness' | 'id' | 'title' | 'firstPrompt'>>(sessions: T[]): T[];
}

/** What `resume rows` asks of rows.out: which variant, the time the ages are of, and where to print. */
export interface RowsOutAsk {
  all: boolean;
  now: number;
  write: (b: Buffer) => void;
  /** TAB's candidates for an empty session word (complete.out), not rows */
  candidates?: boolean;
}

/** Where the demo's sessions were recorded; --demo rewrites it to directories it creates. */
export const DEMO_ROOT = '/home/demo';

/**
 * The demo's sessions made resumable: their directories (`/home/demo/...`) become real ones in the
 * demo's HOME (`<cache>/demo/home/...`, created here, so they show as `~/src/blog` as on the machine
 * they were recorded on), and Cursor chats, whose last activity would otherwise be the checkout's
 * file times, get the fixed times of demo/times.json.
 */
type Viewed = Pick<Session, 'key' | 'cwd' | 'started' | 'updated'>;

export function demoView<T extends Viewed>(sessions: T[], pkgDir: string, cache: string): T[] {
  let times: Record<string, unknown> = {};
  try {
    times = JSON.parse(fs.readFileSync(path.join(pkgDir, 'demo', 'times.json'), 'utf8')) as Record<string, unknown>;
  } catch {
    times = {};
  }
  const base = path.join(cache, 'home');
  const made = new Set<string>();
  const out = sessions.map((s) => {
    let x = s;
    if (s.cwd && (s.cwd === DEMO_ROOT || s.cwd.startsWith(`${DEMO_ROOT}/`))) {
      const cwd = path.join(base, s.cwd.slice(DEMO_ROOT.length));
      if (!made.has(cwd)) {
        made.add(cwd);
        try {
          makeDir(cwd);
        } catch {
          /* a directory we cannot create: resuming says it is missing */
        }
      }
      x = { ...x, cwd };
    }
    const t = times[s.key];
    if (Array.isArray(t) && t.length === 2) {
      const [a, b] = t.map((v) => (typeof v === 'string' ? Date.parse(v) : NaN));
      if (Number.isFinite(a) && Number.isFinite(b)) x = { ...x, started: a, updated: b };
    }
    return x;
  });
  const when = (s: T) => s.updated ?? s.started ?? 0;
  return out.sort((a, b) => when(b) - when(a));
}

/**
 * What `--demo` clears: every variable an adapter's roots follow (its `envVars`), and the ones that
 * place resume's own files (the config file and the snapshot store under XDG_CONFIG_HOME, the
 * restart state under XDG_STATE_HOME).
 */
const HARNESS_VARS = [...new Set([...rootVars(), 'XDG_CONFIG_HOME', 'XDG_STATE_HOME'])];

/** Claude sessions whose transcript has no title take the /rename name `resume snapshot` kept (one small file). */
function withSnapshotNames<T extends Pick<Session, 'harness' | 'id' | 'title' | 'firstPrompt'>>(ctx: Ctx, sessions: T[]): T[] {
  // (the Claude adapter falls back to the first prompt when the transcript names no title)
  if (!sessions.some(untitledClaude)) return sessions;
  const names = readNames(storeDir(ctx));
  let any = false;
  for (const _ in names) {
    any = true;
    break;
  }
  if (!any) return sessions;
  return sessions.map((s) => (names[s.id] && untitledClaude(s) ? { ...s, title: oneLine(names[s.id]) } : s));
}

/** Every root pointed into the bundled demo HOME; the real index is left alone. */
function demoEnv(baseEnv: NodeJS.ProcessEnv, pkgDir: string): NodeJS.ProcessEnv {
  const env = { ...baseEnv };
  for (const v of HARNESS_VARS) delete env[v];
  const cache = path.join(cacheDir(makeCtx(baseEnv)), 'demo');
  env.HOME = demoHome(path.join(pkgDir, 'demo', 'home'), path.join(cache, 'home'));
  env.RESUME_CACHE_DIR = cache;
  return env;
}

/**
 * The demo's HOME: `<cache>/demo/home`, whose harness stores (`.claude`, `.codex`, …) are links to
 * the bundled ones, read as they are, and where demoView makes the sessions' directories. So the
 * directories show as `~/src/blog` and nothing is ever made inside the package. The bundled HOME
 * itself when that cannot be made (a cache that cannot be written): the directories then show whole.
 */
function demoHome(bundled: string, home: string): string {
  try {
    makeDir(home);
    for (const name of fs.readdirSync(bundled)) {
      const link = path.join(home, name);
      const target = path.join(bundled, name);
      let was: string | null = null;
      try {
        was = fs.readlinkSync(link);
      } catch {
        /* none yet */
      }
      if (was === target) continue;
      // (a link to where the package was before it moved; anything else is not ours: left, and the bundled HOME used)
      if (was !== null) fs.rmSync(link, { force: true });
      try {
        fs.symlinkSync(target, link);
      } catch (err) {
        // another demo run starting at the same moment made it
        if (fs.readlinkSync(link) !== target) throw err;
      }
    }
    return home;
  } catch {
    return bundled;
  }
}

/** Rendered rows with the snapshot names to apply as they are printed (read only if needed). */
function withNames(ctx: Ctx, bin: RowBin): { bin: RowBin; names: () => Record<string, string> } {
  return { bin, names: () => readNames(storeDir(ctx)) };
}

type ListingRowsAsk = NonNullable<Parameters<App['listingRows']>[0]>;
type ListingRows = Awaited<ReturnType<App['listingRows']>>;

/** App.listingRows past the cached and demo cases: the listing checked (or built), as rows when it can be. */
async function checkedRows(app: App, { onSessions, quiet, dir, rowsOut }: ListingRowsAsk): Promise<ListingRows> {
  const { ctx, distDir } = app;
  const stream = onSessions && ((b: Session[]) => onSessions(withSnapshotNames(ctx, b)));
  // rows.out of the listing found unchanged: printed when still good, else written after rows.bin is
  let out: { file: string; key: RowsOutKey } | null = null;
  const printed =
    rowsOut &&
    ((files: IndexFiles, id: string) => {
      out = { file: path.join(files.dir, rowsOut.candidates ? CANDIDATES_OUT : rowsOutName(rowsOut.all)), key: rowsOutKey(ctx, id) };
      return printRowsOut(out.file, out.key, rowsOut.now, rowsOut.write);
    });
  return indexing(distDir, !!(onSessions || quiet), async (run) => {
    const r = await listSessions(ctx, { ...run, rowBin: true, ...(stream ? { onSessions: stream } : {}), ...(printed ? { printed } : {}) });
    if (r.printed) return { sessions: [], printed: true };
    if (!r.rowBin) return { sessions: withSnapshotNames(ctx, r.sessions) };
    const kept = out as { file: string; key: RowsOutKey } | null;
    if (rowsOut && kept && kept.key.id === r.rowBin.id) {
      const tape = new RowsTape(rowsOut.now, null, !!rowsOut.candidates);
      return { ...withNames(ctx, r.rowBin), tape, keep: () => tape.save(kept.file, kept.key) };
    }
    if (!dir || dirFilterable(r.rowBin)) return withNames(ctx, r.rowBin);
    const rows = storedRows(ctx);
    return { sessions: rows ? withSnapshotNames(ctx, rows) : await app.listing({ quiet: true }) };
  });
}

/**
 * An index run with the progress bar a terminal shows while it builds (none when `quiet`), ended
 * with the run; `run` gets what every index run of the app takes (the worker file, the bar).
 */
async function indexing<T>(
  distDir: string,
  quiet: boolean,
  run: (o: Pick<IndexOptions, 'workerFile' | 'progress'>) => Promise<T>,
): Promise<T> {
  const bar = quiet ? null : progressBar('indexing');
  try {
    return await run({ workerFile: path.join(distDir, 'worker.cjs'), progress: bar?.update });
  } finally {
    bar?.end();
  }
}

export function makeApp(opts: { demo?: boolean; env?: NodeJS.ProcessEnv; distDir?: string } = {}): App {
  const distDir = opts.distDir ?? path.dirname(fileURLToPath(import.meta.url));
  const pkgDir = path.dirname(distDir);
  const baseEnv = opts.env ?? process.env;
  const demo = !!opts.demo || baseEnv.RESUME_DEMO === '1';
  const env = demo ? demoEnv(baseEnv, pkgDir) : baseEnv;
  // the demo keeps the user's picker settings (keys, fzf_opts) from their own config file
  const ctx = demo ? { ...makeCtx(env), userConfig: configFile(makeCtx(baseEnv)) } : makeCtx(env);
  let cached: Promise<IndexResult> | null = null;
  const app: App = {
    ctx,
    demo,
    distDir,
    pkgDir,
    self: path.join(pkgDir, 'bin', 'resume'),
    view: (list) => (demo ? demoView(list, pkgDir, cacheDir(ctx)) : list),
    launchEnv: (): Record<string, string> => (demo ? { PATH: `${path.join(pkgDir, 'demo', 'bin')}:${baseEnv.PATH ?? ''}` } : {}),
    index(o = {}) {
      const given = o.onSessions;
      const onSessions = given && demo ? (b: Session[]) => given(app.view(b)) : given;
      const p = indexing(distDir, !!o.quiet, (run) =>
        updateIndex(ctx, { ...run, rebuild: o.rebuild, harnesses: o.harnesses, withEntries: o.withEntries, onSessions }),
      ).then((r) => (demo ? { ...r, sessions: app.view(r.sessions) } : r));
      if (!o.rebuild && !o.harnesses && !o.withEntries && o.keep !== false) cached = p;
      return p;
    },
    async sessions() {
      if (!cached) cached = app.index();
      return withSnapshotNames(ctx, (await cached).sessions);
    },
    async shorts() {
      if (!cached) cached = app.index();
      const r = await cached;
      // (the index keeps them with the sessions; a run that built it may not hand them back)
      if (!r.shorts) r.shorts = (await import('./select/filter.js')).shortIds(r.sessions);
      return r.shorts;
    },
    async listing({ onSessions, quiet } = {}) {
      // sessions from index() are already in the app's view (the demo's directories and times)
      if (cached) {
        const c = await cached;
        return withSnapshotNames(ctx, toListed(c.sessions, c.shorts));
      }
      // a full build streams the finished list in order (lib/index/stream.ts), named as the result is;
      // not the demo, whose fixed times are not its files' times
      const stream = onSessions && !demo && ((b: Session[]) => onSessions(withSnapshotNames(ctx, app.view(b))));
      const r = await indexing(distDir, !!(onSessions || quiet), (run) =>
        listSessions(ctx, { ...run, ...(stream ? { onSessions: stream } : {}) }),
      );
      return withSnapshotNames(ctx, app.view(r.sessions));
    },
    lastRows() {
      const bin = demo ? null : lastRowBin(ctx);
      return bin ? withNames(ctx, bin) : null;
    },
    named: (sessions) => withSnapshotNames(ctx, sessions),
    async listingRows(o = {}) {
      if (cached || demo) return { sessions: await app.listing({ onSessions: o.onSessions, quiet: o.quiet }) };
      return checkedRows(app, o);
    },
    async upToDate({ quiet } = {}) {
      if (cached || demo) {
        await app.listing({ quiet });
        return;
      }
      // (`printed`: what a no-change run would print is not wanted, so it is done before rows.bin is opened)
      await indexing(distDir, !!quiet, (run) => listSessions(ctx, { ...run, rowBin: true, printed: () => true }));
    },
  };
  return app;
}
