#!/usr/bin/env node
// Deterministic generator of a seed-shaped corpus: 686 session files (634 pi, 52 Claude Code)
// across 98 project directories, ~1.2 GiB, heavy-tailed file sizes with multi-megabyte
// tool-result lines; 147 pi workers under subagents/, 90 one-prompt print runs, 4 Claude SDK
// sessions. Same seed → same bytes.
//
//   node bench/gen.mjs [OUT_HOME] [--scale 0.1] [--sessions N] [--gib G] [--heavy]
//
// OUT_HOME defaults to bench/corpus/home. --scale shrinks every file (for quick runs).
// --sessions N: N session files instead of the seed's 686 — 64% pi (a quarter of them workers
// under subagents/), 24% Claude Code, 12% Codex rollouts under sessions/YYYY/MM/DD/ — across
// N/26 project directories (22,000 → 846 projects, ~2,900 directories in all). Every 20th Codex
// rollout is a fork of the one before (forked_from_id, the parent's first prompts copied), and
// session_index.jsonl names every thread (its first words, as Codex's auto title), a few twice
// (a rename).
// --gib G: total size (default 1.2). --heavy: assistant- and tool-heavy transcripts (many short
// assistant and tool lines, few big tool outputs), where decoding lines the listing never shows
// is most of the parse.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const args = process.argv.slice(2);
const scaleAt = args.indexOf('--scale');
const SCALE = scaleAt >= 0 ? Number(args.splice(scaleAt, 2)[1]) : 1;
const numOpt = (name) => {
  const i = args.indexOf(name);
  return i >= 0 ? Number(args.splice(i, 2)[1]) : null;
};
const SESSIONS = numOpt('--sessions');
const GIB = numOpt('--gib') ?? 1.2;
const heavyAt = args.indexOf('--heavy');
const HEAVY = heavyAt >= 0 && !!args.splice(heavyAt, 1);
const OUT = path.resolve(args[0] ?? path.join(here, 'corpus', 'home'));

const TOTAL_BYTES = Math.round(GIB * 1024 ** 3 * SCALE);
const N = SESSIONS ?? 686;
const DIRS = SESSIONS ? Math.max(1, Math.round(N / 26)) : 98;
const CODEX = SESSIONS ? Math.round(N * 0.12) : 0;
const CLAUDE = SESSIONS ? Math.round(N * 0.24) : 52;
const PI = N - CODEX - CLAUDE;
const PI_WORKERS = SESSIONS ? Math.round(PI * 0.25) : 147;
const PI_PRINT = SESSIONS ? Math.round(PI * 0.14) : 90;
const CLAUDE_SDK = SESSIONS ? Math.round(CLAUDE * 0.08) : 4;

// mulberry32: small, deterministic PRNG
let seed = 0x5eed1234;
function rand() {
  seed |= 0;
  seed = (seed + 0x6d2b79f5) | 0;
  let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
}
const pick = (a) => a[Math.floor(rand() * a.length)];
const hex = (n) => Array.from({ length: n }, () => Math.floor(rand() * 16).toString(16)).join('');
const uuid = () => `${hex(8)}-${hex(4)}-4${hex(3)}-8${hex(3)}-${hex(12)}`;

const WORDS = (
  'the webhook retry handler fails when the queue is empty so we add a backoff and a test for the ' +
  'parser index cache offset file session resume directory branch commit refactor module config ' +
  'error message stack trace build lint type check deploy database migration schema query endpoint'
).split(' ');
const sentence = (n) => Array.from({ length: n }, () => pick(WORDS)).join(' ');

// One block of tool-output-like text (JSON-safe), sliced for big lines without regenerating.
const BLOCK = (() => {
  const lines = [];
  let len = 0;
  while (len < 9 << 20) {
    const l = `${hex(6)}  ${sentence(12)} ./src/${pick(WORDS)}/${pick(WORDS)}.ts:${Math.floor(rand() * 999)}`;
    lines.push(l);
    len += l.length + 2;
  }
  return lines.join('\\n');
})();
const blob = (n) => {
  const start = Math.floor(rand() * Math.max(1, BLOCK.length - n - 2));
  let s = BLOCK.slice(start, start + n);
  if (s.endsWith('\\')) s = s.slice(0, -1);
  return s;
};

