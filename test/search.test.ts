// resume search: real transcripts in temp HOMEs, searched through the built CLI; extractors and
// the scanner exercised directly where the CLI cannot show the difference.

import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { ScanOut } from '../lib/search/pool.js';
import { byteKey, parseQuery } from '../lib/search/query.js';
import { EXTRACTORS, HOOKS, loadExtractors } from '../lib/search/registry.js';
import { LINE_BARE, LINE_FIRST, type Reader, rawText, scanLines } from '../lib/search/scan.js';
import { makeSnippet, marked } from '../lib/search/snippet.js';
import type { Piece } from '../lib/search/types.js';
import type { Session } from '../lib/types.js';
import { redact } from '../lib/util/redact.js';
import { BIN, envFor, FIXTURES, jsonl, must, put, ROOT, run, tempHome, write } from './helpers.js';
import type { Decoded, Found, Listed } from './json.js';

function home(): string {
  const h = tempHome('resume-search-');
  return h;
}

// ---- Claude Code transcript builders -------------------------------------------------------

/** A Reader over an in-memory file, handing out at most `step` bytes a read (odd sizes put lines across reads). */
function memReader(data: Buffer, step = Infinity): Reader {
  let pos = 0;
  return (buf, off, len) => {
    const n = Math.min(len, data.length - pos, step);
    data.copy(buf, off, pos, pos + n);
    pos += n;
    return n;
  };
}

const CWD = '/w/proj';
let seq = 0;
function env(type: string, ts: string, extra: Record<string, unknown> = {}) {
  return {
    type,
    uuid: `u${++seq}`,
    parentUuid: null,
    isSidechain: false,
    userType: 'external',
    cwd: CWD,
    sessionId: 's',
    version: '2.1.200',
    gitBranch: 'main',
    entrypoint: 'cli',
    timestamp: ts,
    ...extra,
  };
}
const user = (text: string, ts: string, extra: Record<string, unknown> = {}) =>
  env('user', ts, { message: { role: 'user', content: text }, ...extra });
const reply = (text: string, ts: string, extra: Record<string, unknown> = {}) =>
  env('assistant', ts, { message: { role: 'assistant', model: 'claude-x', content: [{ type: 'text', text }] }, ...extra });
const toolUse = (name: string, input: unknown, ts: string, extra: Record<string, unknown> = {}) =>
  env('assistant', ts, {
    message: { role: 'assistant', model: 'claude-x', content: [{ type: 'tool_use', id: `t${seq}`, name, input }] },
    ...extra,
  });
const toolResult = (text: string, ts: string) =>
  env('user', ts, {
    message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't', content: text }] },
    toolUseResult: { stdout: text },
  });

function claude(h: string, id: string, lines: unknown[], cwdSlug = '-w-proj'): string {
  return write(h, `.claude/projects/${cwdSlug}/${id}.jsonl`, jsonl(...lines));
}

const ID = (n: number) => `${String(n).repeat(8)}-1111-4111-8111-111111111111`;

/** A session that writes the narwhal exporter, and a fork of it: its turns copied (`forkedFrom`), then `more`. */
function narwhalFork(h: string, P: string, F: string, more: unknown[]): void {
  const pl = [
    user('implement the narwhal exporter', '2026-01-04T10:00:00Z'),
    toolUse('Write', { file_path: '/w/proj/src/narwhal.ts', content: 'export function narwhalExporter() {}' }, '2026-01-04T10:00:05Z'),
    reply('The narwhal exporter is in src/narwhal.ts.', '2026-01-04T10:00:09Z'),
  ];
  claude(h, P, pl);
  claude(h, F, [...pl.map((l) => ({ ...l, sessionId: F, forkedFrom: { sessionId: P, messageUuid: l.uuid } })), ...more]);
}

function searchJson(h: string, args: string[], extra: Record<string, string> = {}): Found[] {
  const r = run(h, ['search', '--json', ...args], extra);
  expect(r.code, r.stderr).toBe(0);
  return JSON.parse(r.stdout);
}

/** The keys of `search --rows QUERY`'s rows, best first. */
function rowKeys(h: string, query: string): string[] {
  const r = run(h, ['search', '--rows', query]);
  expect(r.code, r.stderr).toBe(0);
  return r.stdout
    .split('\n')
    .filter(Boolean)
    .map((l) => l.split('\t')[0]);
}

// ---------------------------------------------------------------------------------------------

describe('what is searched', () => {
  it('finds words that appear only in a later turn, as words and as a quoted phrase', () => {
    const h = home();
    claude(h, ID(1), [
      user('set up the repository skeleton', '2026-01-01T10:00:00Z'),
      reply('Done: package.json and tsconfig.', '2026-01-01T10:00:05Z'),
      user('now make the Flamingo importer idempotent', '2026-01-01T10:10:00Z'),
      reply('I made it skip rows it has already seen.', '2026-01-01T10:10:30Z'),
    ]);
    const [r] = searchJson(h, ['flamingo', 'IMPORTER']);
    expect(r.id).toBe(ID(1));
    expect(r.harness).toBe('claude');
    expect(r.evidence[0].role).toBe('user');
    expect(r.evidence[0].text).toContain('Flamingo importer idempotent');
    const m = r.evidence[0].matches[0];
    expect(r.evidence[0].text.slice(m[0], m[1])).toBe('Flamingo');

    expect(searchJson(h, ['"flamingo importer"'])).toHaveLength(1);
    expect(searchJson(h, ['flamingo importer'])).toHaveLength(1); // one shell-quoted argument = a phrase
    const miss = run(h, ['search', '"importer flamingo"']);
    expect(miss.code).toBe(1);
    expect(miss.stdout).toBe('');
    expect(miss.stderr).toMatch(/^resume: no session mentions/);
    // every word must appear in the session
    expect(run(h, ['search', 'flamingo', 'pelican']).code).toBe(1);
    // narrowed by filters to nothing: the message names them (the word is not nowhere, only older)
    const old = run(h, ['search', '--since', '1d', '--harness', 'claude', 'flamingo']);
    expect(old.code).toBe(1);
    expect(old.stderr).toBe('resume: no session mentions flamingo with --harness claude --since 1d\n');
    expect(run(h, ['search', '--until', '2026-01-02', 'flamingo']).code).toBe(0);
  });

  it('finds text that appears only in tool-call arguments (a command, a file write)', () => {
    const h = home();
    claude(h, ID(2), [
      user('deploy it please', '2026-01-02T10:00:00Z'),
      toolUse('Bash', { command: 'kubectl rollout restart deploy/zebrafish-api', description: 'restart' }, '2026-01-02T10:00:02Z'),
      toolResult('deployment.apps restarted', '2026-01-02T10:00:03Z'),
      toolUse('Write', { file_path: '/w/proj/src/lemur.ts', content: 'export const lemurCount = 3;\n' }, '2026-01-02T10:00:04Z'),
    ]);
    const [r] = searchJson(h, ['zebrafish']);
    expect(r.id).toBe(ID(2));
    expect(r.evidence[0].role).toBe('tool-call');
    expect(r.evidence[0].text).toContain('kubectl rollout restart deploy/zebrafish-api');
    const [w] = searchJson(h, ['lemurCount']);
    expect(w.evidence[0].role).toBe('tool-call');
    expect(w.kind).toBe('original'); // the tool call that wrote the file
  });

  it('reports a hit in a subagent transcript on its parent, with the subagent path as evidence', () => {
    const h = home();
    claude(h, ID(3), [
      user('investigate the flaky test suite', '2026-01-03T10:00:00Z'),
      toolUse('Task', { description: 'dig', prompt: 'look into the failing spec' }, '2026-01-03T10:00:01Z'),
    ]);
    const sub = write(
      h,
      `.claude/projects/-w-proj/${ID(3)}/subagents/agent-a1b2c3.jsonl`,
      jsonl(
        user('Find why quokkaspec fails on CI', '2026-01-03T10:00:02Z', { isSidechain: true, agentId: 'a1b2c3' }),
        reply('quokkaspec depends on the wall clock.', '2026-01-03T10:00:09Z', { isSidechain: true, agentId: 'a1b2c3' }),
      ),
    );
    const [r] = searchJson(h, ['quokkaspec']);
    expect(r.id).toBe(ID(3));
    expect(r.file).toBe(path.join(h, `.claude/projects/-w-proj/${ID(3)}.jsonl`));
    expect(r.subagentFiles).toEqual([sub]);
    expect(r.evidence[0].subagent).toBe(true);
    expect(r.evidence[0].role).toBe('task'); // the subagent's first user line is the task it was given
    const txt = run(h, ['search', 'quokkaspec']);
    expect(txt.code).toBe(0);
    expect(txt.stdout).toContain(`subagent: ${sub}`);
    expect(txt.stdout).toContain('«quokkaspec»');
    // a subagent is not a session of its own: one result
    expect(txt.stdout.split('\n').filter((l) => /^claude /.test(l))).toHaveLength(1);
  });

  it('finds Claude subagents of the older flat layout (agent-*.jsonl beside the sessions)', () => {
    const h = home();
    claude(h, ID(4), [user('triage the open issues', '2026-01-03T10:00:00Z')]);
    const flat = write(
      h,
      '.claude/projects/-w-proj/agent-f1a2b3.jsonl',
      jsonl(
        user('label every issue about the okapi renderer', '2026-01-03T10:00:02Z', {
          isSidechain: true,
          sessionId: ID(4),
          agentId: 'f1a2b3',
        }),
      ),
    );
    const r = searchJson(h, ['okapi']);
    expect(r.map((x) => x.id)).toEqual([ID(4)]);
    expect(r[0].subagentFiles).toEqual([flat]);
  });

  it('reports a Gemini subagent (chats/<parent id>/) on its parent session', () => {
    const h = home();
    const gdir = path.join(h, '.gemini/tmp/proj');
    write(h, path.join(gdir, '.project_root'), '/w/gemini-proj');
    const pid = 'a1b2c3d4-0000-4000-8000-000000000001';
    const cid = 'c1c2c3c4-0000-4000-8000-000000000002';
    const meta = (id: string, kind: string) => ({
      sessionId: id,
      projectHash: 'x',
      startTime: '2026-03-01T10:00:00.000Z',
      lastUpdated: '2026-03-01T10:05:00.000Z',
      kind,
    });
    const msg = (id: string, type: string, content: string, ts: string) => ({ id, timestamp: ts, type, content });
    write(
      h,
      path.join(gdir, `chats/session-2026-03-01T10-00-${pid.slice(0, 8)}.jsonl`),
      jsonl(meta(pid, 'main'), msg('m1', 'user', 'audit the dependencies', '2026-03-01T10:00:01.000Z')),
    );
    const child = write(
      h,
      path.join(gdir, `chats/${pid}/${cid}.jsonl`),
      jsonl(meta(cid, 'subagent'), msg('s1', 'user', 'check leftpad-ng for the yak advisory', '2026-03-01T10:01:00.000Z')),
    );
    const r = searchJson(h, ['yak', 'advisory']);
    expect(r.map((x) => x.id)).toEqual([pid]);
    expect(r[0].subagentFiles).toEqual([child]);
    expect(r[0].evidence[0].role).toBe('task');
  });

  it('attributes a Codex spawned child (copied parent history) to the parent, once', () => {
    const h = home();
    put(h, 'codex/sessions', '.codex/sessions');
    const r = searchJson(h, ['fixtures', 'synthetic']);
    expect(r.map((x) => x.id)).toEqual(['22222222-2222-4222-8222-222222222222']);
    expect(r[0].subagentFiles[0]).toMatch(/33333333-3333-4333-8333-333333333333\.jsonl$/);
  });
});

