// Completing a word parses only the session records that hold it (lib/index/holding.ts, a LIKE in
// the database): what it offers must be what the whole listing gives, whatever field the word is in.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { plainWord, sessionsHolding } from '../lib/index/holding.js';
import { makeCtx } from '../lib/util/paths.js';
import { claudePrompt, jsonl, must, run, tempHome, write } from './helpers.js';

const uuid = (n: number) => `${String(n).padStart(8, '0')}-4444-4444-8444-444444444444`;
const cache = (h: string) => path.join(h, '.cache', 'resume');

function claude(h: string, n: number, cwd: string, prompts: string[], reply = 'a reply'): string {
  const id = uuid(n);
  const ts = `2026-05-${String(n).padStart(2, '0')}T10:00:00.000Z`;
  const lines = prompts.flatMap((text, i) => {
    const prompt = claudePrompt(id, cwd, text, ts, { gitBranch: `branch-${n}`, uuid: `u-${n}-${i}` });
    const answer = { role: 'assistant', model: 'claude-x', content: [{ type: 'text', text: reply }] };
    return [prompt, { ...prompt, type: 'assistant', message: answer, uuid: `a-${n}-${i}` }];
  });
  return write(h, `.claude/projects/${cwd.replace(/[^a-zA-Z0-9]/g, '-')}/${id}.jsonl`, jsonl(...lines));
}

function store(): string {
  const h = tempHome();
  claude(h, 1, '/work/alpha', ['Fix the Webhook retries', 'then the middle prompt', 'and the LASTWORD prompt']);
  claude(h, 2, '/work/beta-service', ['something about queues']);
  claude(h, 3, '/work/gamma', ['the \u212Aelvin scale reading']);
  claude(h, 4, '/work/delta', ['untitled one'], 'onlyinreply words');
  claude(h, 5, '/work/epsilon', ['quote "inside" and back\\slash']);
  write(
    h,
    `.pi/agent/sessions/--p--/2026-05-06T10-00-00-000Z_${uuid(6)}.jsonl`,
    jsonl(
      { type: 'session', version: 3, id: uuid(6), timestamp: '2026-05-06T10:00:00.000Z', cwd: '/work/pi-place' },
      {
        type: 'message',
        id: 'm1',
        parentId: null,
        timestamp: '2026-05-06T10:00:00.000Z',
        message: { role: 'user', content: [{ type: 'text', text: 'a pi webhook question' }], timestamp: 1 },
      },
      {
        type: 'message',
        id: 'm2',
        parentId: 'm1',
        timestamp: '2026-05-06T10:00:01.000Z',
        message: { role: 'assistant', content: [{ type: 'text', text: 'an answer' }], model: 'm', timestamp: 2 },
      },
    ),
  );
  write(h, '.config/resume/sessions/names.json', JSON.stringify({ [uuid(4)]: 'Snapshotted Name' }));
  return h;
}

const WORDS = [
  'webhook',
  'WEBHOOK',
  'lastword',
  'middle',
  'beta-serv',
  'branch-2',
  'pi',
  'kelvin',
  'k',
  'snapshotted',
  'onlyinreply',
  '4444-8444',
  'absentword',
  'claude:0000',
  'alpha',
];
const complete = (h: string, w: string, pre: string[] = []) => {
  const r = run(h, ['__complete', '--', ...pre, w]);
  expect(r.code, r.stderr).toBe(0);
  return r.stdout;
};