// Heavy-tailed sizes: Pareto(alpha 1.1), capped, normalised to the total.
function sizes(n) {
  const raw = Array.from({ length: n }, () => Math.min(60, (1 - rand()) ** (-1 / 1.1)));
  const sum = raw.reduce((a, b) => a + b, 0);
  return raw.map((r) => Math.max(2048, Math.round((r / sum) * TOTAL_BYTES)));
}

const dirs = Array.from(
  { length: DIRS },
  (_, i) => `/home/bench/src/${pick(['api', 'web', 'cli', 'lib', 'infra', 'docs'])}-${String(i).padStart(2, '0')}`,
);
const piEnc = (cwd) => `--${cwd.replace(/^[/\\]/, '').replace(/[/\\:]/g, '-')}--`;
const claudeSlug = (cwd) => cwd.replace(/[^a-zA-Z0-9]/g, '-');

let clock = Date.parse('2026-06-01T00:00:00.000Z');
const tick = (ms) => (clock += ms);
const iso = (ms) => new Date(ms).toISOString();

function writeFile(file, chunks) {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, chunks.join(''));
  // the file's mtime is its last write, a second after its newest time stamp, as a harness leaves
  // it (a cold `rows` streams by file times: generation-time mtimes would hold every row to the end)
  let last = 0;
  for (const c of chunks.slice(-3))
    for (const m of c.matchAll(/"timestamp":"(\d{4}-[^"]+)"/g)) last = Math.max(last, Date.parse(m[1]) || 0);
  if (last > 0) fs.utimesSync(file, (last + 1000) / 1000, (last + 1000) / 1000);
}

// Tool output size: in the default mode mostly small and sometimes multi-megabyte; in --heavy mode
// short (assistant- and tool-heavy: many lines, each decoded by a naive parser).
function toolSize(remaining, bigP) {
  if (HEAVY) return Math.max(100, Math.min(remaining - 300, 300 + Math.floor(rand() * 3000)));
  const big = rand() < bigP && remaining > 1 << 20;
  return Math.max(200, Math.min(remaining - 300, big ? (1 << 20) + Math.floor(rand() * 7 * (1 << 20)) : 2000 + Math.floor(rand() * 60000)));
}

function piFile(kind, target) {
  const cwd = pick(dirs);
  const id = uuid();
  const t0 = tick(60_000 + Math.floor(rand() * 3_600_000));
  const ts = iso(t0).replace(/[:.]/g, '-');
  const sub = kind === 'worker' ? 'subagents' : '';
  const file = path.join(OUT, '.pi/agent/sessions', piEnc(cwd), sub, `${ts}_${id}.jsonl`);
  const out = [`${JSON.stringify({ type: 'session', version: 3, id, timestamp: iso(t0), cwd })}\n`];
  let size = out[0].length;
  let t = t0;
  let parent = null;
  const entry = (o) => {
    const id8 = hex(8);
    // pi's own key order: type, id, parentId, timestamp, then the entry's fields (pi 0.73.1)
    const line = `${JSON.stringify({ type: o.type, id: id8, parentId: parent, timestamp: iso(t), ...o })}\n`;
    parent = id8;
    out.push(line);
    size += line.length;
  };
  const user = (text) => entry({ type: 'message', message: { role: 'user', content: [{ type: 'text', text }], timestamp: t } });
  const prompts = kind === 'print' ? 1 : 2 + Math.floor(rand() * 30);
  for (let p = 0; p < prompts || size < target; p++) {
    t += 5000 + Math.floor(rand() * 60000);
    if (p < prompts) user(`${sentence(6 + Math.floor(rand() * 40))}?`);
    t += 2000;
    entry({
      type: 'message',
      message: {
        role: 'assistant',
        content: [
          { type: 'text', text: sentence(20) },
          { type: 'toolCall', id: `call_${hex(8)}`, name: 'bash', arguments: { command: `rg ${pick(WORDS)} src` } },
        ],
        provider: 'anthropic',
        model: 'claude-sonnet-4-5',
        timestamp: t,
      },
    });
    const remaining = target - size;
    if (remaining <= 0 && p >= prompts - 1) break;
    // tool results: mostly small, sometimes multi-megabyte
    const n = toolSize(remaining, 0.08);
    if (HEAVY)
      entry({
        type: 'message',
        message: {
          role: 'assistant',
          content: [
            { type: 'thinking', thinking: sentence(40) },
            { type: 'text', text: sentence(30) },
          ],
          provider: 'anthropic',
          model: 'claude-sonnet-4-5',
          timestamp: t,
        },
      });
    entry({
      type: 'message',
      message: {
        role: 'toolResult',
        toolCallId: `call_${hex(8)}`,
        toolName: 'bash',
        content: [{ type: 'text', text: blob(n) }],
        isError: false,
        timestamp: t,
      },
    });
    if (p >= prompts && size >= target) break;
  }
  if (kind === 'named') entry({ type: 'session_info', name: sentence(4) });
  writeFile(file, out);
}