describe('ranking', () => {
  it("a fork that copied its parent's turns does not outrank the parent for the copied text", () => {
    const h = home();
    const P = ID(4);
    const F = ID(5);
    // the fork's own turn comes days later (more recent)
    narwhalFork(h, P, F, [user('add a changelog entry for the exporter', '2026-01-09T10:00:00Z'), reply('Added.', '2026-01-09T10:00:03Z')]);
    const r = searchJson(h, ['narwhal', 'exporter']);
    expect(r.map((x) => x.id)).toEqual([P, F]);
    expect(r[0].kind).toBe('original');
    expect(r[1].kind).toBe('follow-up');
    expect(r[1].evidence.some((e) => e.copied)).toBe(true);
    expect(r[0].score).toBeGreaterThan(r[1].score);
  });

  it('a pi fork (copied entries keep their older time stamps) ranks below its source', () => {
    const h = home();
    const dir = '.pi/agent/sessions/--w-proj--';
    const P = '019a0000-0000-7000-8000-000000000001';
    const F = '019a0000-0000-7000-8000-000000000002';
    const entry = (id: string, parentId: string | null, ts: string, role: string, text: string) => ({
      type: 'message',
      id,
      parentId,
      timestamp: ts,
      message:
        role === 'user'
          ? { role, content: [{ type: 'text', text }], timestamp: Date.parse(ts) }
          : { role, content: [{ type: 'text', text }], model: 'm', timestamp: Date.parse(ts) },
    });
    const turns = [
      entry('a1', null, '2026-01-01T10:00:01.000Z', 'user', 'build the walrus scheduler'),
      entry('a2', 'a1', '2026-01-01T10:00:05.000Z', 'assistant', 'The walrus scheduler is in sched.ts.'),
      entry('a3', 'a2', '2026-01-01T10:01:00.000Z', 'user', 'and make the walrus scheduler fair'),
    ];
    const pf = write(
      h,
      `${dir}/2026-01-01T10-00-00-000Z_${P}.jsonl`,
      jsonl({ type: 'session', version: 3, id: P, timestamp: '2026-01-01T10:00:00.000Z', cwd: '/w/proj' }, ...turns),
    );
    write(
      h,
      `${dir}/2026-01-05T10-00-00-000Z_${F}.jsonl`,
      jsonl(
        { type: 'session', version: 3, id: F, timestamp: '2026-01-05T10:00:00.000Z', cwd: '/w/proj', parentSession: pf },
        ...turns,
        entry('b1', 'a3', '2026-01-05T10:00:10.000Z', 'user', 'write the release notes'),
      ),
    );
    const r = searchJson(h, ['walrus', 'scheduler']);
    expect(r.map((x) => x.id)).toEqual([P, F]);
    expect(r[1].evidence.every((e) => e.copied)).toBe(true);
    expect(r[1].kind).toBe('follow-up');
  });

  it('the original work (first request, the write) beats a later session that only mentions it', () => {
    const h = home();
    claude(h, ID(6), [
      user('write the pelican parser for the CSV exports', '2026-01-01T09:00:00Z'),
      toolUse(
        'Write',
        { file_path: '/w/proj/src/pelican.ts', content: '// pelican parser\nexport function parse() {}' },
        '2026-01-01T09:01:00Z',
      ),
    ]);
    claude(h, ID(7), [
      user('fix the lint warnings', '2026-02-01T09:00:00Z'),
      reply('Fixed 3 warnings.', '2026-02-01T09:00:30Z'),
      user('the pelican parser from last month breaks on empty lines, look at it', '2026-02-01T09:10:00Z'),
    ]);
    const r = searchJson(h, ['pelican', 'parser']);
    expect(r.map((x) => x.id)).toEqual([ID(6), ID(7)]);
    expect(r.map((x) => x.kind)).toEqual(['original', 'follow-up']);
    expect(r[0].confidence).toBe('high');
  });

  it('all words in one user prompt beat words scattered over tool output, whatever the recency', () => {
    const h = home();
    claude(h, ID(8), [
      user('check the logs', '2026-03-01T09:00:00Z'),
      toolUse('Bash', { command: 'cat a.log' }, '2026-03-01T09:00:01Z'),
      toolResult('line 1: ocelot started', '2026-03-01T09:00:02Z'),
      toolUse('Bash', { command: 'cat b.log' }, '2026-03-01T09:00:03Z'),
      toolResult('line 9: marmalade stopped', '2026-03-01T09:00:04Z'),
    ]);
    claude(h, ID(9), [user('why does the ocelot service eat the marmalade queue?', '2026-01-15T09:00:00Z')]);
    const r = searchJson(h, ['ocelot', 'marmalade']);
    expect(r.map((x) => x.id)).toEqual([ID(9), ID(8)]);
    expect(r[1].confidence).toBe('low');
    expect(r[1].evidence.every((e) => e.role === 'tool-output')).toBe(true);
  });

  it('recency breaks ties', () => {
    const h = home();
    claude(h, ID(1), [user('tune the heron cache', '2026-01-01T09:00:00Z')]);
    claude(h, ID(2), [user('tune the heron cache', '2026-01-05T09:00:00Z')]);
    const r = searchJson(h, ['heron']);
    // both are first requests with the same words: the newer one first
    expect(r.map((x) => x.id)).toEqual([ID(2), ID(1)]);
  });
});

describe('piece keys', () => {
  it('hash the role and the first 400 characters with white space folded, as the text reads', async () => {
    const { pieceKey } = await import('../lib/search/score.js');
    // what the key stands for, written the plain way
    const ref = (p: Piece) => {
      const t = `${p.role}\u0000${p.text.slice(0, 400).replace(/\s+/g, ' ').trim()}`;
      let a = 0x811c9dc5;
      let b = 5381;
      for (let i = 0; i < t.length; i++) {
        a = Math.imul(a ^ t.charCodeAt(i), 0x01000193);
        b = (Math.imul(b, 33) + t.charCodeAt(i)) | 0;
      }
      return (a >>> 0) * 0x200000 + (b & 0x1fffff);
    };
    const texts = [
      '',
      '   ',
      'plain',
      '  lead and trail \n',
      'a\t\t b\r\n\u00a0c\u2028d\u3000e\ufeff',
      `${'x'.repeat(399)}  y`,
      'é ü 日本 😀  z',
      'w '.repeat(300),
    ];
    for (const text of texts) {
      for (const role of ['user', 'tool-output'] as const) expect(pieceKey({ role, text }), JSON.stringify(text)).toBe(ref({ role, text }));
    }
    expect(pieceKey({ role: 'user', text: 'a  b' })).toBe(pieceKey({ role: 'user', text: ' a\nb ' }));
    expect(pieceKey({ role: 'user', text: 'a b' })).not.toBe(pieceKey({ role: 'assistant', text: 'a b' }));
  });
});

