#!/usr/bin/env node
// npm run bench: measures resume against floors taken on the same machine in the same run, and
// prints ratios (absolute times drift on shared machines; ratios much less).
//
//   node bench/run.mjs [--quick] [--scale S] [--runs N] [--sessions N[,N…]] [--only seed|big] [--no-search] [--write|--no-write]
//
// A whole run (both corpora at their usual size, with search, not --quick) also writes its tables into
// BENCHMARKS.md, between the lines `<!-- bench:begin -->` and `<!-- bench:end -->`; a partial run
// only prints them (--write writes anyway, --no-write never).
//
// --quick: 5 runs per measure, one full build per measure at 22,000 files (a few minutes on a quiet
// 2-core machine once the corpora exist; `npm run bench -- --quick`).
//
// Two corpora (bench/gen.mjs, generated once into bench/corpus/, git-ignored):
//   seed — 686 files, ~1.2 GiB (the shape of the store the targets came from);
//   big  — 22,000 files in ~2,900 directories, ~1.2 GiB, Codex rollouts among them
//          (`--sessions` changes the count).
// Every command — resume and every floor (`node -e 0`, `cat`, `find`, `rg`) — runs in the same scrubbed
// environment: PATH, HOME (the corpus), the cache directory and NO_COLOR only. Inherited variables
// such as NODE_EXTRA_CA_CERTS or NODE_OPTIONS slow every Node start and would flatter the ratios.

