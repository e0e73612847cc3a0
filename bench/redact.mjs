#!/usr/bin/env node
// Micro-benchmark of the sanitiser the index runs on every stored session (lib/util/redact.ts):
// ns per stored prompt for a realistic mix, against the one-line folding that ran before it.
//   node bench/redact.mjs            (bundles lib/util/redact.ts with esbuild into a temp dir)
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { build } from 'esbuild';

const root = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'resume-redact-bench-'));
const out = path.join(tmp, 'redact.mjs');
await build({
  entryPoints: [path.join(root, 'lib/util/redact.ts')],
  bundle: true,
  platform: 'node',
  format: 'esm',
  outfile: out,
  logLevel: 'silent',
});
const { sanitize, sanitizeSession, redact } = await import(pathToFileURL(out).href);
fs.rmSync(tmp, { recursive: true, force: true });

// Deterministic prompts: mostly prose and code talk; some name secret-ish words (the prefilter lets
// them through to the rules); a few hold a secret.
const words =
  'fix the flaky test in checkout flow refactor parser add retry backoff to webhook handler why does build fail on ci rename module update readme migrate database schema'.split(
    ' ',
  );
let seed = 1;
const rnd = () => {
  seed = (seed * 1103515245 + 12345) & 0x7fffffff;
  return seed / 0x7fffffff;
};
const prose = (n) => Array.from({ length: n }, () => words[Math.floor(rnd() * words.length)]).join(' ');
const prompts = [];
for (let i = 0; i < 20000; i++) {
  const r = rnd();
  const body = prose(10 + Math.floor(rnd() * 50));
  if (r < 0.9) prompts.push(body);
  else if (r < 0.98) prompts.push(`${body} the token expires and the password reset page 404s`);
  else prompts.push(`${body} export GITHUB_TOKEN=ghp_${'aB3dE5fG7h'.repeat(4)} and AKIA${'IOSFODNN7EXAMPLE'}`);
}
const fold = (s) => s.replace(/\s+/g, ' ').trim();

function time(label, fn) {
  // warm up, then the median of 7 runs
  fn();
  const t = [];
  for (let k = 0; k < 7; k++) {
    const t0 = process.hrtime.bigint();
    fn();
    t.push(Number(process.hrtime.bigint() - t0));
  }
  t.sort((a, b) => a - b);
  const ns = t[3] / prompts.length;
  console.log(`${label.padEnd(44)} ${(ns / 1000).toFixed(2).padStart(7)} µs/prompt  (${(t[3] / 1e6).toFixed(1)} ms for ${prompts.length})`);
  return ns;
}

let sink = 0;
const base = time('fold only (what the index did per prompt)', () => {
  for (const p of prompts) sink += fold(p).length;
});
const full = time('sanitize (controls + secrets)', () => {
  for (const p of prompts) sink += sanitize(p).length;
});
time('redact only', () => {
  for (const p of prompts) sink += redact(p).length;
});
const s0 = {
  harness: 'claude',
  id: 'x',
  cwd: '/x',
  title: null,
  lastReply: 'done',
  prompts: 1,
  branch: 'main',
  model: 'm',
  started: 1,
  updated: 1,
  file: '/x',
  hidden: false,
  hiddenReason: null,
  parent: null,
  forkedFrom: null,
};
time('sanitizeSession (first+last prompt, reply…)', () => {
  for (const p of prompts) sink += sanitizeSession({ ...s0, firstPrompt: p, lastPrompt: p }).prompts;
});
console.log(`sanitize / fold: ${(full / base).toFixed(2)}x${sink ? '' : ' '}`);