describe('output', () => {
  it('on a terminal the first line of a result keeps to its width: the directory cut from the left; piped, whole', () => {
    const h = home();
    const cwd = '/w/a-rather-long/path/to/the/project-with-a-long-name';
    claude(h, ID(1), [{ ...user('the tapir module', '2026-01-01T09:00:00Z'), cwd }], '-w-long');
    const onTty = (cols: number) =>
      spawnSync('script', ['-qec', `stty cols ${cols}; ${process.execPath} ${BIN} search tapir`, '/dev/null'], {
        env: { ...envFor(h), NO_COLOR: '1' },
        encoding: 'utf8',
      }).stdout.replace(/\r/g, '');
    const first = (out: string) => must(out.split('\n').find((l) => l.startsWith('claude  ')));
    for (const cols of [80, 120]) {
      const line = first(onTty(cols));
      expect(line.length, `${cols}: ${line}`).toBeLessThanOrEqual(cols);
      expect(line).toMatch(/ {2}…?[^ ]*-long-name {2}11111111 {2}original, high confidence$/);
    }
    expect(first(onTty(80))).toMatch(/ {2}…[^ /]*-long-name {2}/);
    expect(first(onTty(120))).toContain(`  ${cwd}  `);
    // narrower than the line with 12 columns of directory: the kind on a row of its own
    const at60 = onTty(60).split('\n');
    const head60 = at60.findIndex((l) => l.startsWith('claude  '));
    expect(at60.slice(head60, head60 + 2)).toEqual([expect.stringMatching(/ {2}…[^ ]*-name {2}11111111$/), '  original, high confidence']);
    expect(must(at60[head60]).length).toBeLessThanOrEqual(60);
    // the resume line keeps the whole path (it is run or copied), and a pipe gets every line whole
    expect(onTty(60)).toContain(`cd ${cwd} && claude --resume`);
    expect(first(run(h, ['search', 'tapir']).stdout)).toContain(`  ${cwd}  `);
  });

  it('on a terminal the evidence is broken at spaces to its width, the rows after the first indented; piped, one line', () => {
    const h = home();
    const text = 'move the billing webhook handler to the job queue so that the tapir module retries with exponential backoff';
    claude(h, ID(1), [user(text, '2026-01-01T09:00:00Z')]);
    const out = spawnSync('script', ['-qec', `stty cols 60; ${process.execPath} ${BIN} search tapir`, '/dev/null'], {
      env: { ...envFor(h), NO_COLOR: '1' },
      encoding: 'utf8',
    }).stdout.replace(/\r/g, '');
    const lines = out.split('\n');
    const at = lines.findIndex((l) => l.startsWith('  prompt: '));
    expect(at).toBeGreaterThan(0);
    const rows = [must(lines[at])];
    for (let i = at + 1; lines[i]?.startsWith('    '); i++) rows.push(must(lines[i]));
    expect(rows.length).toBeGreaterThan(1);
    for (const r of rows) expect(r.length, r).toBeLessThanOrEqual(60);
    const whole = `prompt: ${text.replace('tapir', '«tapir»')}`;
    expect(rows.map((r) => r.trim()).join(' ')).toBe(whole);
    // piped: the evidence whole on its line
    expect(run(h, ['search', 'tapir']).stdout).toContain(`  ${whole}\n`);
  });

  it('a word or phrase of thousands of characters is a usage error of one line, not an internal one', () => {
    const h = home();
    claude(h, ID(1), [user('the tapir module', '2026-01-01T09:00:00Z')]);
    for (const args of [['x'.repeat(30_000)], ['--rows', `tapir ${'y'.repeat(5000)}`], [`"${'z '.repeat(3000)}"`]]) {
      const r = run(h, ['search', ...args]);
      expect(r.code).toBe(2);
      expect(r.stderr).toBe('resume: a word or phrase of at most 4096 characters\n');
    }
    expect(run(h, ['search', '--rows', 'x'.repeat(4096)]).code).toBe(1);
  });

  it('--rows prints `resume rows` lines, best first; no words lists every session', () => {
    const h = home();
    claude(h, ID(1), [user('the tapir module', '2026-01-01T09:00:00Z')]);
    claude(h, ID(2), [user('something else', '2026-01-02T09:00:00Z'), reply('tapir mentioned in passing', '2026-01-02T09:00:01Z')]);
    const rows = run(h, ['rows']).stdout.split('\n').filter(Boolean);
    const byKey = new Map(rows.map((r) => [r.split('\t')[0], r]));
    const s = run(h, ['search', '--rows', 'tapir']);
    expect(s.code).toBe(0);
    expect(s.stdout.split('\n').filter(Boolean)).toEqual([byKey.get(`claude:${ID(1)}`), byKey.get(`claude:${ID(2)}`)]);
    // fzf hands {q} over as one argument: its words are words, not a phrase
    expect(run(h, ['search', '--rows', 'tapir module']).stdout.split('\n').filter(Boolean)).toEqual([byKey.get(`claude:${ID(1)}`)]);
    expect(run(h, ['search', '--rows']).stdout).toBe(run(h, ['rows']).stdout);
    const none = run(h, ['search', '--rows', 'nonexistentword']);
    expect(none.code).toBe(1);
    expect(none.stdout).toBe('');
  });

  it('--rows ranks as --json does, on one thread and on worker threads, without cutting evidence', () => {
    const h = home();
    // a parent and its fork, an original and a later mention, words in a prompt and scattered in tool output
    narwhalFork(h, ID(4), ID(5), [user('add a changelog entry for the narwhal exporter', '2026-01-09T10:00:00Z')]);
    claude(h, ID(6), [user('the narwhal exporter from last month breaks on empty lines', '2026-02-01T09:10:00Z')]);
    claude(h, ID(7), [
      user('check the logs', '2026-03-01T09:00:00Z'),
      toolResult(`line 1: narwhal started ${'x'.repeat(20_000)}`, '2026-03-01T09:00:02Z'),
      toolResult('line 9: exporter stopped', '2026-03-01T09:00:04Z'),
    ]);
    claude(h, ID(8), [user('tune the narwhal cache', '2026-01-01T09:00:00Z')]);
    for (const words of [['narwhal'], ['narwhal', 'exporter']]) {
      const want = searchJson(h, words).map((r) => `${r.harness}:${r.id}`);
      expect(want.length, words.join(' ')).toBeGreaterThan(2);
      for (const threads of [{ RESUME_THREADS: '1' }, { RESUME_THREADS: '2', RESUME_PARALLEL_MIN_BYTES: '0' }]) {
        const r = run(h, ['search', '--rows', words.join(' ')], threads);
        expect(r.code, r.stderr).toBe(0);
        expect(
          r.stdout
            .split('\n')
            .filter(Boolean)
            .map((l) => l.split('\t')[0]),
          `${words.join(' ')} ${threads.RESUME_THREADS}`,
        ).toEqual(want);
      }
    }
  });

  it('the picker ranks from the index text a session whose prompts hold the words, and reads the others: in tool output, inside a word', async () => {
    const h = home();
    claude(h, ID(1), [user('tune the ocelot backoff', '2026-01-01T09:00:00Z')]);
    claude(h, ID(2), [
      user('check the logs', '2026-01-02T09:00:00Z'),
      toolResult(`ocelot ${'z'.repeat(50_000)} backoff`, '2026-01-02T09:00:02Z'),
    ]);
    claude(h, ID(3), [user('the superocelotish backoff', '2026-01-03T09:00:00Z')]);
    claude(h, ID(4), [user('nothing to see', '2026-01-04T09:00:00Z')]);
    expect(run(h, ['index']).code).toBe(0);
    const keys = rowKeys(h, 'ocelot backoff');
    expect(new Set(keys)).toEqual(new Set([`claude:${ID(1)}`, `claude:${ID(2)}`, `claude:${ID(3)}`]));
    // the prompts (words are substrings: equal, the newer first) before the tool output
    expect(keys.slice(0, 2)).toEqual([`claude:${ID(3)}`, `claude:${ID(1)}`]);
    expect(keys.at(-1)).toBe(`claude:${ID(2)}`);
    // read: the session with words in its tool output, and the one whose prompt holds \`ocelot\` only
    // inside a longer word (the table gives that piece for \`backoff\` alone; its text is not read,
    // so the session is); not the one whose prompt holds both words, nor the one the signatures rule out
    const { makeApp } = await import('../lib/app.js');
    const { runSearch } = await import('../lib/search/run.js');
    const app = makeApp({ env: envFor(h), distDir: path.join(ROOT, 'dist') });
    const all = await app.sessions();
    const got = await runSearch(app, all, parseQuery(['ocelot backoff'], true), {}, { evidence: false });
    expect(got.results.map((r) => r.session.key)).toEqual(keys);
    expect(got.stats.files).toBe(2);
    // a word only inside another word: the table cannot find it, the session is read and found
    expect(rowKeys(h, 'ocelotish')).toEqual([`claude:${ID(3)}`]);
  });

  it("the picker passes over a session whose bytes lack a word its pieces lack, and keeps one that holds it in tool output, past a prompt's first 4 KiB, or compressed", () => {
    const h = home();
    claude(h, ID(1), [user('tune the ocelot backoff', '2026-01-01T09:00:00Z')]);
    // every three bytes of `backoff` apart (the signature lets it through), the word itself nowhere
    claude(h, ID(2), [
      user('the ocelot logs', '2026-01-02T09:00:00Z'),
      toolResult('bacco jackor ckoa kofu offset', '2026-01-02T09:00:02Z'),
    ]);
    claude(h, ID(3), [
      user('the ocelot tests', '2026-01-03T09:00:00Z'),
      toolResult(`waited ${'z'.repeat(9000)} then backoff`, '2026-01-03T09:00:02Z'),
    ]);
    claude(h, ID(4), [user(`ocelot ${'pad '.repeat(2000)} backoff at the end`, '2026-01-04T09:00:00Z')]);
    // a compressed rollout (zstd, as Codex keeps cold ones): its bytes are not its text
    const id = '019b0000-0000-7000-8000-0000000000ab';
    const rollout = `.codex/sessions/2026/01/05/rollout-2026-01-05T10-00-00-${id}.jsonl`;
    write(
      h,
      rollout,
      jsonl(
        {
          timestamp: '2026-01-05T10:00:00.000Z',
          type: 'session_meta',
          payload: { id, timestamp: '2026-01-05T10:00:00.000Z', cwd: '/w/z', source: 'cli' },
        },
        { timestamp: '2026-01-05T10:00:01.000Z', type: 'event_msg', payload: { type: 'user_message', message: 'ocelot again' } },
        {
          timestamp: '2026-01-05T10:00:02.000Z',
          type: 'event_msg',
          payload: { type: 'user_message', message: `${'pad '.repeat(2000)} backoff` },
        },
      ),
    );
    const zr = spawnSync('zstd', ['-q', '--rm', path.join(h, rollout)]);
    if (zr.status !== 0 && process.env.CI === 'true') throw new Error('zstd is missing');
    const codex = zr.status === 0 ? [`codex:${id}`] : [];
    expect(run(h, ['index']).code).toBe(0);
    const keys = rowKeys(h, 'ocelot backoff');
    expect(new Set(keys)).toEqual(new Set([`claude:${ID(1)}`, `claude:${ID(3)}`, `claude:${ID(4)}`, ...codex]));
    expect(new Set(keys)).toEqual(new Set(searchJson(h, ['ocelot', 'backoff']).map((r) => `${r.harness}:${r.id}`)));
  });

  it('a search for rows only keeps no text of its hits and cuts no snippet; the hits weigh the same', async () => {
    const { scanParallel, ScanWorker } = await import('../lib/search/pool.js');
    const { newGroup } = await import('../lib/search/groups.js');
    await loadExtractors();
    const h = home();
    const file = claude(h, ID(1), [
      user('the quokka importer fails', '2026-01-01T09:00:00Z'),
      reply('The quokka importer reads the header twice.', '2026-01-01T09:00:05Z'),
      toolResult(`quokka ${'y'.repeat(5000)}`, '2026-01-01T09:00:07Z'),
    ]);
    const s = {
      harness: 'claude',
      id: ID(1),
      key: `claude:${ID(1)}`,
      file,
      cwd: CWD,
      title: null,
      firstPrompt: 'the quokka importer fails',
      branch: null,
      forkedFrom: null,
    } as Session;
    const terms = parseQuery(['quokka']);
    const full = await scanParallel([newGroup(s, [s])], terms, new Set(), { threads: 1 });
    const bare = await scanParallel([newGroup(s, [s])], terms, new Set(), { threads: 1, evidence: false });
    const [f] = full.groups;
    const [b] = bare.groups;
    expect(f.hits.length).toBeGreaterThan(1);
    expect(f.hits.some((x) => x.snippet)).toBe(true);
    expect(b.hits.every((x) => x.text === '' && x.snippet === undefined)).toBe(true);
    const weigh = (g: typeof f) => ({
      mask: g.mask,
      nHits: g.nHits,
      hits: g.hits.map((x) => [x.role, x.score, x.k, x.key, x.firstPrompt]),
    });
    expect(weigh(b)).toEqual(weigh(f));
    // on a worker thread too (every group taken there: this thread scans none), and the same
    // protocol with evidence cuts snippets there
    const { Worker } = await import('node:worker_threads');
    const onWorker = async (bare: boolean) => {
      const got: ScanOut['groups'] = [];
      const msg = {
        terms: [{ text: 'quokka', phrase: false }],
        need: [],
        counter: new SharedArrayBuffer(4),
        groups: Array.from({ length: 3 }, () => [s]),
        bare,
      };
      await new ScanWorker(Worker, path.join(ROOT, 'dist', 'search-worker.cjs')).run(msg, (m) => got.push(...m.groups));
      return got;
    };
    const got = await onWorker(true);
    expect(got).toHaveLength(3);
    for (const g of got) expect(weigh(g)).toEqual(weigh(f));
    for (const g of got) expect(g.hits.every((x) => x.text === '' && x.snippet === undefined)).toBe(true);
    expect((await onWorker(false))[0].hits.some((x) => x.snippet)).toBe(true);
  });

  it('a worker thread posts its groups as they pile up: every group once, the same as scanned here, piece hashes where wanted', async () => {
    const { scanGroups, ScanWorker } = await import('../lib/search/pool.js');
    const { newGroup } = await import('../lib/search/groups.js');
    await loadExtractors();
    const h = home();
    const sessions = [1, 2, 3, 4, 5].map((i) => {
      const file = claude(h, ID(i), [
        user(`the quokka importer fails ${i}`, `2026-01-0${i}T09:00:00Z`),
        reply(`The quokka importer reads header ${i} twice.`, `2026-01-0${i}T09:00:05Z`),
      ]);
      return {
        harness: 'claude',
        id: ID(i),
        key: `claude:${ID(i)}`,
        file,
        cwd: CWD,
        title: null,
        firstPrompt: `the quokka importer fails ${i}`,
        branch: null,
        forkedFrom: null,
      } as Session;
    });
    // a group no word is in is never posted
    const none = claude(h, ID(6), [user('nothing here', '2026-01-06T09:00:00Z')]);
    const quiet = { ...sessions[0], id: ID(6), key: `claude:${ID(6)}`, file: none, firstPrompt: 'nothing here' } as Session;
    const all = [...sessions, quiet];
    // (a fork's source: its piece hashes come back)
    const need = [`claude:${ID(2)}`];
    const here = scanGroups(
      all.map((s) => newGroup(s, [s])),
      parseQuery(['quokka']),
      new Set(need),
    );
    const { Worker } = await import('node:worker_threads');
    const parts: ScanOut[] = [];
    const msg = {
      terms: [{ text: 'quokka', phrase: false }],
      need,
      counter: new SharedArrayBuffer(4),
      groups: all.map((s) => [s]),
      bare: false,
      home: '',
      postEvery: 2,
    };
    await new ScanWorker(Worker, path.join(ROOT, 'dist', 'search-worker.cjs')).run(msg, (m) => parts.push(m));
    // two posts of two, then the one left with the counts
    expect(parts.map((p) => p.groups.length)).toEqual([2, 2, 1]);
    expect(parts[2].stats.sessions).toBe(6);
    const byKey = (gs: ScanOut['groups']) => Object.fromEntries(gs.map((g) => [g.key, g]));
    const seen = byKey(parts.flatMap((p) => p.groups));
    expect(Object.keys(seen).sort()).toEqual(sessions.map((s) => s.key).sort());
    for (const g of here.groups) {
      const w = seen[g.key];
      expect([w.mask, w.nHits, w.keys]).toEqual([g.mask, g.nHits, g.keys]);
      expect(w.hits.map((x) => [x.role, x.score, x.key, x.snippet?.text])).toEqual(
        g.hits.map((x) => [x.role, x.score, x.key, x.snippet?.text]),
      );
    }
    expect(seen[need[0]].keys.length).toBeGreaterThan(0);
  });

  it('--json carries the ls --json identity fields and evidence; filters apply', () => {
    const h = home();
    claude(h, ID(1), [user('rename the gecko flag', '2026-01-01T09:00:00Z')]);
    claude(h, ID(2), [user('rename the gecko flag again', '2026-01-20T09:00:00Z')], '-w-other');
    const r = searchJson(h, ['gecko']);
    expect(r).toHaveLength(2);
    const ls: Listed[] = JSON.parse(run(h, ['ls', '--json']).stdout);
    for (const x of r) {
      const l = must(ls.find((y) => y.id === x.id));
      expect(x.harness).toBe(l.harness);
      expect(x.short).toBe(l.short);
      expect(x.cwd).toBe(l.cwd);
      expect(x.file).toBe(l.file);
      expect(['original', 'follow-up']).toContain(x.kind);
      expect(['high', 'medium', 'low']).toContain(x.confidence);
      expect(x.date).toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d$/);
    }
    expect(searchJson(h, ['gecko', '--since', '2026-01-10']).map((x) => x.id)).toEqual([ID(2)]);
    expect(searchJson(h, ['gecko', '--until', '2026-01-01']).map((x) => x.id)).toEqual([ID(1)]);
    expect(run(h, ['search', 'gecko', '--harness', 'pi']).code).toBe(1);
    expect(run(h, ['search', 'gecko', '--since', 'yesterdayish']).code).toBe(2);
    expect(run(h, ['search']).code).toBe(2);
  });

  it("evidence cut when a session's files are read stands when its metadata then ranks first", () => {
    const h = home();
    // read from the transcript: a reply, then tool output (their texts are freed once the file is
    // read, but for those that can still be shown); then the directory (metadata) ranks above them
    write(
      h,
      `.claude/projects/-w-zorilla/${ID(1)}.jsonl`,
      jsonl(
        user('look at the layout', '2026-01-01T09:00:00Z'),
        reply('the zorilla layout is odd', '2026-01-01T09:00:01Z'),
        ...Array.from({ length: 10 }, (_, i) => toolResult(`zorilla/src/file${i}.ts changed`, `2026-01-01T09:00:0${2 + (i % 7)}Z`)),
      ).replaceAll(CWD, '/w/zorilla'),
    );
    const [r] = searchJson(h, ['zorilla']);
    expect(r.evidence.map((e) => e.role)).toEqual(['metadata', 'assistant']);
    expect(r.evidence[1].text).toContain('zorilla layout is odd');
    expect(r.evidence[0].text).toContain('/w/zorilla');
  });

  it("names a session's directory from ~: the home directory's own name finds no session by it", () => {
    const h = home();
    // the home as a user's is named (the last part of its path): a word of every session's directory
    const named = path.basename(h);
    write(
      h,
      `.claude/projects/-home-src-zebu/${ID(1)}.jsonl`,
      jsonl(user('look at the layout', '2026-01-01T09:00:00Z')).replaceAll(CWD, path.join(h, 'src', 'zebu')),
    );
    write(h, `.claude/projects/-w-proj/${ID(2)}.jsonl`, jsonl(user('tidy the readme', '2026-01-02T09:00:00Z')));
    // (and one started in the home directory itself)
    write(h, `.claude/projects/-home/${ID(3)}.jsonl`, jsonl(user('what time is it', '2026-01-03T09:00:00Z')).replaceAll(CWD, h));
    expect(searchJson(h, ['what', 'time']).map((x) => x.cwd)).toEqual([h]);
    expect(run(h, ['search', named]).code).toBe(1);
    expect(run(h, ['search', 'src', 'zebu']).code).toBe(0);
    const [r] = searchJson(h, ['zebu']);
    expect(r.id).toBe(ID(1));
    expect(r.evidence[0].text).toContain('directory: ~/src/zebu');
    expect(r.evidence[0].text).not.toContain(named);
  });

  it('marks matches with colour only on request and never prints raw control characters', () => {
    const h = home();
    claude(h, ID(1), [user('the \u001b[2Jiguana\u0007 bug\nin the parser', '2026-01-01T09:00:00Z')]);
    const plain = run(h, ['search', 'iguana']);
    expect(plain.stdout).toContain('«iguana»');
    // eslint-disable-next-line no-control-regex
    expect(plain.stdout).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f]/);
    const col = run(h, ['search', 'iguana'], { NO_COLOR: undefined, FORCE_COLOR: '1' });
    expect(col.stdout).toContain('\x1b[1;33miguana\x1b[0m');
    expect(col.stdout).not.toContain('\x1b[2J');
  });
});