import { spawn, spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { BEGIN, between, END } from './marked.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.dirname(here);
const BIN = path.join(root, 'bin', 'resume');
const args = process.argv.slice(2);
const opt = (name, def) => {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : def;
};
const SCALE = Number(opt('--scale', '1'));
const QUICK = args.includes('--quick');
const RUNS = Number(opt('--runs', QUICK ? '5' : '10'));
const BIG = Number(opt('--sessions', '22000'));
const ONLY = opt('--only', '');
const t00 = Date.now();
const WRITE =
  !args.includes('--no-write') &&
  (args.includes('--write') || (!ONLY && !QUICK && !args.includes('--no-search') && SCALE === 1 && BIG === 22000));
/** Everything printed on stdout, for BENCHMARKS.md. */
const report = [];
const say = (text) => {
  console.log(text);
  report.push(text);
};

/** The whole environment of every timed command. */
function cleanEnv(home, cache) {
  return { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: home, RESUME_CACHE_DIR: cache, NO_COLOR: '1', LANG: 'C.UTF-8' };
}

function corpus(name, genArgs) {
  const dir = path.join(here, 'corpus', name);
  const stamp = path.join(dir, '.generated');
  if (!fs.existsSync(stamp)) {
    console.error(`generating corpus ${name} (${genArgs.join(' ') || 'seed shape'}) in ${dir} …`);
    const g = spawnSync(process.execPath, [path.join(here, 'gen.mjs'), dir, ...genArgs], { stdio: 'inherit' });
    if (g.status !== 0) process.exit(1);
    fs.writeFileSync(stamp, new Date().toISOString());
  }
  return dir;
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
};
const devnull = fs.openSync('/dev/null', 'w');
const f1 = (n) => n.toFixed(1);

/** One corpus's tables: each measure against its floor, step by step in this order (a step that changes the corpus puts it back). */
async function measure(label, home, o) {
  const m = setUp(home, o);
  // Warm the page cache and the index once; wait out the racy-directory window (dirs.ts) so the
  // no-change runs measure the steady state.
  m.catAll();
  m.time(process.execPath, [BIN, 'index', '--rebuild']);
  spawnSync('sleep', ['2.2']);
  m.rows();
  const r = { ...floors(m) };
  r.others = otherCommands(m);
  Object.assign(r, await builds(m));
  spawnSync('sleep', ['2.2']);
  m.rows();
  Object.assign(r, appendLargest(m), appendLong(m), newClaudeSession(m));
  r.codex = codexChanges(m);
  r.peakMiB = peakRss(m);
  const sessions = JSON.parse(
    spawnSync(process.execPath, [BIN, 'ls', '--json', '-a'], { env: m.env, encoding: 'utf8', maxBuffer: 512 << 20 }).stdout,
  ).length;
  const out = table(
    r,
    `### ${label}: ${m.files.length} files in ${m.dirs} directories, ${sessions} sessions, ${(m.bytes / 1024 ** 3).toFixed(2)} GiB`,
  );
  if (o.concurrent)
    out.push(
      `| 3 concurrent \`index\` on a cold cache: files parsed in all | ${await concurrent(m.env, m.cache)} | ${m.files.length} (one build) | |`,
    );
  say(`${out.join('\n')}\n`);

  if (o.search && !args.includes('--no-search')) {
    const s = spawnSync(
      process.execPath,
      [path.join(here, 'search.mjs'), home, '--runs', String(o.searchRuns ?? Math.max(3, Math.round(o.runs / 2)))],
      { stdio: ['ignore', 'pipe', 'inherit'], encoding: 'utf8', env: m.env, maxBuffer: 16 << 20 },
    );
    say(s.stdout ?? '');
  }
  fs.rmSync(m.cache, { recursive: true, force: true });
}

/**
 * What every step of `measure` shares: the corpus (its session files, their sizes, its directories),
 * a cache directory of its own, the scrubbed environment, and the ways to time a command.
 */
function setUp(home, o) {
  const files = [];
  let dirs = 0;
  const walk = (d) => {
    dirs++;
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.name.endsWith('.jsonl')) files.push(p);
    }
  };
  walk(home);
  const sizes = new Map(files.map((f) => [f, fs.statSync(f).size]));
  const bytes = [...sizes.values()].reduce((a, b) => a + b, 0);
  const cache = fs.mkdtempSync(path.join(os.tmpdir(), 'resume-bench-cache-'));
  const env = cleanEnv(home, cache);

  function time(cmd, argv, x = {}) {
    const t0 = process.hrtime.bigint();
    const r = spawnSync(cmd, argv, {
      env: x.env ? { ...env, ...x.env } : env,
      stdio: ['ignore', x.stdout ?? 'ignore', 'pipe'],
      maxBuffer: 64 << 20,
    });
    const ms = Number(process.hrtime.bigint() - t0) / 1e6;
    // (`ok`: other exit codes that are an answer, such as resolve's 1 for several sessions)
    if (r.status !== 0 && !(x.ok ?? []).includes(r.status)) throw new Error(`${cmd} ${argv.join(' ')} failed: ${r.stderr}`);
    return ms;
  }
  // `cat` of the same files, in batches (one argv cannot hold 22,000 paths)
  const catAll = () => {
    let ms = 0;
    for (let i = 0; i < files.length; i += 2000) ms += time('cat', files.slice(i, i + 2000), { stdout: devnull });
    return ms;
  };
  // Each measure and its floor are taken in turns (A B A B …), so drift on a shared machine moves
  // both alike and the ratio holds; each is the median of its runs.
  function pair(n, a, b) {
    const xs = [];
    const ys = [];
    for (let i = 0; i < n; i++) {
      xs.push(a());
      ys.push(b());
    }
    return [median(xs), median(ys)];
  }
  const rows = () => time(process.execPath, [BIN, 'rows'], { stdout: devnull });
  // A no-change `rows` as it runs between changes: the first after a change puts the rows together
  // from rows.bin and writes rows.out, which the next ones print (lib/index/rowsout.ts). A change
  // is measured against the steady one: that first run is made, untimed, before each timed one.
  const settled = () => {
    rows();
    return rows();
  };
  const nodeE0 = () => time(process.execPath, ['-e', '0']);
  return { home, o, files, dirs, sizes, bytes, cache, env, time, catAll, pair, rows, settled, nodeE0 };
}

