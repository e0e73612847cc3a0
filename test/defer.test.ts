// Assistant lines put off to the end of their file (LineReader.settle: pi and Claude Code decode only
// the last ones, for the model and the last reply) must give what decoding every line in turn gives:
// the same sessions and the same stored state, for every pi and Claude fixture (the recorded real
// ones among them), for files made to catch the order rules, and for a file read in two parts at
// any line, as an append reads it.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { skippable as claudeSkippable } from '../lib/harness/claude/index.js';
import { type AnyAdapter, adapter } from '../lib/harness/registry.js';
import { readLines } from '../lib/index/lines.js';
import { runJob } from '../lib/index/parse.js';
import type { Ctx, Harness, LineState, Source } from '../lib/types.js';
import { sanitizeSession } from '../lib/util/redact.js';
import { FIXTURES, jsonl, must, tempHome, write } from './helpers.js';

const ctx = { home: '/nonexistent', env: {} } as unknown as Ctx;
const src = (harness: Harness, p: string): Source => ({ path: p, harness, kind: 'session', mode: 'lines' });
const copy = <T>(v: T): T => JSON.parse(JSON.stringify(v)) as T;

/** The adapter's line parser, bound (every harness of these fixtures has one). */
function parser(a: AnyAdapter) {
  const r = a.lines;
  if (!r) throw new Error(`${a.name} has no line reader`);
  return { begin: r.begin.bind(r), line: r.line.bind(r), wantLong: r.wantLong?.bind(r) };
}

/** Every line decoded in turn: `line` without offsets puts nothing off. */
function plain(harness: Harness, file: string) {
  const a = adapter(harness);
  const p = parser(a);
  const s = src(harness, file);
  const st = p.begin(s);
  const want = p.wantLong;
  const size = fs.statSync(file).size;
  const r = readLines(file, 0, size, (buf, start, end, complete) => p.line(st, { buf, start, end, complete }), {
    wantLong: want ? (h) => want(st, h) : undefined,
  });
  return { offset: r.offset, state: copy(st), sessions: a.sessions(st, s).map((s) => sanitizeSession(s)) };
}

/** As the index reads a file: from `from` with a stored state, lines put off and settled. */
async function indexed(harness: Harness, file: string, from = 0, state: LineState | null = null, size = fs.statSync(file).size) {
  const r = await runJob({ src: src(harness, file), size, from, state }, ctx);
  expect(r.error).toBeUndefined();
  return { offset: r.offset, state: copy(r.state), sessions: r.sessions };
}

function fixtures(dir: string, out: string[] = []): string[] {
  for (const d of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, d.name);
    if (d.isDirectory()) fixtures(p, out);
    else if (d.name.endsWith('.jsonl')) out.push(p);
  }
  return out;
}

const harnessOf = (p: string): Harness | null =>
  /\/(pi|pi-[\d.]+)\//.test(p) ? 'pi' : /\/(claude|claude-[\d.]+)\//.test(p) ? 'claude' : null;

