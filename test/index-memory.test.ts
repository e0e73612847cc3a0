// A full build that lets go of what it has written (peak memory at scale): each source is written to
// the database as it is read, a written entry keeps only what the finish passes read
// (`Finish.reads`), and the index comes out the same as when every parser state is kept to the end
// (`withEntries`, as doctor asks), on one thread, on workers (results out of order), and in the
// streaming build.
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { type IndexResult, storedFiles, storedSizes, updateIndex } from '../lib/index/index.js';
import type { Session } from '../lib/types.js';
import { makeCtx } from '../lib/util/paths.js';
import { jsonl, lsJson, must, put, ROOT, run, tempHome, write } from './helpers.js';

const WORKER = path.join(ROOT, 'dist', 'worker.cjs');

// Claude: a parent and its fork (same uuids, no marker), titled
const P = 'aaaaaaaa-0000-4000-8000-000000000001';
const F = 'aaaaaaaa-0000-4000-8000-000000000002';
const u = (n: number) => `bbbbbbbb-0000-4000-8000-${n.toString(16).padStart(12, '0')}`;
const cuser = (sid: string, uuid: string, parent: string | null, text: string, ts: string) => ({
  type: 'user',
  sessionId: sid,
  uuid,
  parentUuid: parent,
  cwd: '/tmp',
  timestamp: ts,
  entrypoint: 'cli',
  message: { role: 'user', content: text },
});
const cbot = (sid: string, uuid: string, parent: string, text: string, ts: string) => ({
  type: 'assistant',
  sessionId: sid,
  uuid,
  parentUuid: parent,
  cwd: '/tmp',
  timestamp: ts,
  message: { role: 'assistant', model: 'claude-test', content: [{ type: 'text', text }] },
});
const history = (sid: string) => [
  cuser(sid, u(1), null, 'parent first prompt', '2026-03-01T10:00:00.000Z'),
  cbot(sid, u(2), u(1), 'ok', '2026-03-01T10:00:01.000Z'),
  cuser(sid, u(3), u(2), 'parent second prompt', '2026-03-01T10:00:02.000Z'),
  cbot(sid, u(4), u(3), 'ok', '2026-03-01T10:00:03.000Z'),
  { type: 'ai-title', sessionId: sid, aiTitle: 'Parent work' },
];

// Codex: a parent and a fork whose copied history has fresh time stamps, and a named thread
const CP = '019a0000-0000-7000-8000-000000000010';
const CF = '019a0000-0000-7000-8000-000000000011';
const cmeta = (id: string, ts: string, extra: Record<string, unknown> = {}) => ({
  timestamp: ts,
  type: 'session_meta',
  payload: { id, timestamp: ts, cwd: '/work/proj', originator: 'codex_cli_rs', cli_version: '0.146.0', source: 'cli', ...extra },
});
const cprompt = (text: string, ts: string) => ({ timestamp: ts, type: 'event_msg', payload: { type: 'user_message', message: text } });
const rollout = (id: string, day: string, stamp: string) => `.codex/sessions/${day}/rollout-${stamp}-${id}.jsonl`;