/** A no-change `rows` against the floors: Node's start-up, find(1), and a Node process that only stats. */
function floors({ home, o, time, pair, rows, nodeE0 }) {
  const [noChange, nodeFloor] = pair(o.runs, rows, nodeE0);
  // What a no-change run must learn, by the fastest standard tool: the size and time of every file
  // under the roots resume reads (find(1), one process, no Node). A listing that may never be stale
  // stats every file: an append changes a file's size and time, not its directory's.
  const roots = ['.claude/projects', '.pi/agent/sessions', '.codex/sessions', '.codex/archived_sessions', '.gemini/tmp', '.cursor/projects']
    .map((r) => path.join(home, r))
    .filter((r) => fs.existsSync(r));
  // (-printf is GNU find's: without it, e.g. BSD find on macOS, the row is left out)
  const gnuFind = spawnSync('find', ['--version'], { encoding: 'utf8' }).stdout?.includes('GNU') === true;
  const findAll = () => time('find', [...roots, '-type', 'f', '-printf', '%s %T@\\n'], { stdout: devnull });
  const [noChange3, findFloor] = gnuFind ? pair(o.runs, rows, findAll) : [NaN, NaN];
  // The same in Node: a process that only stats every directory under the roots and every session
  // file in them (bench/floor.cjs), against resume and against Node's own start-up
  const statList = path.join(os.tmpdir(), `resume-bench-stat-${process.pid}.json`);
  const listed0 = [];
  const listDir = (d) => {
    const names = [];
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      if (e.isDirectory()) listDir(path.join(d, e.name));
      else if (e.name.endsWith('.jsonl')) names.push(e.name);
    }
    listed0.push([d, names]);
  };
  roots.forEach(listDir);
  fs.writeFileSync(statList, JSON.stringify(listed0));
  const statOnly = () => time(process.execPath, [path.join(here, 'floor.cjs'), 'stat', statList]);
  const [noChange5, statFloor] = pair(o.runs, rows, statOnly);
  const [statFloor2, nodeFloor2] = pair(o.runs, statOnly, nodeE0);
  fs.rmSync(statList, { force: true });
  return { noChange, nodeFloor, gnuFind, noChange3, findFloor, noChange5, statFloor, statFloor2, nodeFloor2 };
}

/**
 * The other commands a picker runs, each against Node's start-up: a preview per cursor move (a
 * session from the middle of the list), the picker's own list (what it and its reloads feed fzf:
 * status line and padded columns), the whole CLI's start-up, a key resolved for the launch, and a
 * session named as a person names one (the start of its id; its directory's name and a word of its
 * title, which several sessions may share: resolve then lists them and exits 1), `ls` (every
 * session, and the newest 20), `rows` for one directory, and completing a word.
 */
function otherCommands({ home, o, env, cache, time, pair, nodeE0 }) {
  const listed = spawnSync(process.execPath, [BIN, 'rows', '-a'], { env, encoding: 'utf8', maxBuffer: 512 << 20 })
    .stdout.split('\n')
    .filter(Boolean);
  const midKey = listed[listed.length >> 1].split('\t')[0];
  // its directory (the row shows it from ~), and that directory's last part as a word to complete
  const midDir = listed[listed.length >> 1].split('\t')[4].replace(/^~(?=\/|$)/, home);
  const midWord = path.basename(midDir);
  const midId = midKey.slice(midKey.indexOf(':') + 1);
  const titleWord = (listed[listed.length >> 1].split('\t')[6] ?? '').split(/\s+/).find((w) => /^[a-z]{4,}$/i.test(w)) ?? midWord;
  // the picker's state (lib/commands/feed.ts): naming sessions (no deep search), hidden ones left out
  const pickDir = path.join(cache, 'pick');
  fs.mkdirSync(pickDir, { recursive: true });
  fs.writeFileSync(path.join(pickDir, 'state.json'), JSON.stringify({ all: false, harness: null, dir: null, deep: false, cols: 120 }));
  const picking = { RESUME_PICK_DIR: pickDir };
  return [
    ['`preview KEY`', ['preview', midKey]],
    ["the picker's list (`rows --align --status`)", ['rows', '--align', '--status']],
    ["`resume --version` (the whole CLI's start-up)", ['--version']],
    ['`resolve KEY`', ['resolve', midKey]],
    ["`resolve PREFIX` (that id's first 8 characters)", ['resolve', midId.slice(0, 8)]],
    ["`resolve WORDS` (that directory's name and a word of its title)", ['resolve', midWord, titleWord], [1]],
    ['`ls -a` (every session, tab-separated)', ['ls', '-a']],
    ['`ls -n 20`', ['ls', '-n', '20']],
    ["`rows --dir DIR` (a session's directory)", ['rows', '--dir', midDir]],
    ["completion of a word (`__complete -- WORD`, that directory's name)", ['__complete', '--', midWord]],
    ["completion of an empty word (`__complete -- ''`, every session)", ['__complete', '--', '']],
    ["the picker's reload for a typed query (`__feed --query WORDS`): that directory's name", ['__feed', '--query', midWord], [0], picking],
    ["the same, that directory's name and a word of its title", ['__feed', '--query', `${midWord} ${titleWord}`], [0], picking],
    [
      "the same, that title word's first two letters (as a query's first keys: a word in many sessions)",
      ['__feed', '--query', titleWord.slice(0, 2)],
      [0],
      picking,
    ],
  ].map(([what, argv, ok, x]) => [
    what,
    ...pair(o.runs, () => time(process.execPath, [BIN, ...argv], { stdout: devnull, ok, env: x }), nodeE0),
  ]);
}