function claudeFile(sdk, target) {
  const cwd = pick(dirs);
  const id = uuid();
  const file = path.join(OUT, '.claude/projects', claudeSlug(cwd), `${id}.jsonl`);
  let t = tick(60_000 + Math.floor(rand() * 3_600_000));
  const env = {
    isSidechain: false,
    userType: 'external',
    cwd,
    sessionId: id,
    version: '2.1.207',
    gitBranch: pick(['main', 'feat/retry', 'fix/parser']),
    entrypoint: sdk ? 'sdk-cli' : 'cli',
  };
  const out = [];
  let size = 0;
  let parent = null;
  const push = (o) => {
    const uuidv = uuid();
    const line = `${JSON.stringify({ parentUuid: parent, ...env, ...o, uuid: uuidv, timestamp: iso(t) })}\n`;
    parent = uuidv;
    out.push(line);
    size += line.length;
  };
  const prompts = 2 + Math.floor(rand() * 25);
  for (let p = 0; size < target || p < prompts; p++) {
    t += 5000 + Math.floor(rand() * 60000);
    if (p < prompts) push({ type: 'user', message: { role: 'user', content: sentence(8 + Math.floor(rand() * 40)) } });
    t += 1500;
    const tu = `toolu_${hex(20)}`;
    push({
      type: 'assistant',
      message: {
        model: 'claude-opus-4-5',
        id: `msg_${hex(20)}`,
        type: 'message',
        role: 'assistant',
        content: [{ type: 'tool_use', id: tu, name: 'Bash', input: { command: `rg -n ${pick(WORDS)}` } }],
      },
    });
    const remaining = target - size;
    const n = Math.max(200, toolSize(remaining - 300, 0.1));
    const text = blob(n);
    push({
      type: 'user',
      message: { role: 'user', content: [{ tool_use_id: tu, type: 'tool_result', content: text, is_error: false }] },
      toolUseResult: { stdout: text.slice(0, 2000), stderr: '' },
    });
    t += 1500;
    push({
      type: 'assistant',
      message: {
        model: 'claude-opus-4-5',
        id: `msg_${hex(20)}`,
        type: 'message',
        role: 'assistant',
        content: [{ type: 'text', text: sentence(30) }],
      },
    });
    if (p >= prompts && size >= target) break;
  }
  out.push(`${JSON.stringify({ type: 'ai-title', aiTitle: sentence(5), sessionId: id })}\n`);
  writeFile(file, out);
}

