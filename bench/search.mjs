#!/usr/bin/env node
// Deep-search benchmark: `resume search` against `rg -i -c` for the same words over the same
// files, and the peak RSS of the search. Called by bench/run.mjs with the corpus HOME (its index
// already built in RESUME_CACHE_DIR); runs alone too:
//
//   node bench/search.mjs [HOME] [--runs N]
//
// The floor is `rg -i -c` (matching lines per file): like search it reads every byte of every file
// (`-l` would stop at a file's first match). Cases: a word absent from the corpus, a word in every
// file (search decodes and ranks every line holding it), and two words. A second floor for a
// one-word case: Node reading every byte and finding the lines that hold the word
// (bench/floor.cjs read; no case folding, no decoding), what a search in Node costs before its own
// work.

import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const BIN = path.join(path.dirname(here), 'bin', 'resume');
const args = process.argv.slice(2);
const runsAt = args.indexOf('--runs');
const RUNS = runsAt >= 0 ? Number(args.splice(runsAt, 2)[1]) : 3;
const HOME = path.resolve(args[0] ?? path.join(here, 'corpus', 'home'));
if (!fs.existsSync(HOME)) {
  console.error(`no corpus at ${HOME} (node bench/gen.mjs ${HOME})`);
  process.exit(2);
}

const cache = process.env.RESUME_CACHE_DIR ?? fs.mkdtempSync(path.join(os.tmpdir(), 'resume-bench-search-'));
const env = { ...process.env, HOME, RESUME_CACHE_DIR: cache, NO_COLOR: '1' };
for (const k of Object.keys(env))
  if (/^(CLAUDE_CONFIG_DIR|CODEX_HOME|PI_CODING_AGENT_|CURSOR_CONFIG_DIR|XDG_|OPENCODE_DB|GEMINI_CLI_HOME|RESUME_.*_DIRS)/.test(k))
    delete env[k];

// the transcript roots rg searches: every directory resume scans in this corpus
const roots = ['.claude/projects', '.pi/agent/sessions', '.codex/sessions', '.codex/archived_sessions', '.gemini/tmp', '.cursor/projects']
  .map((r) => path.join(HOME, r))
  .filter((r) => fs.existsSync(r));
let bytes = 0;
let nfiles = 0;
/** [directory, [file names]]: the files the floor (bench/floor.cjs read) reads */
const listed0 = [];
const walk = (d) => {
  const names = [];
  for (const e of fs.readdirSync(d, { withFileTypes: true })) {
    const p = path.join(d, e.name);
    if (e.isDirectory()) walk(p);
    else if (/\.(jsonl|json)$/.test(e.name)) {
      nfiles++;
      bytes += fs.statSync(p).size;
      names.push(e.name);
    }
  }
  if (names.length) listed0.push([d, names]);
};
roots.forEach(walk);
const readList = path.join(os.tmpdir(), `resume-bench-read-${process.pid}.json`);
fs.writeFileSync(readList, JSON.stringify(listed0));

function time(cmd, argv, okCodes = [0, 1]) {
  const t0 = process.hrtime.bigint();
  const r = spawnSync(cmd, argv, { env, stdio: ['ignore', 'pipe', 'pipe'], maxBuffer: 256 << 20 });
  const ms = Number(process.hrtime.bigint() - t0) / 1e6;
  if (!okCodes.includes(r.status ?? -1)) throw new Error(`${cmd} ${argv.join(' ')} failed (${r.status}): ${r.stderr}`);
  return { ms, out: r.stdout.toString() };
}
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const rep = (fn) => median(Array.from({ length: RUNS }, fn));

const rg = spawnSync('rg', ['--version'], { encoding: 'utf8' }).status === 0;
// warm the page cache and the index
time(process.execPath, [BIN, 'index']);
if (rg) time('rg', ['-l', '--hidden', '--no-ignore', 'x-warm-x', ...roots]);

const rssFile = path.join(cache, 'search-rss');
/** The peak RSS (MiB) the last measured run recorded at its exit; NaN when it recorded none (a run that did not end through its exit event: never the run before's). */
const peakOf = (file) => (fs.existsSync(file) ? Number(fs.readFileSync(file, 'utf8')) / 1024 : NaN);
const pre = path.join(cache, 'search-rss.cjs');
fs.writeFileSync(
  pre,
  `process.on('exit', () => require('fs').writeFileSync(${JSON.stringify(rssFile)}, String(process.resourceUsage().maxRSS)));`,
);