describe('privacy', () => {
  const shapes: [string, string][] = [
    ['anthropic key', 'sk-ant-api03-AbCdEfGhIjKlMnOpQrStUvWxYz0123456789'],
    ['openai key', 'sk-proj-AbCdEfGhIjKlMnOpQrStUvWx01234567'],
    ['github token', 'ghp_AbCdEfGhIjKlMnOpQrStUvWxYz0123456789'],
    ['github oauth', 'gho_AbCdEfGhIjKlMnOpQrStUvWxYz0123456789'],
    ['github pat', 'github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyz'],
    ['slack bot', 'xoxb-123456789012-1234567890123-AbCdEfGhIjKl'],
    ['slack user', 'xoxp-123456789012-1234567890123-AbCdEfGhIjKl'],
    ['aws key', 'AKIAIOSFODNN7EXAMPLE'],
    ['google key', 'AIzaSyA1b2C3d4E5f6G7h8I9j0KlMnOpQrStUvW'],
    ['gitlab token', 'glpat-AbCdEfGhIjKlMnOpQrSt'],
    ['jwt', 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U'],
  ];
  for (const [name, secret] of shapes) {
    it(`redacts ${name}`, () => {
      const out = redact(`use ${secret} for the call`);
      expect(out).not.toContain(secret);
      expect(out).toMatch(/\[REDACTED[^\]]*\]/);
      expect(out.startsWith('use ')).toBe(true);
    });
  }
  it('redacts auth headers, password assignments, private keys and URL credentials', () => {
    const cases: [string, string][] = [
      ['curl -H "Authorization: Bearer abc.def-ghi_123456789"', 'abc.def-ghi_123456789'],
      ['Authorization: Basic dXNlcjpodW50ZXIy', 'dXNlcjpodW50ZXIy'],
      ['export DB_PASSWORD=hunter2hunter2', 'hunter2hunter2'],
      ['{"password": "correct horse battery"}', 'correct horse battery'],
      ['password: s3cr3t!', 's3cr3t!'],
      ['mysql --password=topsecret1 -u root', 'topsecret1'],
      ['git clone https://alice:pa55word@git.example.com/r.git', 'pa55word'],
      ['-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA7bq\nabcdef\n-----END RSA PRIVATE KEY-----', 'MIIEowIBAAKCAQEA7bq'],
      ['-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAA (cut here', 'b3BlbnNzaC1rZXktdjEAAAA'],
    ];
    for (const [text, secret] of cases) {
      const out = redact(text);
      expect(out, text).not.toContain(secret);
      expect(out, text).toContain('[REDACTED');
    }
    expect(redact('git clone https://alice:pa55word@git.example.com/r.git')).toContain(
      'https://alice:[REDACTED:url-password]@git.example.com',
    );
    expect(redact('max_tokens=4096 and a plain sentence')).toBe('max_tokens=4096 and a plain sentence');
  });

  it('search snippets are short, redacted, and never a whole tool output', () => {
    const h = home();
    const big =
      'x'.repeat(5000) +
      ' the wombat config is at postgres://admin:hunter2secret@db.internal/app token ghp_AbCdEfGhIjKlMnOpQrStUvWxYz0123456789 ' +
      'y'.repeat(5000);
    claude(h, ID(1), [user('look at the logs', '2026-01-01T09:00:00Z'), toolResult(big, '2026-01-01T09:00:02Z')]);
    const r = run(h, ['search', 'wombat']);
    expect(r.code).toBe(0);
    expect(r.stdout).not.toContain('hunter2secret');
    expect(r.stdout).not.toContain('ghp_AbCdEf');
    expect(r.stdout).toContain('[REDACTED');
    const [j] = searchJson(h, ['wombat']);
    expect(j.evidence[0].role).toBe('tool-output');
    expect(j.evidence[0].text.length).toBeLessThan(200);
  });
});

