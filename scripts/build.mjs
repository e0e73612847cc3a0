// Bundle the CLI into dist/ so start-up loads one file (start-up is most of a no-change listing).
// All CommonJS, each file self-contained: rows.cjs (`rows`, `preview`) and cli.cjs (the rest), loaded
// with V8's code cache by dist/boot.cjs, and the index and search workers (worker.cjs,
// search-worker.cjs: worker_threads needs a file of its own), which a thread loads with Node's own
// CommonJS loader (as ES modules, with chunks shared between them, a search's worker took ~20 ms
// longer to start: Node's ESM loader in the thread, and more files).

import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
// Built into a fresh directory and swapped in, so a concurrent run never sees a half-written dist/
// and no file of an earlier build stays behind.
const dist = path.join(root, 'dist');
const tmp = `${dist}.tmp-${process.pid}`;
fs.rmSync(tmp, { recursive: true, force: true });
// `resume rows` and `resume preview` run on every listing, fzf reload and cursor move: one
// self-contained CommonJS file, loaded by dist/boot.cjs with V8's code cache (lib/util/codecache.ts),
// so a run deserializes its compiled functions instead of compiling the bundle again. CommonJS, and
// a CommonJS bin/resume, also spare these runs Node's ESM loader (~7 ms here).
// Whitespace and syntax minified (names kept, for messages): a third less source to read and hash.
const cjs = {
  absWorkingDir: root,
  outdir: tmp,
  bundle: true,
  minifyWhitespace: true,
  minifySyntax: true,
  platform: 'node',
  format: 'cjs',
  target: 'node20',
  outExtension: { '.js': '.cjs' },
  external: ['better-sqlite3'],
  logLevel: 'warning',
  // import.meta.url (the dist directory, createRequire) from the file's own name, worked out when
  // first read (node:url's conversion is not needed on most runs)
  define: { 'import.meta.url': '__resumeMeta.url' },
  banner: { js: 'var __resumeMeta = { get url() { return require("node:url").pathToFileURL(__filename).href; } };' },
};
// `import { createRequire } from 'node:module'` (lib/util/lazy.ts, which the tests run as ES modules
// without a `require`) would load node:module and Node's ESM loader on every start of a CommonJS
// bundle, which has a `require` of its own: there it is a function that loads node:module when called.
const lazyModule = {
  name: 'lazy-node-module',
  setup(b) {
    // (the shim's own require is of the real module)
    b.onResolve({ filter: /^node:module$/ }, (a) =>
      a.namespace === 'lazy-node-module' ? { path: 'node:module', external: true } : { path: 'node:module', namespace: 'lazy-node-module' },
    );
    b.onLoad({ filter: /.*/, namespace: 'lazy-node-module' }, () => ({
      contents: 'export function createRequire(url) { return require("node:module").createRequire(url); }',
      loader: 'js',
    }));
  },
};
// The command table (lib/commands/table.ts) names each command's handler with an import() of its
// module: the full CLI's code. The lean bundle reads the table and runs its commands without those
// handlers, so there each of these imports is an empty module.
const noHandlers = {
  name: 'no-handlers',
  setup(b) {
    const table = path.join(root, 'lib', 'commands', 'table.ts');
    b.onResolve({ filter: /^\.\/[\w-]+\.js$/ }, (a) =>
      a.kind === 'dynamic-import' && a.importer === table ? { path: a.path, namespace: 'no-handlers' } : undefined,
    );
    b.onLoad({ filter: /.*/, namespace: 'no-handlers' }, () => ({ contents: 'export {};', loader: 'js' }));
  },
};
await Promise.all([
  build({ ...cjs, plugins: [lazyModule, noHandlers], entryPoints: { rows: 'lib/fast-rows.ts' } }),
  build({
    ...cjs,
    plugins: [lazyModule],
    entryPoints: { boot: 'lib/boot.ts', cli: 'lib/cli.ts', worker: 'lib/index/worker.ts', 'search-worker': 'lib/search/worker.ts' },
  }),
]);
// better-sqlite3's JavaScript as one file (lib/os/sqlite.ts loads it on Node 20, given the addon's
// path): its fifteen files took ~5-7 ms to load on every command that opens the index, this ~1 ms,
// and the `bindings` lookup of its addon (stack walking, a dozen paths probed: ~2 ms an open) is
// never run. Named by the version it was made from: another installed version is loaded as it is.
// (Not in the bundles above: it loads lazily, and most runs never open the database.)
const req = createRequire(import.meta.url);
let sqlitePkg = null;
try {
  sqlitePkg = req.resolve('better-sqlite3/package.json');
} catch {
  // (not installed, an optional dependency: Node 22's node:sqlite is used)
}
if (sqlitePkg) {
  const { version } = JSON.parse(fs.readFileSync(sqlitePkg, 'utf8'));
  await build({ ...cjs, external: ['bindings'], entryPoints: { [`sqlite3-${version}`]: req.resolve('better-sqlite3') }, banner: {} });
}
// the lean path's reason to be: no CLI framework (commander is bundled, so its code would be inline)
if (fs.readFileSync(path.join(tmp, 'rows.cjs'), 'utf8').includes('CommanderError'))
  throw new Error('rows.cjs: commander got into the lean bundle');
// esbuild gives CommonJS code a default or namespace import of a Node module (`import fs from
// 'node:fs'`, in most of lib/) as a copy of the whole module object: some 50 copies of fs, path and
// os per run, ~7 ms and most of the run's garbage. An object that inherits from the module reads the
// same and copies nothing. (If esbuild ever writes these calls differently, nothing is replaced and
// the copies come back: slower, never wrong.)
const WRAP_HEAD = '(function (exports, require, module, __filename, __dirname) { ';
const WRAP_TAIL = '\n});';
for (const f of ['rows.cjs', 'boot.cjs', 'cli.cjs', 'worker.cjs', 'search-worker.cjs']) {
  const file = path.join(tmp, f);
  const text = fs.readFileSync(file, 'utf8');
  // (and "use strict" first again: esbuild's own comes after the banner, where it is no directive)
  const ns = '"use strict";\nvar __resumeNs = (m) => Object.create(m, { default: { value: m, enumerable: true } });\n';
  // A Node module imported dynamically (`await import('node:worker_threads')`) stays an import() in
  // esbuild's output; code compiled by vm.Script (the code cache) has no loader for it ("A dynamic
  // import callback was not specified"): a require, resolved the same way.
  const out = text
    .replace(/__toESM\(require\("(node:[\w/]+)"\)(?:,\s*1)?\)/g, '__resumeNs(require("$1"))')
    .replace(/\bimport\("(node:[\w/]+)"\)/g, 'Promise.resolve().then(() => __resumeNs(require("$1")))');
  if (/\bimport\(/.test(out)) throw new Error(`${f}: an import() is left that the code cache loader cannot run`);
  // The bundles boot.cjs loads are written as the function around them that Module.wrap would make
  // (lib/util/codecache.ts WRAP_HEAD, WRAP_TAIL): the loader hands the file's text to V8 as it is,
  // instead of a concatenation V8 copies whole (flattens) before it can look the code cache up.
  // (boot.cjs and the workers are loaded by Node itself, as they are)
  fs.writeFileSync(file, f === 'boot.cjs' || f.endsWith('worker.cjs') ? ns + out : `${WRAP_HEAD}${ns}${out}${WRAP_TAIL}`);
}
const old = `${dist}.old-${process.pid}`;
if (fs.existsSync(dist)) fs.renameSync(dist, old);
fs.renameSync(tmp, dist);
fs.rmSync(old, { recursive: true, force: true });