/** A full build against `cat`, its two parts, and a cold `rows`: when its first row comes. */
async function builds({ home, o, env, catAll, pair }) {
  // `index --rebuild` makes the listing, then the search index (signatures and pieces): each part's
  // time from its own line on stderr ("… read in N ms")
  const parts = [];
  const build = () => {
    const t0 = process.hrtime.bigint();
    const r = spawnSync(process.execPath, [BIN, 'index', '--rebuild'], { env, stdio: ['ignore', 'ignore', 'pipe'], encoding: 'utf8' });
    const ms = Number(process.hrtime.bigint() - t0) / 1e6;
    if (r.status !== 0) throw new Error(`index --rebuild failed: ${r.stderr}`);
    const took = [...r.stderr.matchAll(/read in (\d+) ms/g)].map((m) => Number(m[1]));
    parts.push({ listing: took[0] ?? NaN, search: took[1] ?? NaN });
    return ms;
  };
  const [full, cat] = pair(o.buildRuns, build, catAll);
  const listingBuild = median(parts.map((x) => x.listing));
  const searchBuild = median(parts.map((x) => x.search));
  // A cold `rows` (an empty cache directory, as after an install: no index, no code cache): when its
  // first row is written, as a share of the whole run (the build it streams from). Each run's own
  // share, then their median: the first row and the end move together with the machine's load.
  const colds = [];
  for (let i = 0; i < o.coldRuns; i++) colds.push(await firstRow(home));
  const coldFirst = median(colds.map((c) => c.first));
  const coldEnd = median(colds.map((c) => c.end));
  const coldShare = median(colds.map((c) => c.first / c.end));
  return { full, cat, listingBuild, searchBuild, coldFirst, coldEnd, coldShare };
}

/** One line appended to the largest file, then `rows`, against a no-change `rows`; the file is put back. */
function appendLargest({ o, files, sizes, time, pair, rows, settled }) {
  const largest = files.reduce((a, f) => (sizes.get(f) > sizes.get(a) ? f : a), files[0]);
  const kind = largest.includes('/.pi/') ? 'pi' : largest.includes('/.codex/') ? 'codex' : 'claude';
  let n = 0;
  const appendOne = () => {
    const ts = new Date().toISOString();
    const text = `bench append ${n++}`;
    const line =
      kind === 'pi'
        ? piMessage({ id: `b${n}`, parentId: null, role: 'user', text, ts, at: Date.now() })
        : kind === 'codex'
          ? { timestamp: ts, type: 'event_msg', payload: { type: 'user_message', message: text } }
          : { type: 'user', cwd: '/x', message: { role: 'user', content: text }, timestamp: ts, entrypoint: 'cli' };
    fs.appendFileSync(largest, `${JSON.stringify(line)}\n`);
  };
  const original = sizes.get(largest);
  const [append, noChange2] = pair(
    o.runs,
    () => {
      appendOne();
      return rows();
    },
    settled,
  );
  fs.truncateSync(largest, original);
  time(process.execPath, [BIN, 'index']);
  return { kind, append, noChange2 };
}