type OutputHarness = 'pi' | 'codex' | 'claude';

/** Every .jsonl of harness `h` among the fixtures: its own folder and the recorded real-client ones. */
function fixtureJsonl(h: string): string[] {
  return [
    path.join(FIXTURES, h),
    ...fs
      .readdirSync(path.join(FIXTURES, 'real'))
      .filter((d) => d.startsWith(`${h}-`))
      .map((d) => path.join(FIXTURES, 'real', d)),
  ]
    .flatMap((d) => (fs.readdirSync(d, { recursive: true }) as string[]).map((f) => path.join(d, f)))
    .filter((f) => f.endsWith('.jsonl'));
}

/**
 * `only` on each line of file `f` against what its extractor makes of the line and against
 * `isOutput`, the plain definition; how many lines `only` took as tool output.
 */
function outputOnlyAgrees(x: { h: OutputHarness; f: string; only: (line: Buffer) => boolean; isOutput: (o: Decoded) => boolean }): number {
  const { h, f, only, isOutput } = x;
  let outputs = 0;
  const lines = fs.readFileSync(f, 'utf8').split('\n').filter(Boolean);
  const cx = { first: true, st: {} };
  for (const text of lines) {
    let o: Decoded;
    try {
      o = JSON.parse(text);
    } catch {
      continue;
    }
    const pieces = EXTRACTORS[h](o, cx);
    cx.first = false;
    const said = only(Buffer.from(text));
    if (said) {
      outputs++;
      expect(
        pieces.every((p) => p.role === 'tool-output'),
        `${f}: ${text.slice(0, 120)}`,
      ).toBe(true);
    }
    // each harness writes the record's type and the payload's (or message's) first; a
    // bracket in a value before it (the fixtures' "[trimmed for fixture]") makes the bytes
    // ambiguous, and such a line is decoded as usual
    const before = text.slice(1, text.indexOf(h === 'codex' ? '"payload":' : '"message":'));
    if (isOutput(o) && !/[[{]/.test(before)) expect(said, `${f}: ${text.slice(0, 120)}`).toBe(true);
  }
  return outputs;
}

describe('scanning', () => {
  it('finds a word inside a line of tens of MB with bounded memory', () => {
    const h = home();
    const pad = 'lorem ipsum dolor sit amet '.repeat(800_000); // ~21 MB on each side
    const f = claude(h, ID(1), [
      user('read the dump', '2026-01-01T09:00:00Z'),
      toolResult(`${pad} capybara overflow here ${pad}`, '2026-01-01T09:00:02Z'),
    ]);
    expect(fs.statSync(f).size).toBeGreaterThan(40 << 20);
    const rssFile = path.join(h, 'rss');
    const hook = `data:text/javascript,import fs from "node:fs";process.on("exit",()=>fs.writeFileSync(${JSON.stringify(rssFile)},String(process.resourceUsage().maxRSS)))`;
    const r = spawnSync(process.execPath, ['--import', hook, BIN, 'search', '--json', 'capybara'], {
      env: envFor(h),
      encoding: 'utf8',
      maxBuffer: 16 << 20,
    });
    expect(r.status, r.stderr).toBe(0);
    const [res] = JSON.parse(r.stdout);
    expect(res.id).toBe(ID(1));
    expect(res.evidence[0].text).toContain('capybara overflow');
    const rssMiB = Number(fs.readFileSync(rssFile, 'utf8')) / 1024;
    // the line alone is 43 MB (86 MB as a JS string); the scanner keeps at most ~8 MiB of it
    expect(rssMiB).toBeLessThan(180);
  });

  it('finds a word split across the pieces a long tool-output line is read in', () => {
    const head = '{"type":"user","message":{"content":[{"type":"tool_result","content":"';
    // the word straddles the end of the first megabyte of the line (the first piece)
    const text = `${'a'.repeat((1 << 20) - 3 - head.length)}wombat${'b'.repeat(2 << 20)}`;
    const data = Buffer.from(`${JSON.stringify({ type: 'session' })}\n${head}${text}"}]}}\n`);
    const reader = memReader(data);
    const raws: string[] = [];
    const st = scanLines(
      reader,
      [byteKey('wombat')],
      { line: () => {}, raw: (b, at) => raws.push(b.toString('latin1', at, at + 6)) },
      { rawHead: [Buffer.from('"type":"tool_result"')] },
    );
    expect(st.hugeLines).toBe(1);
    expect(raws).toEqual(['wombat']);
  });

  it('a secret beside the word in a tool output too long to decode is redacted in the snippet', () => {
    const h = home();
    const out =
      'x'.repeat(2 << 20) +
      ' the wombat token ghp_AbCdEfGhIjKlMnOpQrStUvWxYz0123456789 and postgres://admin:hunter2secret@db.internal/app ' +
      'y'.repeat(1 << 20);
    claude(h, ID(1), [user('look at the logs', '2026-01-01T09:00:00Z'), toolResult(out, '2026-01-01T09:00:02Z')]);
    const r = run(h, ['search', 'wombat']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('«wombat»');
    expect(r.stdout).not.toContain('ghp_AbCdEf');
    expect(r.stdout).not.toContain('hunter2secret');
    const [j] = searchJson(h, ['wombat']);
    expect(j.evidence[0]).toMatchObject({ role: 'tool-output' });
    expect(j.evidence[0].text).not.toContain('ghp_AbCdEf');
  });

  it('worker threads give the same results as one thread', () => {
    const h = home();
    for (let i = 1; i <= 6; i++) {
      claude(h, ID(i), [
        user(`session ${i} about the badger cache`, `2026-01-0${i}T09:00:00Z`),
        toolResult(`badger ${'z'.repeat(i * 1000)}`, `2026-01-0${i}T09:00:01Z`),
      ]);
    }
    put(h, 'codex/sessions', '.codex/sessions');
    const one = run(h, ['search', '--json', 'badger'], { RESUME_THREADS: '1' });
    const two = run(h, ['search', '--json', 'badger'], { RESUME_THREADS: '2', RESUME_PARALLEL_MIN_BYTES: '0' });
    expect(one.code).toBe(0);
    expect(JSON.parse(two.stdout)).toEqual(JSON.parse(one.stdout));
    expect(JSON.parse(one.stdout)).toHaveLength(6);
    // two workers started before the listing loaded, and both used
    const three = run(h, ['search', '--json', 'badger'], { RESUME_THREADS: '3', RESUME_PARALLEL_MIN_BYTES: '0' });
    expect(three.code, three.stderr).toBe(0);
    expect(JSON.parse(three.stdout)).toEqual(JSON.parse(one.stdout));
    // started, then not needed (a corpus below the parallel threshold): stopped, and the run ends
    // when its work is done (an idle worker kept alive would hang it past the test's timeout)
    for (const args of [
      ['search', '--json', 'badger'],
      ['search', '--rows', 'badger'],
      ['search', 'nothing-mentions-this'],
    ]) {
      const small = run(h, args, { RESUME_THREADS: '4' });
      const alone = run(h, args, { RESUME_THREADS: '1' });
      expect(small, args.join(' ')).toEqual(alone);
    }
  });

  it('files marked before the scan (by the worker and this thread) give what one thread gives, a Claude subagent among them', () => {
    const h = home();
    for (let i = 1; i <= 8; i++) {
      claude(h, ID(i), [
        user(`session ${i} about the badger cache`, `2026-01-0${i}T09:00:00Z`),
        toolResult(`badger ${'z'.repeat(i * 1000)}`, `2026-01-0${i}T09:00:01Z`),
      ]);
    }
    // a word in two sessions: in one's own transcript, and only in the other's subagent
    claude(h, ID(9), [user('rename the wombat column', '2026-01-09T09:00:00Z')]);
    write(
      h,
      `.claude/projects/-w-proj/${ID(2)}/subagents/agent-a1b2c3.jsonl`,
      jsonl(user('list every wombat query', '2026-01-02T09:00:05Z', { isSidechain: true, agentId: 'a1b2c3' })),
    );
    // the index the marks are taken from (a search marks only files the index knows)
    expect(run(h, ['index']).code).toBe(0);
    for (const word of ['wombat', 'nothing-mentions-this', 'badger']) {
      const one = run(h, ['search', '--json', word], { RESUME_THREADS: '1' });
      const two = run(h, ['search', '--json', word], { RESUME_THREADS: '2', RESUME_PARALLEL_MIN_BYTES: '0' });
      expect(two.code, two.stderr).toBe(one.code);
      expect(two.stdout, word).toBe(one.stdout);
    }
    expect(
      searchJson(h, ['wombat'], { RESUME_THREADS: '2', RESUME_PARALLEL_MIN_BYTES: '0' })
        .map((r) => r.id)
        .sort(),
    ).toEqual([ID(2), ID(9)]);
  });

  it('the prefilter hands on only lines holding a needle (and the first line), also across chunk seams', () => {
    const lines = Array.from({ length: 40_000 }, (_, i) => JSON.stringify({ n: i, t: i === 23_456 ? 'the Needle is here' : 'hay' }));
    const data = Buffer.from(`${lines.join('\n')}\n`);
    const reader = memReader(data, 4093); // odd-sized reads
    const got: string[] = [];
    const bare: boolean[] = [];
    scanLines(reader, [byteKey('needle')], {
      line: (b, s, e, _at, kind) => {
        got.push(b.toString('utf8', s, e));
        bare.push((kind & LINE_BARE) !== 0);
      },
      raw: () => {},
    });
    expect(got).toEqual([lines[0], lines[23_456]]);
    // the first line holds no needle: it is handed on bare (decoded only if a later line is)
    expect(bare).toEqual([true, false]);
    // a first line with a needle (at its start, or further in) is not bare; with no needles none is
    for (const [first, needles] of [
      ['{"t":"needle first"}', ['needle']],
      ['needle at 0', ['needle']],
      ['{"n":0}', []],
    ] as const) {
      const flags: boolean[] = [];
      scanLines(memReader(Buffer.from(`${first}\n{"t":"needle"}\n`)), needles.map(byteKey), {
        line: (_b, _s, _e, _at, kind) => flags.push((kind & LINE_BARE) !== 0),
        raw: () => {},
      });
      expect(flags, first).toEqual([false, false]);
    }
  });

  it('with no needles hands on every line and steps over a line too long to parse', () => {
    const big = JSON.stringify({ type: 'user', message: { content: [{ type: 'tool_result', content: 'q'.repeat(3 << 20) }] } });
    const data = Buffer.from(`${[JSON.stringify({ n: 1 }), big, JSON.stringify({ n: 2 })].join('\n')}\n`);
    const reader = memReader(data);
    const got: string[] = [];
    const st = scanLines(reader, [], { line: (b, s, e) => got.push(b.toString('utf8', s, e)), raw: () => {} }, { parseCap: 1 << 20 });
    expect(got).toEqual(['{"n":1}', '{"n":2}']);
    expect(st.hugeLines).toBe(1);
  });

  it('reads a long tool-output line the same way whatever file the thread scanned before', () => {
    const readerOf = (data: Buffer): Reader => memReader(data);
    // 3 MiB of tool output with a hit in each of its megabytes
    const out = Array.from({ length: 3 }, () => `${'x'.repeat(1 << 20)} heron `).join('');
    const tool = Buffer.from(jsonl({ type: 'session' }, { type: 'user', message: { content: [{ type: 'tool_result', content: out }] } }));
    // a 3 MiB line that is not tool output: the buffer grows to hold it
    const prose = Buffer.from(jsonl({ type: 'session' }, { type: 'assistant', text: 'y'.repeat(3 << 20) }));
    const raws = () => {
      let n = 0;
      scanLines(readerOf(tool), [byteKey('heron')], { line: () => {}, raw: () => n++ }, { rawHead: [Buffer.from('"type":"tool_result"')] });
      return n;
    };
    const fresh = raws();
    scanLines(readerOf(prose), [byteKey('zzz')], { line: () => {}, raw: () => {} });
    expect(raws()).toBe(fresh);
    expect(fresh).toBe(3);
  });

  it('a long tool-output line gives one raw hit per word in each of its megabytes, whatever the size of the reads', () => {
    // 2.5 MiB: the word twice in the first megabyte of the line, once in the second, twice in the third
    const mib = 1 << 20;
    const text = Buffer.alloc(Math.floor(2.5 * mib), 'x');
    const tags: [number, string][] = [
      [1000, 'A1'],
      [500_000, 'A2'],
      [mib + 1000, 'B1'],
      [2 * mib + 1000, 'C1'],
      [2 * mib + 400_000, 'C2'],
    ];
    for (const [at, tag] of tags) text.write(`${tag}heron`, at - 2);
    const tool = Buffer.from(
      jsonl({ type: 'session' }, { type: 'user', message: { content: [{ type: 'tool_result', content: text.toString('latin1') }] } }),
    );
    const hits = (step: number) => {
      const got: string[] = [];
      scanLines(
        memReader(tool, step),
        [byteKey('heron')],
        { line: () => {}, raw: (b, h) => got.push(b.toString('latin1', h - 2, h)) },
        { rawHead: [Buffer.from('"type":"tool_result"')] },
      );
      return got;
    };
    // the first in each megabyte of the line
    for (const step of [Infinity, 65_521, mib]) expect(hits(step), String(step)).toEqual(['A1', 'B1', 'C1']);
  });

  for (const [stop, head, tail] of [
    [false, undefined, undefined],
    [true, undefined, undefined],
    [false, 100, undefined],
    [false, 100, 50],
    [true, 100, 50],
  ] as const) {
    it(`a tracker turned on mid-file sees every line once, in order, as a scan with no needles does${stop ? ' (search ended at the first hit)' : ''}${head ? ` (only the head${tail ? ' and tail' : ''} of a line read in pieces)` : ''}`, () => {
      const lines = [
        JSON.stringify({ type: 'session' }),
        // a long line before the first hit, read again for the tracker: whole, or only its head when
        // the tracker has one (in pieces: it is longer than the window)
        JSON.stringify({ id: 'early', t: 'hay '.repeat(100_000) }),
        ...Array.from({ length: 30_000 }, (_, i) =>
          JSON.stringify({ id: `e${i}`, t: i % 997 === 0 && i > 20_000 ? 'a Heron' : 'hay'.repeat(20) }),
        ),
        // a long tool-output line: read in pieces by the search, assembled for the tracker
        JSON.stringify({ id: 'long', role: 'toolResult', t: 'heron '.repeat(400_000) }),
        // longer than the parse cap: seen by neither
        JSON.stringify({ id: 'huge', role: 'toolResult', t: 'x'.repeat(9 << 20) }),
        `${JSON.stringify({ id: 'crlf', t: 'heron' })}\r`,
        JSON.stringify({ id: 'after', t: 'hay' }),
      ];
      const data = Buffer.from(`${lines.join('\n')}\n${JSON.stringify({ id: 'partial' })}`);
      const readerOf = (): Reader => memReader(data, 65_521); // odd-sized reads: lines across them
      const expected: string[] = [];
      scanLines(readerOf(), [], { line: (b, s, e) => expected.push(b.toString('utf8', s, e)), raw: () => {} });
      expect(expected).toHaveLength(lines.length); // the huge line left out, the partial last line in
      let hit = false;
      const seen: string[] = [];
      /** for each line seen: where it lies in the stream and its length, when it was handed cut */
      const cuts: ([number, number] | undefined)[] = [];
      const sink = {
        stop: false,
        line(_b: Buffer, _s: number, _e: number, _at: number, kind: number) {
          if ((kind & LINE_FIRST) === 0) hit = true;
          if (hit && stop) sink.stop = true;
        },
        raw: () => {},
      };
      scanLines(readerOf(), [byteKey('heron')], sink, {
        rawHead: [Buffer.from('"role":"toolResult"')],
        track: {
          head,
          wanted: () => hit,
          tail,
          visit: (line, at, length) => {
            seen.push(line.toString('utf8'));
            cuts.push(at === undefined ? undefined : [at, must(length)]);
          },
          reread: readerOf,
        },
      });
      expect(hit).toBe(true);
      if (head) {
        // the long tool output and the long line read again are shown by their heads alone; every other line whole
        const heads = [expected.findIndex((l) => l.startsWith('{"id":"long"')), expected.findIndex((l) => l.startsWith('{"id":"early"'))];
        for (const at of heads)
          expect(seen[at]).toBe(tail ? expected[at].slice(0, head) + expected[at].slice(-tail) : expected[at].slice(0, head));
        expect(seen.filter((_, i) => !heads.includes(i))).toEqual(expected.filter((_, i) => !heads.includes(i)));
        // a line cut to its head and tail says where it lies, to be read whole again; no other does
        for (const [i, cut] of cuts.entries()) {
          if (!tail || !heads.includes(i)) expect(cut).toBeUndefined();
          else expect(data.toString('utf8', must(cut)[0], must(cut)[0] + must(cut)[1])).toBe(expected[i]);
        }
      } else expect(seen).toEqual(expected);
    });
  }

  it('a line read in small pieces is handed to a tracker with a tail as its head and its last bytes, whatever the pieces', () => {
    const long = JSON.stringify({ id: 'long', role: 'toolResult', t: Array.from({ length: 30_000 }, (_, i) => `l${i}`).join(' ') });
    const lines = [
      JSON.stringify({ id: 'first', t: 'a heron' }),
      long,
      `${JSON.stringify({ id: 'after', t: 'hay' })}\r`,
      `${long}\r`,
      JSON.stringify({ id: 'end' }),
    ];
    const data = Buffer.from(`${lines.join('\n')}\n`);
    for (const step of [37, 1, 50, 51, 4096]) {
      const seen: [string, number | undefined, number | undefined][] = [];
      scanLines(
        memReader(data, step),
        [byteKey('heron')],
        { line() {}, raw() {} },
        {
          rawHead: [Buffer.from('"role":"toolResult"')],
          track: {
            head: 100,
            tail: 50,
            wanted: () => true,
            visit: (line, at, length) => seen.push([line.toString('utf8'), at, length]),
            reread: () => memReader(data),
          },
        },
      );
      const at2 = lines[0].length + 1;
      const at4 = data.indexOf(`${long}\r`, at2 + long.length);
      expect(seen, `reads of ${step} bytes`).toEqual([
        [lines[0], undefined, undefined],
        [long.slice(0, 100) + long.slice(-50), at2, long.length],
        [lines[2].slice(0, -1), undefined, undefined],
        // the carriage return that ends it is not part of its tail
        [long.slice(0, 100) + long.slice(-50), at4, long.length + 1],
        [lines[4], undefined, undefined],
      ]);
    }
  });

  it('pi: only a tool result as pi writes it is taken, from its bytes, as a line of tool output only', async () => {
    await loadExtractors();
    const only = must(HOOKS.pi.outputOnly);
    const line = (o: unknown) => Buffer.from(JSON.stringify(o));
    // pi's order (type, id, parentId, timestamp, message) and ids before the type
    const msg = (message: unknown, extra: Record<string, unknown> = {}) =>
      line({ type: 'message', id: 'a1', parentId: 'a0', timestamp: '2026-03-05T10:00:00.000Z', ...extra, message });
    const late = (message: unknown) => line({ id: 'a1', parentId: null, timestamp: '2026-03-05T10:00:00.000Z', type: 'message', message });
    expect(only(msg({ role: 'toolResult', content: [{ type: 'text', text: 'ok' }] }))).toBe(true);
    expect(only(late({ role: 'toolResult', content: [{ type: 'text', text: 'ok' }] }))).toBe(true);
    expect(only(msg({ role: 'user', content: [{ type: 'text', text: 'ok' }] }))).toBe(false);
    expect(only(msg({ role: 'assistant', content: [{ type: 'text', text: '"role":"toolResult"' }] }))).toBe(false);
    // the same bytes inside a prompt are escaped
    expect(only(msg({ role: 'user', content: [{ type: 'text', text: '"type":"message","message":{"role":"toolResult"' }] }))).toBe(false);
    // not a top-level key: an object or array opens before it
    expect(only(line({ id: 'a1', details: { x: 1 }, type: 'message', message: { role: 'toolResult' } }))).toBe(false);
    expect(only(line({ id: 'a1', tags: ['x'], type: 'message', message: { role: 'toolResult' } }))).toBe(false);
    expect(only(line({ type: 'custom', data: { type: 'message', message: { role: 'toolResult' } } }))).toBe(false);
    // another type, or the type after the message (not how pi writes it): decoded
    expect(only(line({ type: 'custom_message', message: { role: 'toolResult' } }))).toBe(false);
    expect(only(line({ subtype: 'message', message: { role: 'toolResult' } }))).toBe(false);
    expect(only(line({ message: { role: 'toolResult' }, type: 'message' }))).toBe(false);
    expect(only(Buffer.from('not json'))).toBe(false);
    expect(only(Buffer.alloc(0))).toBe(false);
  });

  it('Claude: a tool result is taken from its bytes as tool output only when no text block could be in it', async () => {
    await loadExtractors();
    const only = must(HOOKS.claude.outputOnly);
    const rec = (content: unknown, extra: Record<string, unknown> = {}) =>
      Buffer.from(
        JSON.stringify({
          parentUuid: 'p',
          isSidechain: false,
          promptId: 'q',
          type: 'user',
          message: { role: 'user', content },
          uuid: 'u',
          timestamp: '2026-03-05T10:00:00.000Z',
          ...extra,
        }),
      );
    const result = (content: unknown) => ({ tool_use_id: 'toolu_1', type: 'tool_result', content });
    expect(only(rec([result('ok')]))).toBe(true);
    expect(only(rec([{ type: 'tool_result', tool_use_id: 'toolu_1', content: 'ok' }]))).toBe(true);
    expect(only(rec([result('a'), result('b')]))).toBe(true);
    // a long directory before the message
    expect(
      only(
        Buffer.from(
          JSON.stringify({
            parentUuid: 'p',
            cwd: `/w/${'d'.repeat(2000)}`,
            type: 'user',
            message: { role: 'user', content: [result('ok')] },
          }),
        ),
      ),
    ).toBe(true);
    // the user's words beside it, or text nested in it (cannot be told apart): decoded
    expect(only(rec([result('ok'), { type: 'text', text: 'and also fix the build' }]))).toBe(false);
    expect(only(rec([result([{ type: 'text', text: 'nested' }])]))).toBe(false);
    // a prompt, a prompt as a string, a prompt quoting the bytes, a summary, a reply
    expect(only(rec([{ type: 'text', text: 'hello' }]))).toBe(false);
    expect(only(rec('hello'))).toBe(false);
    expect(only(rec([{ type: 'text', text: '"type":"tool_result"' }]))).toBe(false);
    expect(only(rec([result('ok')], { isCompactSummary: true }))).toBe(false);
    expect(
      only(
        Buffer.from(
          JSON.stringify({
            type: 'assistant',
            message: { role: 'assistant', content: [{ type: 'tool_use', id: 't', name: 'Bash', input: {} }] },
          }),
        ),
      ),
    ).toBe(false);
    expect(only(Buffer.alloc(0))).toBe(false);
    // an object before the message (not how Claude Code writes it): decoded
    expect(only(Buffer.from(JSON.stringify({ meta: { a: 1 }, type: 'user', message: { role: 'user', content: [result('ok')] } })))).toBe(
      false,
    );
  });

  it('outputOnly: on every fixture line of pi, Codex and Claude, true only for a record whose text is tool output alone, and for every such record as the harness writes it', async () => {
    await loadExtractors();
    const kinds: Record<string, (o: Decoded) => boolean> = {
      // Claude: tool results only, none holding a text block at any depth (those are decoded as usual)
      claude: (o) =>
        o.type === 'user' &&
        !o.isCompactSummary &&
        Array.isArray(o.message?.content) &&
        o.message.content[0]?.type === 'tool_result' &&
        o.message.content.every((b: Decoded) => b?.type === 'tool_result') &&
        !JSON.stringify(o).includes('"type":"text"'),
      pi: (o) => o.type === 'message' && o.message?.role === 'toolResult',
      codex: (o) =>
        o.type === 'response_item' && ['function_call_output', 'custom_tool_call_output', 'tool_search_output'].includes(o.payload?.type),
    };
    for (const [h, isOutput] of Object.entries(kinds)) {
      const harness = h as OutputHarness;
      const only = must(HOOKS[harness].outputOnly);
      let outputs = 0;
      for (const f of fixtureJsonl(h)) outputs += outputOnlyAgrees({ h: harness, f, only, isOutput });
      expect(outputs, h).toBeGreaterThan(2);
    }
  });

  it('reads Codex .jsonl.zst rollouts', () => {
    const h = home();
    // a zstd frame of raw blocks (a valid .zst without an encoder), several blocks, lines across them
    const zstdFrame = (data: Buffer): Buffer => {
      const parts: Buffer[] = [Buffer.from([0x28, 0xb5, 0x2f, 0xfd, 0xa0]), Buffer.alloc(4)];
      parts[1].writeUInt32LE(data.length);
      let off = 0;
      do {
        const n = Math.min(100_000, data.length - off);
        const hd = (n << 3) | (off + n >= data.length ? 1 : 0);
        parts.push(Buffer.from([hd & 0xff, (hd >> 8) & 0xff, (hd >> 16) & 0xff]), data.subarray(off, off + n));
        off += n;
      } while (off < data.length);
      return Buffer.concat(parts);
    };
    const id = '019b0000-0000-7000-8000-0000000000aa';
    const lines = [
      {
        timestamp: '2026-02-01T10:00:00.000Z',
        type: 'session_meta',
        payload: { id, timestamp: '2026-02-01T10:00:00.000Z', cwd: '/w/z', source: 'cli' },
      },
      {
        timestamp: '2026-02-01T10:00:01.000Z',
        type: 'event_msg',
        payload: { type: 'user_message', message: `first ${'pad '.repeat(60_000)}` },
      },
      {
        timestamp: '2026-02-01T10:00:02.000Z',
        type: 'event_msg',
        payload: { type: 'user_message', message: 'rotate the manatee certificates' },
      },
    ];
    write(h, `.codex/sessions/2026/02/01/rollout-2026-02-01T10-00-00-${id}.jsonl.zst`, zstdFrame(Buffer.from(jsonl(...lines))));
    const [r] = searchJson(h, ['manatee']);
    expect(r.id).toBe(id);
    expect(r.evidence[0].text).toBe('rotate the manatee certificates');
  });

  it('raw text around a hit undoes JSON escapes in one pass: an escaped backslash stays one', () => {
    const raw = Buffer.from('a\\\\nb \\u00e9t\\u00e9 \\"q\\" \\t| HIT tail\\n', 'utf8');
    const at = raw.indexOf('HIT');
    const r = rawText(raw, at);
    expect(r.text).toBe('a\\nb été "q" \t| HIT tail\n');
    expect(r.text.slice(r.at, r.at + 3)).toBe('HIT');
    // a character cut at either end is dropped
    const cut = Buffer.concat([
      Buffer.from('é', 'utf8').subarray(1),
      Buffer.from(' x HIT y ', 'utf8'),
      Buffer.from('é', 'utf8').subarray(0, 1),
    ]);
    const c = rawText(cut, cut.indexOf('HIT'));
    expect(c.text).toBe(' x HIT y ');
    expect(c.text.slice(c.at, c.at + 3)).toBe('HIT');
  });

  it('finds JSON-escaped and non-ASCII words', () => {
    const [t1] = parseQuery(['naïve']);
    const line = Buffer.from(`${JSON.stringify({ t: 'a NA\u00cfVE approach' }).replace(/\u00cf/g, '\\u00cf')}\n`);
    const got: string[] = [];
    let done = false;
    scanLines(
      (buf, off) => {
        if (done) return 0;
        done = true;
        return line.copy(buf, off);
      },
      t1.needles,
      {
        line: (b, s, e) => got.push(b.toString('utf8', s, e)),
        raw: () => {},
      },
    );
    expect(got).toHaveLength(1);
    const [t2] = parseQuery(['say "hi"']);
    expect(t2.phrase).toBe(false); // quotes inside an argument delimit phrases: `say` is a word here
  });

  it('snippets centre the densest cluster and mark every term', () => {
    const terms = parseQuery(['retry', 'webhook']);
    const text = `${'intro '.repeat(100)}we fixed the webhook retry loop today${' outro'.repeat(100)}`;
    const s = makeSnippet(text, terms);
    expect(s.text.length).toBeLessThanOrEqual(162);
    expect(marked(s, false)).toContain('the «webhook» «retry» loop');
  });

  it("snippets never mark a word inside a redaction's label", () => {
    const token = `ghp_${'a1B2c3D4e5'.repeat(4)}`;
    const s = makeSnippet(`push with my github token ${token} now`, parseQuery(['github', 'token']));
    expect(marked(s, false)).toBe('push with my «github» «token» [REDACTED:github-token] now');
    // a word found only inside a secret (its prefix): the window where the secret was, nothing marked
    const only = makeSnippet(`${'intro '.repeat(800)}here is ${token} for the deploy`, parseQuery(['ghp']));
    expect(only.text).toContain('here is [REDACTED:github-token] for the deploy');
    expect(only.marks).toEqual([]);
  });
});

describe('every harness', () => {
  beforeAll(() => loadExtractors());
  function ex(h: keyof typeof EXTRACTORS, file: string): Piece[] {
    const out: Piece[] = [];
    const cx = { first: true, st: {} as Record<string, unknown> };
    const text = fs.readFileSync(path.join(FIXTURES, file), 'utf8');
    const recs = file.endsWith('.json')
      ? [JSON.parse(text)]
      : text
          .split('\n')
          .filter(Boolean)
          .map((l) => JSON.parse(l));
    for (const r of recs) {
      out.push(...EXTRACTORS[h](r, cx));
      cx.first = false;
    }
    return out;
  }
  const has = (ps: Piece[], role: string, s: string) => ps.some((p) => p.role === role && p.text.includes(s));

  it("extracts prompts, replies, tool calls and tool output from each harness's fixtures", () => {
    const c = ex('claude', 'claude/record-types.jsonl');
    expect(has(c, 'user', 'Hello')).toBe(true);
    expect(has(c, 'tool-call', 'bash ls')).toBe(true);
    expect(has(c, 'tool-output', 'ok')).toBe(true);
    const cx = ex('codex', 'codex/sessions/2026/01/02/rollout-2026-01-02T03-04-05-11111111-1111-4111-8111-111111111111.jsonl');
    expect(has(cx, 'user', 'List the synthetic files.')).toBe(true);
    expect(has(cx, 'tool-call', 'find . -maxdepth 1 -type f')).toBe(true);
    expect(cx.some((p) => p.role === 'tool-call' && p.write && p.text.includes('gamma.txt'))).toBe(true);
    expect(has(cx, 'tool-output', './alpha.txt')).toBe(true);
    expect(cx.some((p) => p.text.includes('SYNTHETIC_ENCRYPTED_CONTENT'))).toBe(false);
    const child = ex('codex', 'codex/sessions/2026/01/03/rollout-2026-01-03T04-05-10-33333333-3333-4333-8333-333333333333.jsonl');
    expect(child.find((p) => p.text === 'Spawn a synthetic researcher.')?.copied).toBe(true);
    expect(child.find((p) => p.role === 'user' && p.text === 'Inspect fixtures.')?.copied).toBeFalsy();
    const p = ex('pi', 'pi/v1-legacy-excerpt-large-session.jsonl');
    expect(has(p, 'user', 'user-message-selector.ts')).toBe(true);
    expect(has(p, 'tool-call', 'packages/coding-agent/docs/theme.md')).toBe(true);
    expect(has(p, 'tool-output', 'Pi Coding Agent Themes')).toBe(true);
    const cu = ex('cursor', 'cursor/test-session.jsonl');
    expect(has(cu, 'user', 'now show me the git status')).toBe(true);
    expect(cu.some((x) => x.text.includes('<user_query>'))).toBe(false);
    expect(has(cu, 'tool-call', 'git status')).toBe(true);
    expect(cu.some((x) => x.text === '[REDACTED]')).toBe(false);
    const g = ex('gemini', 'gemini/session-jsonl-v040.jsonl');
    expect(has(g, 'user', 'Say hello and list files.')).toBe(true);
    expect(has(g, 'tool-call', 'ls -F')).toBe(true);
    expect(has(g, 'assistant', 'Hello! I listed the files.')).toBe(true);
    const gl = ex('gemini', 'gemini/legacy-session.json');
    expect(has(gl, 'user', 'Hello')).toBe(true);
    const oc = EXTRACTORS.opencode(
      {
        role: 'assistant',
        part: JSON.parse(fs.readFileSync(path.join(FIXTURES, 'opencode/legacy-storage/part/m_assistant_small/001.json'), 'utf8')),
      },
      { first: false, st: {} },
    );
    expect(has(oc, 'tool-call', 'bash ls')).toBe(true);
    expect(has(oc, 'tool-output', 'a.txt')).toBe(true);
  });

  it('searches all six harnesses through the CLI', () => {
    const h = home();
    put(h, 'claude/projects', '.claude/projects');
    put(h, 'codex/sessions', '.codex/sessions');
    put(h, 'pi/sessions', '.pi/agent/sessions');
    // Gemini: a project temp dir with its root recorded
    const gdir = path.join(h, '.gemini/tmp/proj');
    write(h, path.join(gdir, '.project_root'), '/w/gemini-proj');
    put(h, 'gemini/session-jsonl-v040.jsonl', path.relative(h, path.join(gdir, 'chats/session-2026-04-29T21-39-gemini_s.jsonl')));
    // Cursor: a transcript under projects/<slug>/agent-transcripts/<chatId>/
    const chat = 'c0ffee00-1111-4222-8333-444455556666';
    put(h, 'cursor/test-session.jsonl', `.cursor/projects/w-cursor-proj/agent-transcripts/${chat}/${chat}.jsonl`);
    put(
      h,
      'cursor/subagent-session.jsonl',
      `.cursor/projects/w-cursor-proj/agent-transcripts/${chat}/subagents/d0d0d0d0-1111-4222-8333-444455556666.jsonl`,
    );
    // opencode v1.2: a WAL database built from the fixture schema
    const require = createRequire(import.meta.url);
    const Database = require('better-sqlite3');
    const dbFile = path.join(h, '.local/share/opencode/opencode.db');
    fs.mkdirSync(path.dirname(dbFile), { recursive: true });
    const db = new Database(dbFile);
    db.pragma('journal_mode = WAL');
    db.exec(fs.readFileSync(path.join(FIXTURES, 'opencode/schema-v1.2-migrations.sql'), 'utf8'));
    db.prepare("INSERT INTO project (id, worktree, time_created, time_updated, sandboxes) VALUES ('global', '/', 1, 1, '[]')").run();
    const ses = db.prepare(
      "INSERT INTO session (id, project_id, parent_id, slug, directory, title, version, time_created, time_updated) VALUES (?, 'global', ?, ?, '/w/oc', ?, '1.2.0', ?, ?)",
    );
    ses.run('ses_parent', null, 'parent', 'Port the axolotl service', 1770000000000, 1770000100000);
    ses.run('ses_child', 'ses_parent', 'child', 'Child session', 1770000050000, 1770000060000);
    const msg = db.prepare('INSERT INTO message (id, session_id, time_created, time_updated, data) VALUES (?, ?, 1, 1, ?)');
    const part = db.prepare('INSERT INTO part (id, message_id, session_id, time_created, time_updated, data) VALUES (?, ?, ?, 1, 1, ?)');
    msg.run('msg_1', 'ses_parent', JSON.stringify({ role: 'user' }));
    part.run('prt_1', 'msg_1', 'ses_parent', JSON.stringify({ type: 'text', text: 'port the axolotl service to Go' }));
    msg.run('msg_2', 'ses_child', JSON.stringify({ role: 'assistant' }));
    part.run(
      'prt_2',
      'msg_2',
      'ses_child',
      JSON.stringify({
        type: 'tool',
        tool: 'bash',
        state: { status: 'completed', input: { command: 'go test ./salamander/...' }, output: 'ok' },
      }),
    );
    db.close();
    // opencode before v1.2: the JSON storage tree
    put(h, 'opencode/legacy-storage', '.local/share/opencode/storage');

    const cases: [string[], string, string][] = [
      [['TODO'], 'claude', '0a1b2c3d-4e5f-4061-8071-2a3b4c5d6e7f'],
      [['alpha.txt'], 'codex', '11111111-1111-4111-8111-111111111111'],
      // a programmatic run (its first prompt 16 ms after the header): hidden as headless, so -a
      [['-a', 'hello.py'], 'pi', '019e19b4-eb48-746a-aa6b-8dfcfa37954b'],
      [['"say hello and list files"'], 'gemini', 'gemini_stage0_jsonl'],
      [['git', 'status'], 'cursor', chat],
      [['axolotl'], 'opencode', 'ses_parent'],
      [['salamander'], 'opencode', 'ses_parent'], // in the child session: reported on the parent
      [['found', '2', 'files'], 'opencode', 's_stage0_small'],
    ];
    for (const [q, harness, id] of cases) {
      const r = searchJson(h, q);
      expect(
        r.map((x) => `${x.harness}:${x.id}`),
        q.join(' '),
      ).toContain(`${harness}:${id}`);
      expect(r.filter((x) => x.harness === harness).length, q.join(' ')).toBeGreaterThan(0);
    }
    // a Cursor subagent's words are found on the parent chat
    const sub = searchJson(h, ['workspace', 'directory', '--harness', 'cursor']);
    expect(sub.map((x) => x.id)).toEqual([chat]);
  });
});