/** pi, Claude and Codex sessions, with forks and a thread name (finish passes with work to do). */
function corpus(): string {
  const home = tempHome();
  put(home, 'pi/sessions', '.pi/agent/sessions');
  put(home, 'claude/projects/-tmp', '.claude/projects/-tmp');
  put(home, 'codex/sessions', '.codex/sessions');
  write(
    home,
    `.claude/projects/-tmp/${P}.jsonl`,
    jsonl(...history(P), cuser(P, u(20), u(4), 'parent after the fork', '2026-03-01T12:00:00.000Z')),
  );
  write(
    home,
    `.claude/projects/-tmp/${F}.jsonl`,
    jsonl(
      ...history(F),
      cuser(F, u(10), u(4), 'fork own prompt', '2026-03-01T11:00:00.000Z'),
      cbot(F, u(11), u(10), 'fork reply', '2026-03-01T11:00:01.000Z'),
      cuser(F, u(12), u(11), 'fork second own prompt', '2026-03-01T12:30:00.000Z'),
    ),
  );
  write(
    home,
    rollout(CP, '2026/02/01', '2026-02-01T10-00-00'),
    jsonl(
      cmeta(CP, '2026-02-01T10:00:00.000Z'),
      cprompt('codex parent one', '2026-02-01T10:00:01.000Z'),
      cprompt('codex parent two', '2026-02-01T10:00:02.000Z'),
    ),
  );
  write(
    home,
    rollout(CF, '2026/02/02', '2026-02-02T09-00-00'),
    jsonl(
      cmeta(CF, '2026-02-02T09:00:00.000Z', { forked_from_id: CP }),
      cmeta(CP, '2026-02-02T09:00:00.000Z'),
      cprompt('codex parent one', '2026-02-02T09:00:00.000Z'),
      cprompt('codex parent two', '2026-02-02T09:00:00.000Z'),
      cprompt('codex fork own prompt', '2026-02-02T09:01:00.000Z'),
      cprompt('codex fork second prompt', '2026-02-02T09:02:00.000Z'),
    ),
  );
  write(home, '.codex/session_index.jsonl', jsonl({ id: CP, thread_name: 'Codex parent thread', updated_at: '2026-02-01T10:00:03Z' }));
  // several pi sessions with several prompts each (every prompt is kept in the state)
  for (let i = 0; i < 12; i++) {
    const id = `019e0000-0000-7000-8000-${String(i).padStart(12, '0')}`;
    const t = Date.parse(`2026-04-0${1 + (i % 9)}T10:00:0${i % 10}.000Z`);
    const iso = (ms: number) => new Date(t + ms).toISOString();
    const lines: unknown[] = [{ type: 'session', version: 3, id, timestamp: iso(0), cwd: `/work/p${i}` }];
    for (let k = 0; k < 4; k++) {
      lines.push({
        type: 'message',
        id: `m${k}`,
        parentId: null,
        timestamp: iso(5000 + k * 1000),
        message: {
          role: 'user',
          content: [{ type: 'text', text: `pi ${i} prompt ${k}${i === 7 && k === 2 ? ' zeppelin' : ''}` }],
          timestamp: t + 5000 + k * 1000,
        },
      });
      lines.push({
        type: 'message',
        id: `r${k}`,
        parentId: `m${k}`,
        timestamp: iso(5500 + k * 1000),
        message: { role: 'assistant', content: [{ type: 'text', text: `reply ${k}` }], timestamp: t + 5500 + k * 1000 },
      });
    }
    write(home, `.pi/agent/sessions/--work-p${i}--/2026-04-01T10-00-00-000Z_${id}.jsonl`, jsonl(...lines));
  }
  return home;
}

/** What the index of a cache holds: the database's tables, rows.bin and check.bin, the build id masked, the read times of directories left out. */
function indexFiles(cache: string): Record<string, string> {
  const out: Record<string, string> = {};
  const Sqlite = createRequire(import.meta.url)('better-sqlite3');
  const db = new Sqlite(path.join(cache, 'index.db'), { readonly: true });
  out.sources = JSON.stringify(
    db.prepare('SELECT path, harness, size, mtime, ino, sig, src, off, tail, state, sessions, error FROM sources ORDER BY path').all(),
  );
  out.sessions = JSON.stringify(
    db.prepare('SELECT key, harness, id, file, at, short, link, fork, doc, hex(rec) FROM sessions ORDER BY key').all(),
  );
  out.prompts = JSON.stringify(db.prepare('SELECT * FROM prompts ORDER BY path, key').all());
  db.close();
  out['rows.bin'] = fs
    .readFileSync(path.join(cache, 'rows.bin'))
    .toString('latin1')
    .replace(/^(v\d+) \S+/, '$1 ID');
  // check.bin: the stats and paths after the discovery memos (which hold read times) and each
  // source's memo code (0 for a source in a directory changed within 2 s of the read, which no memo
  // holds yet: a build a few seconds later than the first memoises it)
  const check = fs.readFileSync(path.join(cache, 'check.bin'));
  const nl = check.indexOf(10);
  const [, , count, metaLen] = check.toString('latin1', 0, nl).split(' ');
  out['check.bin'] = check.subarray(nl + 1 + Number(metaLen) + Number(count)).toString('latin1');
  return out;
}

const saved = { threads: process.env.RESUME_THREADS, min: process.env.RESUME_PARALLEL_MIN_BYTES };
afterEach(() => {
  for (const [k, v] of [
    ['RESUME_THREADS', saved.threads],
    ['RESUME_PARALLEL_MIN_BYTES', saved.min],
  ] as const) {
    if (v === undefined) delete process.env[k];
    else process.env[k] = v;
  }
});