/**
 * The same to a session of 1,000 prompts (a day's work in one session; the corpus's largest file
 * has a few dozen): a prompt, and a reply. What an append costs must not grow with its session.
 */
function appendLong({ home, o, time, pair, rows, settled }) {
  const longDir = path.join(home, '.pi', 'agent', 'sessions', '--home-bench-long-session--');
  const longFile = path.join(longDir, '2026-06-01T08-00-00-000Z_0b0b0b0b-1000-4000-8000-000000001000.jsonl');
  writeLongSession(longFile, LONG_PROMPTS);
  time(process.execPath, [BIN, 'index']);
  spawnSync('sleep', ['2.2']);
  rows();
  let m = 0;
  const piLine = (role) => {
    const text = `bench long ${role} ${m++}`;
    fs.appendFileSync(
      longFile,
      `${JSON.stringify(piMessage({ id: `l${m}`, parentId: null, role, text, ts: new Date().toISOString(), at: Date.now() }))}\n`,
    );
  };
  const [appendLong, noChangeLong] = pair(
    o.runs,
    () => {
      piLine('user');
      return rows();
    },
    settled,
  );
  const [replyLong, noChangeLong2] = pair(
    o.runs,
    () => {
      piLine('assistant');
      return rows();
    },
    settled,
  );
  fs.rmSync(longDir, { recursive: true, force: true });
  time(process.execPath, [BIN, 'index']);
  return { appendLong, noChangeLong, replyLong, noChangeLong2 };
}

/**
 * A session appears: a new Claude Code session, then `rows` (when the corpus has Claude Code). Its
 * first record is its own (no fork: links.bin), so it is patched over the listing as an append is.
 */
function newClaudeSession({ home, o, time, pair, rows, settled }) {
  const claudeDir = fs.existsSync(path.join(home, '.claude', 'projects'))
    ? path.join(home, '.claude', 'projects', '-home-bench-src-new-sessions')
    : null;
  if (!claudeDir) return { claudeDir, newSession: NaN, noChange4: NaN };
  fs.mkdirSync(claudeDir, { recursive: true });
  let k = 0;
  const create = () => {
    // (random, as Claude Code's are: ids sharing their first 8 characters make longer short ids,
    // and the listing is then written whole)
    const id = randomUUID();
    ++k;
    const at = new Date().toISOString();
    const line = {
      parentUuid: null,
      isSidechain: false,
      userType: 'external',
      cwd: '/home/bench/src/new-sessions',
      sessionId: id,
      version: '2.1.0',
      gitBranch: 'main',
      type: 'user',
      message: { role: 'user', content: `bench new session ${k}` },
      uuid: `n-${id}`,
      timestamp: at,
      entrypoint: 'cli',
    };
    fs.writeFileSync(path.join(claudeDir, `${id}.jsonl`), `${JSON.stringify(line)}\n`);
  };
  const [newSession, noChange4] = pair(
    o.runs,
    () => {
      create();
      return rows();
    },
    settled,
  );
  fs.rmSync(claudeDir, { recursive: true, force: true });
  time(process.execPath, [BIN, 'index']);
  return { claudeDir, newSession, noChange4 };
}

/**
 * Codex changes (when the corpus has them). Codex's finish pass (thread names from
 * session_index.jsonl, forks measured against their parents) runs over what a change concerns:
 * a prompt appended to a thread, a thread renamed, a new thread (its rollout and its title), a
 * prompt to a thread that has forks (whose rows may change with it: the listing is read).
 */
