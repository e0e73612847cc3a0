// Bundle the CLI into dist/ so start-up loads one file (start-up is most of a no-change listing).
// Entry points: the CLI and the index worker (worker_threads needs a file of its own).
import { build } from 'esbuild';
import { fileURLToPath } from 'node:url';
import fs from 'node:fs';
import path from 'node:path';

const root = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
// Chunk names carry content hashes: build into a fresh directory and swap it in, so stale chunks
// never pile up and a concurrent run never sees a half-written dist/.
const dist = path.join(root, 'dist');
const tmp = `${dist}.tmp-${process.pid}`;
fs.rmSync(tmp, { recursive: true, force: true });
await build({
  absWorkingDir: root,
  entryPoints: { cli: 'lib/cli.ts', worker: 'lib/index/worker.ts', 'search-worker': 'lib/search/worker.ts' },
  outdir: tmp,
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  splitting: true,
  chunkNames: 'chunks/[name]-[hash]',
  external: ['better-sqlite3'],
  sourcemap: false,
  logLevel: 'warning',
  banner: { js: "import { createRequire as __resumeCreateRequire } from 'node:module'; const require = __resumeCreateRequire(import.meta.url);" },
});
// `resume rows` runs on every listing and every fzf reload: one self-contained file, so Node loads
// and links a single module instead of the shared chunks (bin/resume picks it for `rows`).
// Whitespace and syntax minified (names kept, for messages): a third less source for V8 to scan
// on every start (~15 ms of a run on this machine).
await build({
  absWorkingDir: root,
  entryPoints: { rows: 'lib/fast-rows.ts' },
  outdir: tmp,
  bundle: true,
  minifyWhitespace: true,
  minifySyntax: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  external: ['better-sqlite3'],
  logLevel: 'warning',
  banner: { js: "import { createRequire as __resumeCreateRequire } from 'node:module'; const require = __resumeCreateRequire(import.meta.url);" },
});
const old = `${dist}.old-${process.pid}`;
if (fs.existsSync(dist)) fs.renameSync(dist, old);
fs.renameSync(tmp, dist);
fs.rmSync(old, { recursive: true, force: true });