describe('completing a word from the listing records that hold it', () => {
  it('offers what the whole listing gives, for a word in any field, a snapshot name, or a letter a Unicode character lowers to', () => {
    const h = store();
    expect(run(h, ['index']).code).toBe(0);
    const ctx = makeCtx({ PATH: process.env.PATH, HOME: h, RESUME_CACHE_DIR: cache(h), TZ: 'UTC' });
    for (const w of WORDS) expect(sessionsHolding(ctx, [w]), w).not.toBeNull();
    const held = WORDS.map((w) => complete(h, w));
    const ids = (out: string) =>
      out
        .split('\n')
        .filter(Boolean)
        .map((l) => l.split('\t')[0]);
    // (the pi session holds it too, but is hidden as print-mode: words pass hidden sessions over)
    expect(ids(held[0])).toEqual([uuid(1).slice(0, 8)]);
    expect(held[1]).toBe(held[0]);
    expect(ids(held[2])).toEqual([uuid(1).slice(0, 8)]);
    expect(ids(held[WORDS.indexOf('kelvin')])).toEqual([uuid(3).slice(0, 8)]);
    expect(ids(held[WORDS.indexOf('snapshotted')])).toEqual([uuid(4).slice(0, 8)]);
    // a reply is not matched by words (it is held by the record, and passed over)
    // (none: the message line zsh shows in place of candidates)
    expect(held[WORDS.indexOf('onlyinreply')]).toBe("\tno session matches 'onlyinreply'\n");
    expect(held[WORDS.indexOf('absentword')]).toBe("\tno session matches 'absentword'\n");
    // what it finds holds every session the words name (it may hold more: the caller matches exactly)
    const all = JSON.parse(run(h, ['ls', '--json', '-a']).stdout) as Record<string, string | null>[];
    const fields = ['title', 'firstPrompt', 'lastPrompt', 'cwd', 'branch', 'id', 'harness'];
    for (const w of WORDS.filter(plainWord)) {
      const found = new Set(must(sessionsHolding(ctx, [w], { [uuid(4)]: 'Snapshotted Name' })).sessions.map((s) => s.key));
      const holding = all.filter((s) => fields.some((f) => (s[f] ?? '').toLowerCase().includes(w.toLowerCase())));
      for (const s of holding) expect(found.has(`${s.harness}:${s.id}`), `${w}: ${s.id}`).toBe(true);
    }
    // with the other filters on the line
    expect(complete(h, 'webhook', ['--harness', 'claude'])).toBe(held[0]);
    expect(complete(h, 'webhook', ['--harness', 'pi'])).toBe("\tno session matches 'webhook'\n");
  });

  it('after an append, and passes over what it cannot find as bytes', () => {
    const h = store();
    expect(run(h, ['index']).code).toBe(0);
    const file = claude(h, 2, '/work/beta-service', ['something about queues']);
    fs.appendFileSync(
      file,
      jsonl({
        parentUuid: null,
        isSidechain: false,
        userType: 'external',
        cwd: '/work/beta-service',
        sessionId: uuid(2),
        version: '2.1.207',
        gitBranch: 'branch-2',
        timestamp: '2026-06-01T10:00:00.000Z',
        entrypoint: 'cli',
        type: 'user',
        message: { role: 'user', content: 'appended zeppelin prompt' },
        uuid: 'late',
      }),
    );
    expect(run(h, ['index']).code).toBe(0);
    const ctx = makeCtx({ PATH: process.env.PATH, HOME: h, RESUME_CACHE_DIR: cache(h), TZ: 'UTC' });
    expect(sessionsHolding(ctx, ['zeppelin'])).not.toBeNull();
    const words = ['zeppelin', 'queues', 'webhook', 'branch-2'];
    const held = words.map((w) => complete(h, w));
    expect(held[0].split('\t')[0]).toBe(uuid(2).slice(0, 8));
    // a damaged database is not trusted: the index is built again, and completes the same
    for (const f of ['index.db-wal', 'index.db-shm']) fs.rmSync(path.join(cache(h), f), { force: true });
    fs.writeFileSync(path.join(cache(h), 'index.db'), 'not a database');
    expect(sessionsHolding(ctx, ['queues'])).toBeNull();
    expect(words.map((w) => complete(h, w))).toEqual(held);

    // words JSON writes otherwise than as their bytes, and paths: the whole listing
    for (const w of ['"inside"', 'back\\slash', 'caf\u00e9', 'two words', '']) expect(plainWord(w), w).toBe(false);
    expect(sessionsHolding(ctx, ['quote"'])).toBeNull();
    expect(complete(h, '"inside"').split('\t')[0]).toBe(uuid(5).slice(0, 8));
  });
});