// A word in a few files, the usual search: the name of the project of the session in the middle of
// the listing (its directory's last part, e.g. `api-04`; at 22,000 sessions it also starts the names
// of ten more projects, `api-040` to `api-049`)
const mid = spawnSync(process.execPath, [BIN, 'ls', '-a', '--json'], { env, encoding: 'utf8', maxBuffer: 512 << 20 });
const listed = JSON.parse(mid.stdout || '[]');
const project = listed.length ? path.basename(listed[listed.length >> 1].cwd ?? '') : '';
const cases = [
  ['absent word', ['zebrafishquux']],
  ...(project ? [['a project name (a few files)', [project]]] : []),
  ['word in every file', ['webhook']],
  // the picker's deep search (Ctrl-S): rows only, ranked the same, no evidence cut
  ['word in every file, as rows', ['webhook'], '--rows'],
  // `resume search` on a terminal: the best 20 shown, only they read for their evidence
  ['word in every file, the best 20 (`-n 20`, as on a terminal)', ['webhook'], ['--json', '-n', '20']],
  ['two words', ['webhook', 'backoff']],
  // the word in every file narrowed by a project's name (search as you type, the second word typed)
  ...(project ? [['a word in every file and a project name', ['webhook', project]]] : []),
];
const f = (n) => n.toFixed(0);
const lines = [
  `search corpus: ${nfiles} files, ${(bytes / 1024 ** 3).toFixed(2)} GiB; rg ${rg ? spawnSync('rg', ['--version'], { encoding: 'utf8' }).stdout.split('\n')[0] : 'not installed'}`,
  '',
  '| query | `resume search` | `rg -i -c` | ratio | Node reading every byte (`floor.cjs read`) | that vs `rg -i -c` | results | peak RSS |',
  '| --- | --- | --- | --- | --- | --- | --- | --- |',
];
for (const [name, words, as = '--json'] of cases) {
  // the result count and peak RSS are the measured runs' own (the preload that records the RSS is
  // a few lines run at exit)
  let out = '';
  const s = rep(() => {
    fs.rmSync(rssFile, { force: true });
    const r = time(process.execPath, ['-r', pre, BIN, 'search', '-a', ...[as].flat(), ...words]);
    out = r.out;
    return r.ms;
  });
  const res = as === '--rows' ? out.split('\n').filter(Boolean).length : JSON.parse(out || '[]').length;
  const rss = peakOf(rssFile);
  const r = rg
    ? rep(() => time('rg', ['-i', '-c', '-F', '--hidden', '--no-ignore', ...words.flatMap((w) => ['-e', w]), ...roots]).ms)
    : NaN;
  // the least a search for one word can do in Node: read every byte and find the lines holding it
  const fl =
    words.length === 1 && as === '--json'
      ? rep(() => time(process.execPath, [path.join(here, 'floor.cjs'), 'read', readList, words[0]]).ms)
      : NaN;
  const flCells = Number.isNaN(fl) ? '– | –' : `${f(fl)} ms | ${rg ? `${(fl / r).toFixed(2)}x` : '–'}`;
  lines.push(
    `| ${name} (\`${words.join(' ')}\`) | ${f(s)} ms | ${rg ? `${f(r)} ms` : '–'} | ${rg ? `${(s / r).toFixed(2)}x` : '–'} | ${flCells} | ${res} | ${rss.toFixed(0)} MiB |`,
  );
}
fs.rmSync(readList, { force: true });