describe('assistant lines put off to the end of the file', () => {
  it('give the sessions and state of decoding every line, for every pi and Claude fixture', async () => {
    const files = fixtures(FIXTURES).filter((p) => harnessOf(p) && !p.includes('/history.'));
    expect(files.filter((p) => harnessOf(p) === 'pi').length).toBeGreaterThan(3);
    expect(files.filter((p) => p.includes('/real/claude-')).length).toBeGreaterThan(3);
    let replies = 0;
    for (const f of files) {
      const h = must(harnessOf(f));
      const want = plain(h, f);
      expect(await indexed(h, f), f).toEqual(want);
      replies += want.sessions.filter((s) => s.lastReply).length;
    }
    expect(replies).toBeGreaterThan(8);
  });

  it('only ever reads back an assistant record (Claude Code: the bytes that tell one)', async () => {
    // every line of the Claude fixtures: a record put off must decode as an assistant record
    const p = parser(adapter('claude'));
    for (const f of fixtures(FIXTURES).filter((p) => harnessOf(p) === 'claude' && !p.includes('/history.'))) {
      const st = { ...p.begin(src('claude', f)), entrypoint: 'cli' };
      const bytes = fs.readFileSync(f);
      readLines(f, 0, bytes.length, (buf, start, end, complete, at) => p.line(st, { buf, start, end, complete, at }));
      const d = (st.deferred ?? []) as number[];
      for (let i = 0; i < d.length; i += 2) expect(JSON.parse(bytes.toString('utf8', d[i], d[i] + d[i + 1])).type, f).toBe('assistant');
    }
  });

  const piFile = (home: string) => {
    const head = { type: 'session', version: 3, id: 'p1', timestamp: '2026-05-01T10:00:00.000Z', cwd: '/w/p' };
    let n = 0;
    const msg = (message: Record<string, unknown>, ts: string) => ({
      type: 'message',
      id: `m${++n}`,
      parentId: null,
      timestamp: ts,
      message,
    });
    const text = (t: string) => [{ type: 'text', text: t }];
    return write(
      home,
      'p.jsonl',
      jsonl(
        head,
        msg({ role: 'user', content: text('start here'), timestamp: Date.parse('2026-05-01T10:00:05.000Z') }, '2026-05-01T10:00:05.000Z'),
        msg(
          { role: 'assistant', content: text('first reply'), model: 'model-a', timestamp: Date.parse('2026-05-01T10:00:06.500Z') },
          '2026-05-01T10:00:07.000Z',
        ),
        msg(
          {
            role: 'assistant',
            content: [{ type: 'toolCall', id: 'c1', name: 'bash', arguments: { type: 'text', text: 'not a reply' } }],
            model: 'model-b',
            timestamp: 1777629608000,
          },
          '2026-05-01T10:00:08.000Z',
        ),
        msg(
          { role: 'toolResult', toolCallId: 'c1', toolName: 'bash', content: text('output'), timestamp: 1777629609000 },
          '2026-05-01T10:00:09.000Z',
        ),
        { type: 'model_change', id: 'mc', parentId: null, timestamp: '2026-05-01T10:00:10.000Z', provider: 'x', modelId: 'model-c' },
        msg({ role: 'assistant', content: text('   '), timestamp: 1777629611000 }, '2026-05-01T10:00:11.000Z'),
        msg({ role: 'user', content: text('go on'), timestamp: 1777629612000 }, '2026-05-01T10:00:12.000Z'),
        msg(
          {
            role: 'assistant',
            content: [
              { type: 'thinking', thinking: 'hm' },
              { type: 'text', text: 'second\nreply' },
            ],
            timestamp: 1777629613000,
          },
          '2026-05-01T10:00:13.000Z',
        ),
        msg({ role: 'assistant', content: [], model: 'model-d', timestamp: 1777629614000 }, '2026-05-01T10:00:14.000Z'),
        { type: 'model_change', id: 'mc2', parentId: null, timestamp: '2026-05-01T10:00:15.000Z', provider: 'x', modelId: '' },
        msg(
          { role: 'assistant', content: [{ type: 'image', data: 'x' }], timestamp: 1777629616000, responseId: 'r1' },
          '2026-05-01T10:00:16.000Z',
        ),
      ),
    );
  };

  const claudeFile = (home: string) => {
    const base = { sessionId: 'c1', cwd: '/w/c', version: '2.1.0', gitBranch: 'main', entrypoint: 'cli', isSidechain: false };
    let n = 0;
    const rec = (type: string, message: Record<string, unknown>, ts: string) => ({
      parentUuid: null,
      ...base,
      type,
      message,
      uuid: `u${++n}`,
      timestamp: ts,
    });
    return write(
      home,
      'c.jsonl',
      jsonl(
        { type: 'summary', summary: 'old title', leafUuid: 'x' },
        rec('user', { role: 'user', content: 'start here' }, '2026-05-01T10:00:05.000Z'),
        rec(
          'assistant',
          { id: 'a', type: 'message', role: 'assistant', model: 'claude-x', content: [{ type: 'text', text: 'first reply' }] },
          '2026-05-01T10:00:06.000Z',
        ),
        rec(
          'assistant',
          {
            id: 'a',
            type: 'message',
            role: 'assistant',
            model: 'claude-y',
            content: [
              { type: 'tool_use', id: 't', name: 'Bash', input: { type: 'text', text: 'x', timestamp: '2030-01-01T00:00:00.000Z' } },
            ],
          },
          '2026-05-01T10:00:07.000Z',
        ),
        rec('user', { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't', content: 'out' }] }, '2026-05-01T10:00:08.000Z'),
        rec(
          'assistant',
          { id: 'b', type: 'message', role: 'assistant', model: '<synthetic>', content: [{ type: 'text', text: 'API Error' }] },
          '2026-05-01T10:00:09.000Z',
        ),
      ),
    );
  };

  it('keep the order rules: the newest model (after a model change), the newest reply with text, a synthetic one never', async () => {
    const home = tempHome();
    const p = await indexed('pi', piFile(home));
    expect(p).toEqual(plain('pi', piFile(home)));
    expect(p.sessions[0]).toMatchObject({ model: 'model-d', lastReply: 'second reply', updated: 1777629616000 });
    const c = await indexed('claude', claudeFile(home));
    expect(c).toEqual(plain('claude', claudeFile(home)));
    expect(c.sessions[0]).toMatchObject({ model: 'claude-y', lastReply: 'first reply', updated: Date.parse('2026-05-01T10:00:09.000Z') });
  });

  it('give the same when a file is read in two parts, at any line (an append)', async () => {
    const home = tempHome();
    for (const [h, f] of [
      ['pi', piFile(home)],
      ['claude', claudeFile(home)],
    ] as const) {
      const whole = await indexed(h, f);
      const bytes = fs.readFileSync(f);
      for (let cut = bytes.indexOf(10) + 1; cut > 0 && cut < bytes.length; cut = bytes.indexOf(10, cut) + 1) {
        const first = await indexed(h, f, 0, null, cut);
        expect(first.state.deferred).toBeUndefined();
        expect(await indexed(h, f, first.offset, first.state), `${h} cut at ${cut}`).toEqual(whole);
      }
    }
  });
});