async function build(home: string, cache: string, opts: Parameters<typeof updateIndex>[1] = {}): Promise<IndexResult> {
  const ctx = makeCtx({ PATH: process.env.PATH, HOME: home, RESUME_CACHE_DIR: cache, TZ: 'UTC' });
  return updateIndex(ctx, { rebuild: true, ...opts });
}

const withoutPrompts = (ss: Session[]) => ss.map(({ allPrompts: _, ...s }) => s);

describe('a full build lets go of what it has written, and writes the same index', () => {
  it('the same files and sessions as a build that keeps every parser state: one thread, workers, streaming', async () => {
    const home = corpus();
    const kept = await build(home, path.join(home, 'c-kept'), { withEntries: true });
    const base = indexFiles(path.join(home, 'c-kept'));
    // the finish passes had work to do (and did it from the parts of the states they are left)
    const byId = (id: string) => must(kept.sessions.find((s) => s.id === id));
    expect(byId(F)).toMatchObject({ forkedFrom: P, firstPrompt: 'fork own prompt', lastPrompt: 'fork second own prompt', prompts: 2 });
    expect(byId(CF)).toMatchObject({
      forkedFrom: CP,
      firstPrompt: 'codex fork own prompt',
      lastPrompt: 'codex fork second prompt',
      prompts: 2,
    });
    expect(byId(CP)).toMatchObject({ title: 'Codex parent thread' });
    // as many entries as sources (check.bin's header: v<version> <build> <count> <meta length>)
    const check = fs.readFileSync(path.join(home, 'c-kept', 'check.bin'));
    expect(kept.entries && Object.keys(kept.entries).length).toBe(Number(check.toString('latin1', 0, check.indexOf(10)).split(' ')[2]));

    // one thread (2 cores: the default here) and the slimmed entries
    const one = await build(home, path.join(home, 'c-one'));
    expect(indexFiles(path.join(home, 'c-one'))).toEqual(base);
    expect(withoutPrompts(one.sessions)).toEqual(withoutPrompts(kept.sessions));
    // the entries are not handed back unless asked for; the prompts for words are in the prompts table
    expect(one.entries).toBeUndefined();
    expect(one.sessions.some((s) => s.allPrompts)).toBe(false);
    expect(base.prompts).toContain('pi 3 prompt 2');
    expect(base.sessions).not.toContain('pi 3 prompt 2');

    // workers: results come back out of order
    process.env.RESUME_THREADS = '3';
    process.env.RESUME_PARALLEL_MIN_BYTES = '0';
    const workers = await build(home, path.join(home, 'c-workers'), { workerFile: WORKER });
    expect(indexFiles(path.join(home, 'c-workers'))).toEqual(base);
    expect(withoutPrompts(workers.sessions)).toEqual(withoutPrompts(kept.sessions));
    delete process.env.RESUME_THREADS;

    // streaming (newest first): the same index
    const batches: Session[] = [];
    const streamed = await build(home, path.join(home, 'c-stream'), { onSessions: (b) => batches.push(...b) });
    expect(indexFiles(path.join(home, 'c-stream'))).toEqual(base);
    expect(withoutPrompts(batches)).toEqual(withoutPrompts(streamed.sessions));
    expect(withoutPrompts(streamed.sessions)).toEqual(withoutPrompts(kept.sessions));
  });

  it('words from any prompt still name a session right after a cold build (read from the prompts table)', () => {
    const home = corpus();
    // a middle prompt: in no session record, only in the prompts table
    expect(run(home, ['resolve', 'zeppelin'])).toMatchObject({ code: 0, stdout: 'pi:019e0000-0000-7000-8000-000000000007\n' });
    const held = indexFiles(path.join(home, '.cache', 'resume'));
    expect(held.sessions).not.toContain('zeppelin');
    expect(held.prompts).toContain('zeppelin');
  });
});