// A Codex CLI rollout: sessions/YYYY/MM/DD/rollout-<local time>-<uuid>.jsonl. `parent`: a thread it
// is a fork of (the rollout starts with its first prompts copied; no random draws, so the files
// after it are the same bytes as without forks).
const codexThreads = [];
function codexFile(target, parent) {
  const cwd = pick(dirs);
  const id = uuid();
  let t = tick(60_000 + Math.floor(rand() * 3_600_000));
  const d = new Date(t);
  const day = `${d.getUTCFullYear()}/${String(d.getUTCMonth() + 1).padStart(2, '0')}/${String(d.getUTCDate()).padStart(2, '0')}`;
  const file = path.join(OUT, '.codex/sessions', day, `rollout-${iso(t).slice(0, 19).replace(/:/g, '-')}-${id}.jsonl`);
  const out = [];
  let size = 0;
  const push = (type, payload) => {
    const line = `${JSON.stringify({ timestamp: iso(t), type, payload })}\n`;
    out.push(line);
    size += line.length;
  };
  push('session_meta', {
    id,
    timestamp: iso(t),
    cwd,
    originator: 'codex_cli_rs',
    cli_version: '0.146.0',
    source: 'cli',
    model_provider: 'openai',
    base_instructions: { text: sentence(200) },
    git: { branch: pick(['main', 'feat/retry']) },
    ...(parent ? { forked_from_id: parent.id } : {}),
  });
  for (const text of parent?.prompts.slice(0, 3) ?? [])
    out.push(`${JSON.stringify({ timestamp: iso(t), type: 'event_msg', payload: { type: 'user_message', message: text, images: [] } })}\n`);
  push('turn_context', { cwd, model: 'gpt-5.6', approval_policy: 'never', sandbox_policy: { type: 'workspace-write' } });
  const prompts = 1 + Math.floor(rand() * 20);
  const own = [];
  codexThreads.push({ id, t, prompts: own });
  for (let p = 0; size < target || p < prompts; p++) {
    t += 5000 + Math.floor(rand() * 60000);
    if (p < prompts) {
      const text = `${sentence(6 + Math.floor(rand() * 40))}?`;
      own.push(text);
      push('event_msg', { type: 'user_message', message: text, images: [] });
      push('response_item', { type: 'message', role: 'user', content: [{ type: 'input_text', text }] });
    }
    push('response_item', {
      type: 'reasoning',
      summary: [{ type: 'summary_text', text: sentence(20) }],
      encrypted_content: hex(HEAVY ? 1200 : 200),
    });
    const call = `call_${hex(12)}`;
    push('response_item', {
      type: 'function_call',
      name: 'exec_command',
      arguments: JSON.stringify({ cmd: `rg ${pick(WORDS)} src` }),
      call_id: call,
    });
    push('response_item', { type: 'function_call_output', call_id: call, output: blob(toolSize(target - size, 0.08)) });
    const reply = sentence(25);
    push('event_msg', { type: 'agent_message', message: reply });
    push('response_item', { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: reply }] });
    if (p >= prompts && size >= target) break;
  }
  writeFile(file, out);
}

fs.rmSync(OUT, { recursive: true, force: true });
const all = sizes(PI + CLAUDE + CODEX);
const kinds = [
  ...Array(PI_WORKERS).fill('worker'),
  ...Array(PI_PRINT).fill('print'),
  ...Array(PI - PI_WORKERS - PI_PRINT)
    .fill(null)
    .map(() => (rand() < 0.3 ? 'named' : 'plain')),
];
// The seed shape keeps its original order (same bytes as before); a scaled corpus interleaves the
// harnesses so every one gets files of every size and age.
if (!SESSIONS) {
  for (let i = 0; i < PI; i++) piFile(kinds[i], all[i]);
  for (let i = 0; i < CLAUDE; i++) claudeFile(i < CLAUDE_SDK, all[PI + i]);
}
let pi = SESSIONS ? 0 : PI;
let cl = SESSIONS ? 0 : CLAUDE;
let cx = 0;
for (let i = SESSIONS ? 0 : all.length; i < all.length; i++) {
  const r = rand() * (PI - pi + CLAUDE - cl + CODEX - cx);
  if (r < PI - pi) piFile(kinds[pi++], all[i]);
  else if (r < PI - pi + CLAUDE - cl) claudeFile(cl++ < CLAUDE_SDK, all[i]);
  else {
    codexFile(all[i], cx % 20 === 19 ? codexThreads.at(-1) : undefined);
    cx++;
  }
}
// Codex's thread names: one per thread (its first words), every 15th renamed later.
if (codexThreads.length) {
  const lines = [];
  const name = (id, thread_name, at) => lines.push(`${JSON.stringify({ id, thread_name, updated_at: iso(at) })}\n`);
  codexThreads.forEach((c, k) => {
    name(c.id, (c.prompts[0] ?? 'untitled').split(' ').slice(0, 5).join(' '), c.t + 20_000);
    if (k % 15 === 14) name(c.id, `renamed thread ${k}`, c.t + 120_000);
  });
  writeFile(path.join(OUT, '.codex', 'session_index.jsonl'), lines);
}

let bytes = 0;
let files = 0;
let ndirs = 0;
const walk = (d) => {
  ndirs++;
  for (const e of fs.readdirSync(d, { withFileTypes: true })) {
    const p = path.join(d, e.name);
    if (e.isDirectory()) walk(p);
    else {
      files++;
      bytes += fs.statSync(p).size;
    }
  }
};
walk(OUT);
process.stderr.write(`corpus: ${files} files in ${ndirs} directories, ${(bytes / 1024 ** 3).toFixed(2)} GiB in ${OUT}\n`);
