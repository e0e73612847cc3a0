#!/usr/bin/env node
// npm run bench: measures resume against floors taken on the same machine in the same run, and
// prints ratios (absolute times drift on shared machines; ratios much less).
//
//   node bench/run.mjs [--scale S] [--runs N]
//
// The corpus (bench/gen.mjs, ~1.2 GiB at scale 1) is generated once into bench/corpus/.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.dirname(here);
const BIN = path.join(root, 'bin', 'resume');
const args = process.argv.slice(2);
const opt = (name, def) => {
  const i = args.indexOf(name);
  return i >= 0 ? Number(args[i + 1]) : def;
};
const SCALE = opt('--scale', 1);
const RUNS = opt('--runs', 10);

const corpus = path.join(here, 'corpus', SCALE === 1 ? 'home' : `home-${SCALE}`);
const stamp = path.join(corpus, '.generated');
if (!fs.existsSync(stamp)) {
  console.error(`generating corpus (scale ${SCALE}) in ${corpus} …`);
  const g = spawnSync(process.execPath, [path.join(here, 'gen.mjs'), corpus, '--scale', String(SCALE)], { stdio: 'inherit' });
  if (g.status !== 0) process.exit(1);
  fs.writeFileSync(stamp, new Date().toISOString());
}

const files = [];
const walk = (d) => {
  for (const e of fs.readdirSync(d, { withFileTypes: true })) {
    const p = path.join(d, e.name);
    if (e.isDirectory()) walk(p);
    else if (e.name.endsWith('.jsonl')) files.push(p);
  }
};
walk(corpus);
const bytes = files.reduce((n, f) => n + fs.statSync(f).size, 0);

const cache = fs.mkdtempSync(path.join(os.tmpdir(), 'resume-bench-cache-'));
const env = { ...process.env, HOME: corpus, RESUME_CACHE_DIR: cache, NO_COLOR: '1' };
for (const k of Object.keys(env)) if (/^(CLAUDE_CONFIG_DIR|CODEX_HOME|PI_CODING_AGENT_|CURSOR_CONFIG_DIR|XDG_|OPENCODE_DB|GEMINI_CLI_HOME|RESUME_.*_DIRS)/.test(k)) delete env[k];
env.HOME = corpus;

function time(cmd, argv, o = {}) {
  const t0 = process.hrtime.bigint();
  const r = spawnSync(cmd, argv, { env, stdio: ['ignore', o.stdout ?? 'ignore', 'pipe'], ...o });
  const ms = Number(process.hrtime.bigint() - t0) / 1e6;
  if (r.status !== 0) throw new Error(`${cmd} ${argv.join(' ')} failed: ${r.stderr}`);
  return ms;
}
const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
};
const devnull = fs.openSync('/dev/null', 'w');

// Warm the page cache and the index once.
time('cat', files, { stdout: devnull });
time(process.execPath, [BIN, 'index', '--rebuild']);

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
const [noChange, nodeFloor] = pair(RUNS, () => time(process.execPath, [BIN, 'rows'], { stdout: devnull }), () => time(process.execPath, ['-e', '0']));
const [full, cat] = pair(5, () => time(process.execPath, [BIN, 'index', '--rebuild']), () => time('cat', files, { stdout: devnull }));

const largest = files.reduce((a, f) => (fs.statSync(f).size > fs.statSync(a).size ? f : a), files[0]);
const isPi = largest.includes('/.pi/');
function appendFour() {
  const ts = new Date().toISOString();
  const line = (i) =>
    isPi
      ? JSON.stringify({ type: 'message', id: `b${i}`, parentId: null, timestamp: ts, message: { role: 'user', content: [{ type: 'text', text: `bench append ${i}` }], timestamp: Date.now() } })
      : JSON.stringify({ type: 'user', cwd: '/x', message: { role: 'user', content: `bench append ${i}` }, timestamp: ts, entrypoint: 'cli' });
  fs.appendFileSync(largest, [0, 1, 2, 3].map(line).join('\n') + '\n');
}
const original = fs.statSync(largest).size;
const [append, noChange2] = pair(
  RUNS,
  () => {
    appendFour();
    return time(process.execPath, [BIN, 'rows'], { stdout: devnull });
  },
  () => time(process.execPath, [BIN, 'rows'], { stdout: devnull }),
);
fs.truncateSync(largest, original);
time(process.execPath, [BIN, 'index']);

// Peak RSS of a full build (main thread and workers: one process).
const rssFile = path.join(cache, 'rss');
const pre = path.join(cache, 'rss.cjs');
fs.writeFileSync(pre, `process.on('exit', () => require('fs').writeFileSync(${JSON.stringify(rssFile)}, String(process.resourceUsage().maxRSS)));`);
time(process.execPath, ['-r', pre, BIN, 'index', '--rebuild']);
const peakMiB = Number(fs.readFileSync(rssFile, 'utf8')) / 1024;

const sessions = JSON.parse(spawnSync(process.execPath, [BIN, 'ls', '--json', '-a'], { env, encoding: 'utf8', maxBuffer: 256 << 20 }).stdout).length;
const f = (n) => n.toFixed(1);
const lines = [
  `machine: ${os.cpus().length} × ${os.cpus()[0]?.model?.trim()}, ${Math.round(os.totalmem() / 1024 ** 3)} GiB, Node ${process.version}, ${os.platform()} ${os.release()}`,
  `corpus: ${files.length} files, ${sessions} sessions, ${(bytes / 1024 ** 3).toFixed(2)} GiB (scale ${SCALE})`,
  '',
  '| measure | resume | floor | ratio | target |',
  '| --- | --- | --- | --- | --- |',
  `| no-change \`resume rows\` vs \`node -e 0\` | ${f(noChange)} ms | ${f(nodeFloor)} ms | ${(noChange / nodeFloor).toFixed(2)}x | <= 1.5x |`,
  `| full build (\`index --rebuild\`) vs \`cat\` of the same files | ${f(full)} ms | ${f(cat)} ms | ${(full / cat).toFixed(2)}x | <= 3x |`,
  `| 4-line append to the largest file, then \`rows\`, vs no-change | ${f(append)} ms | ${f(noChange2)} ms | ${(append / noChange2).toFixed(2)}x | <= 1.15x |`,
  `| peak RSS of the full build | ${f(peakMiB)} MiB | | | <= 200 MiB |`,
];
console.log(lines.join('\n'));

const search = path.join(here, 'search.mjs');
if (fs.existsSync(search) && !args.includes('--no-search')) {
  console.log('');
  spawnSync(process.execPath, [search, corpus], { stdio: 'inherit', env: { ...env, RESUME_CACHE_DIR: cache } });
}
fs.rmSync(cache, { recursive: true, force: true });