function codexChanges(m) {
  const { home, o, env, time, pair, rows, settled } = m;
  const codexNow = JSON.parse(
    spawnSync(process.execPath, [BIN, 'ls', '--json', '-a'], { env, encoding: 'utf8', maxBuffer: 512 << 20 }).stdout,
  ).filter((s) => s.harness === 'codex');
  const forked = new Set(codexNow.map((s) => s.forkedFrom).filter(Boolean));
  const plainThread = codexNow.find((s) => !s.hidden && !s.forkedFrom && !forked.has(s.id));
  const forkedThread = codexNow.find((s) => forked.has(s.id));
  const titles = path.join(home, '.codex', 'session_index.jsonl');
  const codex = [];
  let c = 0;
  /** `change(i)` before each `rows` against a no-change `rows`; `file` is put back as it was */
  const codexMeasure = (what, file, change) => {
    const size0 = fs.statSync(file).size;
    rows();
    const [a, b] = pair(
      o.runs,
      (i = c++) => {
        change(i);
        return rows();
      },
      settled,
    );
    fs.truncateSync(file, size0);
    time(process.execPath, [BIN, 'index']);
    codex.push([what, a, b]);
  };
  if (plainThread)
    codexMeasure('a prompt appended to a Codex rollout', plainThread.file, (i) =>
      fs.appendFileSync(plainThread.file, codexEvent('user_message', `bench codex append ${i}`)),
    );
  if (plainThread && fs.existsSync(titles))
    codexMeasure('a Codex thread renamed (session_index.jsonl)', titles, (i) =>
      fs.appendFileSync(
        titles,
        `${JSON.stringify({ id: plainThread.id, thread_name: `bench rename ${i}`, updated_at: new Date().toISOString() })}\n`,
      ),
    );
  if (forkedThread)
    codexMeasure('a prompt appended to a Codex thread that has forks', forkedThread.file, (i) =>
      fs.appendFileSync(forkedThread.file, codexEvent('user_message', `bench codex parent ${i}`)),
    );
  if (plainThread && fs.existsSync(titles)) {
    const dir = path.join(home, '.codex', 'sessions', '2030', '01', '01');
    fs.mkdirSync(dir, { recursive: true });
    codexMeasure('a new Codex thread (its rollout and its title)', titles, (i) => newCodexThread(dir, titles, i));
    fs.rmSync(path.join(home, '.codex', 'sessions', '2030'), { recursive: true, force: true });
    time(process.execPath, [BIN, 'index']);
  }
  return codex;
}

/** A Codex event line (`event_msg`) of `type` saying `message`, timed now. */
const codexEvent = (type, message) =>
  `${JSON.stringify({ timestamp: new Date().toISOString(), type: 'event_msg', payload: { type, message } })}\n`;

/** The `i`th new Codex thread: its rollout in `dir`, and its title appended to `titles`. */
function newCodexThread(dir, titles, i) {
  const id = randomUUID();
  const at = new Date().toISOString();
  fs.writeFileSync(
    path.join(dir, `rollout-2030-01-01T10-00-00-${id}.jsonl`),
    JSON.stringify({
      timestamp: at,
      type: 'session_meta',
      payload: { id, timestamp: at, cwd: '/home/bench/src/new-codex', source: 'cli' },
    }) +
      '\n' +
      codexEvent('user_message', `bench new codex thread ${i}`),
  );
  fs.appendFileSync(titles, `${JSON.stringify({ id, thread_name: `bench new codex thread ${i}`, updated_at: at })}\n`);
}

/** Peak RSS of a full build (main thread and workers: one process), in MiB. */
function peakRss({ cache, time }) {
  const rssFile = path.join(cache, 'rss');
  const pre = path.join(cache, 'rss.cjs');
  fs.writeFileSync(
    pre,
    `process.on('exit', () => require('fs').writeFileSync(${JSON.stringify(rssFile)}, String(process.resourceUsage().maxRSS)));`,
  );
  time(process.execPath, ['-r', pre, BIN, 'index', '--rebuild']);
  return Number(fs.readFileSync(rssFile, 'utf8')) / 1024;
}