/** The lines the skip is tried on: every line of the Claude fixtures, and lines made around each limit. */
function skippableCases(): Buffer[] {
  const lines: Buffer[] = [];
  for (const f of fixtures(FIXTURES).filter((p) => harnessOf(p) === 'claude')) {
    for (const l of fs.readFileSync(f).toString('latin1').split('\n')) if (l) lines.push(Buffer.from(l, 'latin1'));
  }
  // keys placed around each limit: the key ending just within and just past it
  const keys = [
    '"type":"tool_result"',
    '"type":"progress"',
    '"type":"file-history-snapshot"',
    '"type":"api-request-blob"',
    '"type":"tool_use"',
    '"type":"assistant"',
    '"type":"type":"tool_result"',
  ];
  for (const k of keys) {
    for (const lim of [64, 2048, 4096]) {
      for (const d of [-2, -1, 0, 1]) {
        const pad = Math.max(0, lim - Buffer.byteLength(k) + d);
        lines.push(Buffer.from(`{"x":"${'a'.repeat(Math.max(0, pad - 6))}",${k}}`));
        lines.push(Buffer.from(`{"x":"${'a'.repeat(Math.max(0, pad - 6))}",${k},"type":"tool_use","type":"assistant"}`));
      }
    }
  }
  return lines;
}

describe('Claude Code\'s skipped records, told in one pass over the `"type":"` keys', () => {
  // the plain definition: each whole key searched for, counted when it ends within its limit
  const plainSkippable = (buf: Buffer, start: number, end: number, big: boolean): boolean => {
    const head = buf.subarray(start, Math.min(end, start + 4096));
    const within = (k: string, lim: number) => {
      const i = head.indexOf(Buffer.from(k));
      return i >= 0 && i + Buffer.byteLength(k) <= lim;
    };
    return (
      within('"type":"tool_result"', 2048) ||
      within('"type":"progress"', 2048) ||
      within('"type":"file-history-snapshot"', 64) ||
      within('"type":"api-request', 64) ||
      (big && within('"type":"tool_use"', 4096) && within('"type":"assistant"', 4096))
    );
  };

  it('skips what a search for each whole key skips, on every fixture line and at every limit', () => {
    const lines = skippableCases();
    let skipped = 0;
    for (const b of lines) {
      for (const big of [false, true]) {
        expect(claudeSkippable(b, 0, b.length, big), b.toString('latin1', 0, 120)).toBe(plainSkippable(b, 0, b.length, big));
        if (claudeSkippable(b, 0, b.length, big)) skipped++;
      }
      // and within a larger buffer, at an offset
      const wide = Buffer.concat([Buffer.from('{"type":"tool_result"}\n'), b, Buffer.from('\n{"type":"progress"}')]);
      expect(claudeSkippable(wide, 23, 23 + b.length, true)).toBe(plainSkippable(b, 0, b.length, true));
    }
    expect(skipped).toBeGreaterThan(50);
  });
});