describe('a line of many megabytes', () => {
  const big = (home: string) => {
    const id = '019e1111-0000-7000-8000-000000000001';
    const t = Date.parse('2026-05-01T10:00:00.000Z');
    const iso = (ms: number) => new Date(t + ms).toISOString();
    write(
      home,
      `.pi/agent/sessions/--work-big--/2026-05-01T10-00-00-000Z_${id}.jsonl`,
      jsonl(
        { type: 'session', version: 3, id, timestamp: iso(0), cwd: '/work/big' },
        {
          type: 'message',
          id: 'a',
          parentId: null,
          timestamp: iso(5000),
          message: { role: 'user', content: [{ type: 'text', text: 'before the big line' }], timestamp: t + 5000 },
        },
        // 20 MB of tool output on one line (over the 16 MiB a line is cut at)
        {
          type: 'message',
          id: 'b',
          parentId: 'a',
          timestamp: iso(6000),
          message: { role: 'toolResult', toolCallId: 'c1', content: [{ type: 'text', text: 'x'.repeat(20 << 20) }], timestamp: t + 6000 },
        },
        {
          type: 'message',
          id: 'c',
          parentId: 'b',
          timestamp: iso(7000),
          message: { role: 'user', content: [{ type: 'text', text: 'after the big line' }], timestamp: t + 7000 },
        },
      ),
    );
    return id;
  };

  it('a transcript with a 20 MB line still indexes, on one thread and on workers', () => {
    for (const env of [{}, { RESUME_THREADS: '2', RESUME_PARALLEL_MIN_BYTES: '0' }]) {
      const home = tempHome();
      const id = big(home);
      // a second file, so that two workers have work
      put(home, 'pi/sessions', '.pi/agent/sessions');
      expect(run(home, ['index', '--rebuild'], env).code).toBe(0);
      const s = lsJson(home, env).find((x) => x.id === id);
      expect(s).toMatchObject({ prompts: 2, firstPrompt: 'before the big line', lastPrompt: 'after the big line', hidden: false });
    }
  });
});

describe('the sizes check.bin recorded (storedSizes, storedFiles: how a search orders its work)', () => {
  it('come from the check.bin the index run read, and from the file again once it was replaced', async () => {
    const home = tempHome();
    const cache = path.join(home, '.cache', 'resume');
    const a = write(
      home,
      '.pi/agent/sessions/--a--/2026-01-01T00-00-00-000Z_a.jsonl',
      jsonl({ type: 'session', version: 3, id: 'a', timestamp: '2026-01-01T00:00:00.000Z', cwd: '/a' }),
    );
    const b = write(
      home,
      '.pi/agent/sessions/--b--/2026-01-02T00-00-00-000Z_b.jsonl',
      jsonl({ type: 'session', version: 3, id: 'b', timestamp: '2026-01-02T00:00:00.000Z', cwd: '/b' }),
    );
    const ctx = makeCtx({ PATH: process.env.PATH, HOME: home, RESUME_CACHE_DIR: cache, TZ: 'UTC' });
    await updateIndex(ctx);
    const size = (f: string) => fs.statSync(f).size;
    expect(Object.fromEntries(storedSizes(ctx))).toEqual({ [a]: size(a), [b]: size(b) });
    // another process brings the index up to date: check.bin is a new file, read again
    fs.appendFileSync(
      a,
      jsonl({
        type: 'message',
        id: 'm',
        parentId: null,
        timestamp: '2026-01-03T00:00:00.000Z',
        message: { role: 'user', content: [{ type: 'text', text: 'more' }] },
      }),
    );
    expect(run(home, ['index']).code).toBe(0);
    expect(storedSizes(ctx).get(a)).toBe(size(a));
    // the files, largest first (the order a search's threads mark them in): a grew past b
    expect(size(a)).toBeGreaterThan(size(b));
    expect(storedFiles(ctx)).toEqual([a, b]);
    fs.appendFileSync(
      b,
      jsonl({
        type: 'message',
        id: 'n',
        parentId: null,
        timestamp: '2026-01-03T00:00:00.000Z',
        message: { role: 'user', content: [{ type: 'text', text: 'much more than a said, '.repeat(20) }] },
      }),
    );
    expect(run(home, ['index']).code).toBe(0);
    expect(size(b)).toBeGreaterThan(size(a));
    expect(storedFiles(ctx)).toEqual([b, a]);
    // no check.bin: no sizes, no files
    fs.rmSync(path.join(cache, 'check.bin'));
    expect(storedSizes(ctx).size).toBe(0);
    expect(storedFiles(ctx)).toEqual([]);
  });
});