/** The corpus's table, headed `head`: a row per measure, `r` the results of `measure`'s steps. */
function table(r, head) {
  const row = (what, a, b) => `| ${what} | ${f1(a)} ms | ${f1(b)} ms | ${(a / b).toFixed(2)}x |`;
  return [
    head,
    '',
    '| measure | resume | floor | ratio |',
    '| --- | --- | --- | --- |',
    row('no-change `rows` vs `node -e 0`', r.noChange, r.nodeFloor),
    ...(r.gnuFind ? [row("no-change `rows` vs `find` printing every file's size and time (no Node)", r.noChange3, r.findFloor)] : []),
    row(
      'no-change `rows` vs a Node process that only stats the same directories and files (`bench/floor.cjs stat`)',
      r.noChange5,
      r.statFloor,
    ),
    row('that process (the least a listing that is never stale can do in Node) vs `node -e 0`', r.statFloor2, r.nodeFloor2),
    ...r.others.map(([what, a, b]) => row(`${what} vs \`node -e 0\``, a, b)),
    row('full build (`index --rebuild`: the listing, then the search index) vs `cat` of the same files', r.full, r.cat),
    row('its first part, the listing, vs `cat`', r.listingBuild, r.cat),
    row('its second part, the search index (signatures and pieces), vs `cat`', r.searchBuild, r.cat),
    `| cold \`rows\` (empty cache): its first row vs the whole run (the median of each run's share) | ${f1(r.coldFirst)} ms | ${f1(r.coldEnd)} ms | ${r.coldShare.toFixed(2)} |`,
    row(`append one line to the largest file (${r.kind}), then \`rows\`, vs no-change \`rows\``, r.append, r.noChange2),
    row(`the same, a prompt appended to a session of ${LONG_PROMPTS.toLocaleString('en')} prompts (pi)`, r.appendLong, r.noChangeLong),
    row('the same, a reply appended to it', r.replyLong, r.noChangeLong2),
    ...(r.claudeDir ? [row('a new Claude Code session, then `rows`, vs no-change `rows`', r.newSession, r.noChange4)] : []),
    ...r.codex.map(([what, a, b]) => row(`${what}, then \`rows\`, vs no-change \`rows\``, a, b)),
    `| peak RSS of the full build | ${f1(r.peakMiB)} MiB | | |`,
  ];
}

const LONG_PROMPTS = 1000;

/** A pi message line: a prompt (`user`) or a reply (`assistant`), the line's time `ts`, the message's `at` (epoch ms). */
function piMessage({ id, parentId, role, text, ts, at }) {
  const content = [{ type: 'text', text }];
  const message =
    role === 'user'
      ? { role, content, timestamp: at }
      : { role, content, provider: 'bench', model: 'bench-model', stopReason: 'stop', timestamp: at };
  return { type: 'message', id, parentId, timestamp: ts, message };
}

/** A pi session of `prompts` prompts of ~80 words (coding words, some of them the redaction's keywords), each with a reply. */
function writeLongSession(file, prompts) {
  const words =
    'please fix the failing test in the parser and update the config key handling so that the token refresh works with the new api endpoint also check the cache path and the retry logic'.split(
      ' ',
    );
  let seed = 7;
  const rnd = () => {
    seed = (seed * 1103515245 + 12345) & 0x7fffffff;
    return seed / 0x7fffffff;
  };
  const text = (n) => Array.from({ length: n }, () => words[Math.floor(rnd() * words.length)]).join(' ');
  const t0 = Date.parse('2026-06-01T08:00:00Z');
  const lines = [
    {
      type: 'session',
      version: 3,
      id: '0b0b0b0b-1000-4000-8000-000000001000',
      timestamp: new Date(t0).toISOString(),
      cwd: '/home/bench/src/long-session',
    },
  ];
  let prev = null;
  for (let i = 0; i < prompts; i++) {
    // (the first prompt a while after the header: one within a second is a print run, hidden)
    const at = t0 + 30_000 + i * 60_000;
    const ts = new Date(at).toISOString();
    lines.push(piMessage({ id: `u${i}`, parentId: prev, role: 'user', text: text(60 + Math.floor(rnd() * 100)), ts, at }));
    lines.push(piMessage({ id: `a${i}`, parentId: `u${i}`, role: 'assistant', text: text(200), ts, at: at + 1 }));
    prev = `a${i}`;
  }
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, `${lines.map((l) => JSON.stringify(l)).join('\n')}\n`);
}