// The picker's search as you type (Ctrl-S): one reload, `__feed --query Q` in deep mode, as fzf runs
// it on each keystroke (the listing as the picker opened it; rows ranked from the index's pieces)
const pick = fs.mkdtempSync(path.join(os.tmpdir(), 'resume-bench-pick-'));
fs.writeFileSync(path.join(pick, 'state.json'), JSON.stringify({ all: true, harness: null, dir: null, deep: true, cols: 120 }));
lines.push('', '| the picker, search as you type: one reload (`__feed`) | ms | sessions | peak RSS |', '| --- | --- | --- | --- |');
for (const [name, words] of cases.filter((c) => c[2] === undefined)) {
  let out = '';
  const q = words.join(' ');
  const s = rep(() => {
    fs.rmSync(rssFile, { force: true });
    const t0 = process.hrtime.bigint();
    const r = spawnSync(process.execPath, ['-r', pre, BIN, '__feed', '--query', q], {
      env: { ...env, RESUME_PICK_DIR: pick },
      stdio: ['ignore', 'pipe', 'pipe'],
      maxBuffer: 256 << 20,
    });
    out = r.stdout.toString();
    return Number(process.hrtime.bigint() - t0) / 1e6;
  });
  const n = Math.max(0, out.split('\n').filter(Boolean).length - 1);
  const rss = peakOf(rssFile);
  lines.push(`| ${name} (\`${q}\`) | ${f(s)} ms | ${n} | ${rss.toFixed(0)} MiB |`);
}

// Just after an append, as on a machine where an agent is writing: a line added to the newest
// session, the listing built again (`resume rows`, as the picker builds it when it opens, and as a
// search builds it first), then one search for a word in no file. Such a build carries the group
// map over (lib/index/mapstamp.ts); without that, each search here loaded the whole listing.
const newest = listed.find((s) => typeof s.file === 'string' && s.file.endsWith('.jsonl'))?.file;
if (newest) {
  const size0 = fs.statSync(newest).size;
  const text = fs.readFileSync(newest, 'utf8');
  const lastLine = text.slice(text.lastIndexOf('\n', text.length - 2) + 1);
  const afterAppend = (argv, extra = {}) =>
    rep(() => {
      fs.appendFileSync(newest, lastLine);
      spawnSync(process.execPath, [BIN, 'rows'], { env, stdio: 'ignore' });
      const t0 = process.hrtime.bigint();
      spawnSync(process.execPath, [BIN, ...argv], { env: { ...env, ...extra }, stdio: 'ignore' });
      return Number(process.hrtime.bigint() - t0) / 1e6;
    });
  const cli = afterAppend(['search', '-a', '--json', 'zebrafishquux']);
  const feed = afterAppend(['__feed', '--query', 'zebrafishquux'], { RESUME_PICK_DIR: pick });
  fs.truncateSync(newest, size0);
  time(process.execPath, [BIN, 'index']);
  lines.push(
    '',
    `just after an append (a line added to the newest session, the listing built again), a word in no file: \`resume search\` ${f(cli)} ms, the picker's first reload after Ctrl-S ${f(feed)} ms`,
  );
}
fs.rmSync(pick, { recursive: true, force: true });

// The search index on disk (its tables in the index database) against the transcripts' bytes
try {
  const { createRequire } = await import('node:module');
  const Database = createRequire(import.meta.url)('better-sqlite3');
  const db = new Database(path.join(cache, 'index.db'), { readonly: true });
  const sized = db
    .prepare(
      "SELECT name, sum(pgsize) AS b FROM dbstat WHERE name GLOB 'sigs*' OR name GLOB 'pieces*' OR name GLOB 'words*' OR name = 'sqlite_autoindex_sigs_1' GROUP BY name",
    )
    .all();
  const all = db.prepare('SELECT sum(pgsize) AS b FROM dbstat').get().b;
  // the group map (lib/search/groupmap.ts), which searches read to load only the groups that may hold their words
  const map = db.prepare("SELECT sum(pgsize) AS b FROM dbstat WHERE name IN ('sgroup', 'sgroup_root', 'schild', 'smeta')").get().b ?? 0;
  db.close();
  const idx = sized.reduce((n, r) => n + r.b, 0);
  const mib = (b) => (b / 1048576).toFixed(1);
  lines.push(
    '',
    `search index on disk: ${mib(idx)} MiB, ${((100 * idx) / bytes).toFixed(1)}% of the transcripts' ${(bytes / 1048576).toFixed(0)} MiB; ` +
      `with the group map (${mib(map)} MiB) ${((100 * (idx + map)) / bytes).toFixed(1)}% (the whole index database: ${mib(all)} MiB)`,
  );
} catch (err) {
  lines.push('', `search index on disk: not measured (${err.message.split('\n')[0]})`);
}
console.log(lines.join('\n'));
if (!process.env.RESUME_CACHE_DIR) fs.rmSync(cache, { recursive: true, force: true });
