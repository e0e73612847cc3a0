// What every command shares: the environment (real or demo), the index, errors with exit codes.
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Ctx, Harness, Session } from './types.js';
import { oneLine } from './util/text.js';
import { makeCtx, cacheDir } from './util/paths.js';
import { updateIndex, type IndexResult } from './index/index.js';
import { progressBar } from './util/progress.js';
import { readNames, storeDir } from './harness/claude/care/store.js';

/** An error that ends the command with one line on stderr and this exit code (DESIGN.md). */
export class ExitError extends Error {
  constructor(
    public code: number,
    message: string,
  ) {
    super(message);
  }
}

export const usage = (msg: string) => new ExitError(2, msg);

export interface App {
  ctx: Ctx;
  demo: boolean;
  /** the directory holding the bundle (dist/) */
  distDir: string;
  /** the package directory (bin/, shell/, demo/) */
  pkgDir: string;
  /** absolute path of the resume executable, for fzf callbacks */
  self: string;
  index(opts?: { rebuild?: boolean; harnesses?: Harness[]; withEntries?: boolean; quiet?: boolean; onSessions?: (s: Session[]) => void }): Promise<IndexResult>;
  sessions(): Promise<Session[]>;
}

const HARNESS_VARS = [
  'CLAUDE_CONFIG_DIR', 'CODEX_HOME', 'CODEX_SQLITE_HOME', 'PI_CODING_AGENT_DIR', 'PI_CODING_AGENT_SESSION_DIR',
  'CURSOR_CONFIG_DIR', 'CURSOR_DATA_DIR', 'XDG_DATA_HOME', 'XDG_CONFIG_HOME', 'XDG_STATE_HOME', 'OPENCODE_DB',
  'GEMINI_CLI_HOME',
];

/** Claude sessions whose transcript has no title take the /rename name `resume snapshot` kept (one small file). */
function withSnapshotNames(ctx: Ctx, sessions: Session[]): Session[] {
  // The Claude adapter falls back to the first prompt when the transcript names no title.
  const untitled = (s: Session) => s.harness === 'claude' && (!s.title || s.title === s.firstPrompt);
  if (!sessions.some(untitled)) return sessions;
  const names = readNames(storeDir(ctx));
  let any = false;
  for (const k in names) {
    any = true;
    break;
  }
  if (!any) return sessions;
  return sessions.map((s) => (names[s.id] && untitled(s) ? { ...s, title: oneLine(names[s.id]!) } : s));
}

export function makeApp(opts: { demo?: boolean; env?: NodeJS.ProcessEnv; distDir?: string } = {}): App {
  const distDir = opts.distDir ?? path.dirname(fileURLToPath(import.meta.url));
  const pkgDir = path.dirname(distDir);
  const baseEnv = opts.env ?? process.env;
  const demo = !!opts.demo || baseEnv.RESUME_DEMO === '1';
  let env = baseEnv;
  if (demo) {
    // Every root points into the bundled demo HOME; the real index is left alone.
    env = { ...baseEnv };
    for (const v of HARNESS_VARS) delete env[v];
    for (const k of Object.keys(env)) if (/^RESUME_[A-Z]+_DIRS$/.test(k)) delete env[k];
    const realCache = cacheDir(makeCtx(baseEnv));
    env.HOME = path.join(pkgDir, 'demo', 'home');
    env.RESUME_CACHE_DIR = path.join(realCache, 'demo');
  }
  const ctx = makeCtx(env);
  let cached: Promise<IndexResult> | null = null;
  const app: App = {
    ctx,
    demo,
    distDir,
    pkgDir,
    self: path.join(pkgDir, 'bin', 'resume'),
    index(o = {}) {
      const bar = o.quiet ? null : progressBar('indexing');
      const p = updateIndex(ctx, {
        rebuild: o.rebuild,
        harnesses: o.harnesses,
        withEntries: o.withEntries,
        workerFile: path.join(distDir, 'worker.js'),
        progress: bar?.update,
        onSessions: o.onSessions,
      }).finally(() => bar?.end());
      if (!o.rebuild && !o.harnesses && !o.withEntries) cached = p;
      return p;
    },
    async sessions() {
      if (!cached) cached = app.index();
      return withSnapshotNames(ctx, (await cached).sessions);
    },
  };
  return app;
}