/** `resume rows` on an empty cache directory of its own: ms to its first byte of output and to its exit. */
function firstRow(home) {
  const cache = fs.mkdtempSync(path.join(os.tmpdir(), 'resume-bench-cold-'));
  return new Promise((resolve, reject) => {
    const t0 = process.hrtime.bigint();
    const ms = () => Number(process.hrtime.bigint() - t0) / 1e6;
    const p = spawn(process.execPath, [BIN, 'rows'], { env: cleanEnv(home, cache), stdio: ['ignore', 'pipe', 'ignore'] });
    let first = NaN;
    p.stdout.on('data', () => {
      if (Number.isNaN(first)) first = ms();
    });
    p.on('error', reject);
    p.on('close', (code) => {
      const end = ms();
      fs.rmSync(cache, { recursive: true, force: true });
      if (code !== 0 || Number.isNaN(first)) reject(new Error(`cold rows failed (${code})`));
      else resolve({ first, end });
    });
  });
}

/** Three `resume index` started together on an empty cache: how many files did they parse in all? */
async function concurrent(env, cache) {
  fs.rmSync(cache, { recursive: true, force: true });
  fs.mkdirSync(cache, { recursive: true });
  const errs = await Promise.all(
    Array.from({ length: 3 }, () => {
      const p = spawn(process.execPath, [BIN, 'index'], { env, stdio: ['ignore', 'ignore', 'pipe'] });
      let err = '';
      p.stderr.on('data', (d) => (err += d));
      return new Promise((res) => p.on('close', () => res(err)));
    }),
  );
  return errs.reduce((n, e) => n + Number(/(\d+) parsed/.exec(e)?.[1] ?? 0), 0);
}

const scales = [];
if (ONLY !== 'big')
  scales.push([
    'seed',
    SCALE === 1 ? 'home' : `home-${SCALE}`,
    ['--scale', String(SCALE)],
    { runs: RUNS, buildRuns: QUICK ? 3 : 5, coldRuns: RUNS, search: true, concurrent: true },
  ]);
if (ONLY !== 'seed') {
  scales.push([
    'big',
    `home-n${BIG}${SCALE === 1 ? '' : `-${SCALE}`}`,
    ['--sessions', String(BIG), '--gib', String(0.9 * SCALE)],
    // search at this scale takes seconds a run: fewer runs
    { runs: RUNS, buildRuns: QUICK ? 1 : 3, coldRuns: QUICK ? 1 : 3, search: true, searchRuns: QUICK ? 1 : 3, concurrent: false },
  ]);
}
say(
  `machine: ${os.cpus().length} × ${os.cpus()[0]?.model?.trim()}, ${Math.round(os.totalmem() / 1024 ** 3)} GiB, Node ${process.version}, ${os.platform()} ${os.release()}; load ${os
    .loadavg()
    .map((x) => x.toFixed(1))
    .join(' ')}\n`,
);
for (const [label, name, genArgs, o] of scales) await measure(label, corpus(name, genArgs), o);
say(
  `(bench took ${((Date.now() - t00) / 1000).toFixed(0)} s; load at the end ${os
    .loadavg()
    .map((x) => x.toFixed(1))
    .join(' ')})`,
);
if (WRITE) {
  const file = path.join(root, 'BENCHMARKS.md');
  const doc = between(
    fs.readFileSync(file, 'utf8'),
    `Generated by \`npm run bench\` on ${new Date().toISOString().slice(0, 10)}.\n\n${report.join('\n')}`,
  );
  if (doc) {
    fs.writeFileSync(file, doc);
    console.error(`wrote the tables into ${file}`);
  } else console.error(`${file}: no ${BEGIN} … ${END} lines; the tables are printed above only`);
}
