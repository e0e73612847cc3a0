// Bundle the CLI into dist/ so start-up loads one file (start-up is most of a no-change listing).
// Entry points: the CLI and the index worker (worker_threads needs a file of its own).
import { build } from 'esbuild';
import { fileURLToPath } from 'node:url';
import fs from 'node:fs';
import path from 'node:path';

const root = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
// Chunk names carry content hashes: start clean so stale chunks never pile up.
fs.rmSync(path.join(root, 'dist'), { recursive: true, force: true });
await build({
  absWorkingDir: root,
  entryPoints: { cli: 'lib/cli.ts', worker: 'lib/index/worker.ts' },
  outdir: 'dist',
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
