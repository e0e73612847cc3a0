// Issue 15, the append path: an append to existing sessions writes list.patch (and check.patch over rows.bin and check.bin)
// instead of rewriting list.json and rows.json. What it must never do is serve a stale listing:
// every listing here is compared with one built from nothing (another cache directory).
import fs from 'node:fs';
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { jsonl, run, tempDir, tempHome, write } from './helpers.js';
import { byRecency, INDEX_VERSION, shardCount, STATE_VERSION } from '../lib/index/index.js';
import { applyStats, emptyOver, findKeys, overBytes, overlayRows, overWith, parseOver, splitRecords, type Over } from '../lib/index/overlay.js';
import { printRowBin, readRowBin, rowBinChunks } from '../lib/index/rowbin.js';
import { heldEntry, readShardText, writeShardFiles } from '../lib/index/shardtext.js';
import { HELD_HEAD, memberLine, promptLine, reviveEntry } from '../lib/index/promptfile.js';
import type { Session } from '../lib/types.js';

const uuid = (n: number) => `${String(n).padStart(8, '0')}-2222-4222-8222-222222222222`;
const ts = (day: number, h = 10) => `2026-05-${String(day).padStart(2, '0')}T${String(h).padStart(2, '0')}:00:00.000Z`;
function claudeLine(id: string, cwd: string, text: string, at: string, extra: Record<string, unknown> = {}): string {
  return jsonl({
    parentUuid: null, isSidechain: false, userType: 'external', cwd, sessionId: id, version: '2.1.207', gitBranch: 'main',
    type: 'user', message: { role: 'user', content: text }, uuid: `u-${id}-${at}`, timestamp: at, entrypoint: 'cli', ...extra,
  });
}
const piHeader = (id: string, cwd: string, at: string) => jsonl({ type: 'session', version: 3, id, timestamp: at, cwd });
const piMessage = (text: string, at: string, n: number) =>
  jsonl({ type: 'message', id: `m${n}`, parentId: null, timestamp: at, message: { role: 'user', content: [{ type: 'text', text }], timestamp: Date.parse(at) } });

const cache = (h: string) => path.join(h, '.cache', 'resume');
const claudeFile = (h: string, n: number) => path.join(h, `.claude/projects/-tmp-p${n}/${uuid(n)}.jsonl`);
const piFile = (h: string, n: number) => path.join(h, `.pi/agent/sessions/--tmp-q${n}--/2026-05-01T10-00-00-000Z_${uuid(n)}.jsonl`);

/** Three Claude sessions (1–3) and two pi sessions (4, 5), on days 1–5. */
function store(): string {
  const h = tempHome();
  for (const n of [1, 2, 3]) write(h, claudeFile(h, n), claudeLine(uuid(n), `/tmp/p${n}`, `claude prompt ${n}`, ts(n)));
  for (const n of [4, 5]) write(h, piFile(h, n), piHeader(uuid(n), `/tmp/q${n}`, ts(n)) + piMessage(`pi prompt ${n}`, ts(n), 1));
  return h;
}

function ok(h: string, args: string[], env: Record<string, string> = {}): string {
  const r = run(h, args, env);
  expect(r.code, r.stderr).toBe(0);
  return r.stdout;
}
/** What a listing shows, read through every reader: rows (rows.bin), rows --align (rows.json), ls --json (list.json). */
function views(h: string, env: Record<string, string> = {}): { rows: string; align: string; ls: unknown } {
  return { rows: ok(h, ['rows', '-a'], env), align: ok(h, ['rows', '-a', '--align'], env), ls: JSON.parse(ok(h, ['ls', '--json', '-a'], env)) };
}
/** The same, from a listing built from nothing. */
const fresh = (h: string) => views(h, { RESUME_CACHE_DIR: tempDir('resume-fresh-') });
const expectFresh = (h: string, env: Record<string, string> = {}) => expect(views(h, env)).toEqual(fresh(h));
/** The same against a listing built by `index` first: a cold `rows` streams, its short ids unique among the rows so far. */
const expectBuilt = (h: string) => {
  const env = { RESUME_CACHE_DIR: tempDir('resume-fresh-') };
  ok(h, ['index'], env);
  expect(views(h)).toEqual(views(h, env));
};
const keys = (out: string) => out.split('\n').filter(Boolean).map((l) => l.split('\t')[0]);
const read = (h: string, f: string) => fs.readFileSync(path.join(cache(h), f));
const exists = (h: string, f: string) => fs.existsSync(path.join(cache(h), f));
const patchOf = (h: string) => JSON.parse(read(h, 'list.patch').toString('utf8'));
/** The build check.bin names: check.patch's when one is over it (its base is check.bin's own build). */
const checkId = (h: string) => {
  const own = read(h, 'check.bin').toString('latin1').split('\n')[0]!.split(' ')[1];
  const over = exists(h, 'check.patch') ? read(h, 'check.patch').toString('latin1').split('\n')[0]!.split(' ') : null;
  return over && over[2] === own ? over[1] : own;
};
const listId = (h: string) => JSON.parse(read(h, 'list.json').toString('utf8')).id as string;
const counts = (h: string, env: Record<string, string> = {}) => {
  const r = run(h, ['index'], env);
  expect(r.code, r.stderr).toBe(0);
  return r.stderr;
};

describe('an append patches the listing', () => {
  it('rows, rows --align, ls and preview show the new last prompt and order; list.json and rows.json are not rewritten', () => {
    const h = store();
    const before = views(h);
    expect(keys(before.rows)).toEqual([5, 4, 3, 2, 1].map((n) => (n > 3 ? 'pi:' : 'claude:') + uuid(n)));
    const list = read(h, 'list.json');
    const rowsJson = read(h, 'rows.json');
    const rowsBin = read(h, 'rows.bin');
    const checkBin = read(h, 'check.bin');
    expect(exists(h, 'list.patch')).toBe(false);
    expect(exists(h, 'check.patch')).toBe(false);
    expect(exists(h, 'files.json')).toBe(false);

    // the oldest Claude session goes on, later than every other
    fs.appendFileSync(claudeFile(h, 1), claudeLine(uuid(1), '/tmp/p1', 'claude later one', ts(9)));
    const after = ok(h, ['rows', '-a']);
    expect(keys(after)[0]).toBe(`claude:${uuid(1)}`);
    expect(read(h, 'list.json').equals(list)).toBe(true);
    expect(read(h, 'rows.json').equals(rowsJson)).toBe(true);
    const p = patchOf(h);
    expect(p).toMatchObject({ v: INDEX_VERSION, id: checkId(h), base: listId(h), drop: [`claude:${uuid(1)}`], short: [uuid(1).slice(0, 8)] });
    expect(p.put.map((s: { key: string; lastPrompt: string }) => [s.key, s.lastPrompt])).toEqual([[`claude:${uuid(1)}`, 'claude later one']]);
    // the prompts stay in the state shards, never in the listing
    expect(p.put[0].allPrompts).toBeUndefined();
    expectFresh(h);
    const ls = JSON.parse(ok(h, ['ls', '--json', '-a']));
    expect(ls[0]).toMatchObject({ id: uuid(1), prompts: 2 });
    // the picker's preview reads the stored listing (with the patch): the new prompt count and last prompt
    expect(ok(h, ['preview', `claude:${uuid(1)}`])).toMatch(/prompts: +2\n[^]*last prompt:\nclaude later one\n/);
    // rows.bin is not written again, nor check.bin's build (it is written again only to record a
    // discovery memo: one is not made of a directory changed in the last 2 s, so when depends on
    // the clock): check.patch, over them, names the build
    const ownId = (b: Buffer) => b.toString('latin1').split(' ')[1];
    expect(read(h, 'rows.bin').equals(rowsBin)).toBe(true);
    expect(ownId(read(h, 'check.bin'))).toBe(ownId(checkBin));
    expect(read(h, 'check.patch').toString('latin1').split('\n')[0]).toMatch(new RegExp(`^c${INDEX_VERSION} ${p.id} ${ownId(checkBin)} [01] 1 1$`));
    // the next run has nothing to do
    expect(counts(h)).toMatch(/0 parsed, 0 appended, 5 unchanged/);

    // a pi session too: in place in the order, without moving ahead
    fs.appendFileSync(piFile(h, 4), piMessage('pi later four', ts(4, 12), 2));
    expect(keys(ok(h, ['rows', '-a']))).toEqual([`claude:${uuid(1)}`, `pi:${uuid(5)}`, `pi:${uuid(4)}`, `claude:${uuid(3)}`, `claude:${uuid(2)}`]);
    expect(read(h, 'list.json').equals(list)).toBe(true);
    expect(patchOf(h).drop.sort()).toEqual([`claude:${uuid(1)}`, `pi:${uuid(4)}`].sort());
    expectFresh(h);
  });

  it('an append while the discovery memos serve (sources taken from check.bin, their paths alike but for one character) patches the right session', () => {
    const h = store();
    // two more Claude sessions in one directory: paths of one length, the same last characters
    const dir = path.join(h, '.claude/projects/-tmp-same');
    const twin = (n: number) => path.join(dir, `${uuid(n)}.jsonl`);
    for (const n of [6, 7]) write(h, twin(n), claudeLine(uuid(n), '/tmp/same', `twin prompt ${n}`, ts(n)));
    ok(h, ['rows']);
    // directories read more than RACY_MS after their last change are remembered (lib/index/discmemo.ts)
    spawnSync('sleep', ['2.4']);
    ok(h, ['rows']);
    expect(read(h, 'check.bin').toString('latin1')).toContain('"memo"');
    const list = read(h, 'list.json');
    fs.appendFileSync(twin(6), claudeLine(uuid(6), '/tmp/same', 'twin six goes on', ts(9)));
    const after = ok(h, ['rows', '-a']);
    expect(keys(after)[0]).toBe(`claude:${uuid(6)}`);
    expect(read(h, 'list.json').equals(list)).toBe(true);
    expect(patchOf(h).put.map((s: { key: string; lastPrompt: string }) => [s.key, s.lastPrompt])).toEqual([[`claude:${uuid(6)}`, 'twin six goes on']]);
    expect(read(h, 'check.bin').toString('latin1')).toContain('"memo"');
    expectFresh(h);
    expect(counts(h)).toMatch(/0 parsed, 0 appended, 7 unchanged/);
    // and the other twin after it
    fs.appendFileSync(twin(7), claudeLine(uuid(7), '/tmp/same', 'twin seven too', ts(10)));
    expect(keys(ok(h, ['rows', '-a'])).slice(0, 2)).toEqual([`claude:${uuid(7)}`, `claude:${uuid(6)}`]);
    expect(read(h, 'list.json').equals(list)).toBe(true);
    expectFresh(h);
  });

  it('an append seen first by ls, search or resolve (the whole listing) patches it the same', () => {
    const h = store();
    views(h);
    fs.appendFileSync(claudeFile(h, 2), claudeLine(uuid(2), '/tmp/p2', 'claude later two', ts(8)));
    const ls = JSON.parse(ok(h, ['ls', '--json', '-a']));
    expect(ls[0]).toMatchObject({ id: uuid(2), prompts: 2 });
    expect(exists(h, 'list.patch')).toBe(true);
    expect(ok(h, ['resolve', 'later two'])).toContain(uuid(2));
    expectFresh(h);
  });

  it('successive appends merge into one patch on the same base; past the bound the listing is rewritten whole', { timeout: 60_000 }, () => {
    const h = store();
    const env = { RESUME_PATCH_MAX: '3' };
    views(h, env);
    const base = listId(h);
    // two sessions grown in one run, then one of them again, then a third
    fs.appendFileSync(claudeFile(h, 1), claudeLine(uuid(1), '/tmp/p1', 'one a', ts(10)));
    fs.appendFileSync(piFile(h, 5), piMessage('five a', ts(11), 2));
    expectFresh(h, env);
    expect(patchOf(h).put).toHaveLength(2);
    fs.appendFileSync(claudeFile(h, 1), claudeLine(uuid(1), '/tmp/p1', 'one b', ts(12)));
    expectFresh(h, env);
    fs.appendFileSync(claudeFile(h, 3), claudeLine(uuid(3), '/tmp/p3', 'three a', ts(13)));
    expectFresh(h, env);
    const p = patchOf(h);
    expect(p.base).toBe(base);
    expect(listId(h)).toBe(base);
    expect(p.put.map((s: { key: string }) => s.key).sort()).toEqual([`claude:${uuid(1)}`, `claude:${uuid(3)}`, `pi:${uuid(5)}`].sort());
    expect(p.put.find((s: { key: string }) => s.key === `claude:${uuid(1)}`).lastPrompt).toBe('one b');
    // a fourth session would pass the bound: everything is written again, the patch removed
    fs.appendFileSync(piFile(h, 4), piMessage('four a', ts(14), 2));
    expectFresh(h, env);
    expect(exists(h, 'list.patch')).toBe(false);
    expect(listId(h)).not.toBe(base);
    expect(listId(h)).toBe(checkId(h));
    // and the next append patches the new listing
    fs.appendFileSync(claudeFile(h, 2), claudeLine(uuid(2), '/tmp/p2', 'two a', ts(15)));
    expectFresh(h, env);
    expect(patchOf(h).base).toBe(listId(h));
  });

  it('many successive appends to every session stay one patch on the first base, listing as a build would', { timeout: 120_000 }, () => {
    const h = store();
    views(h);
    const base = listId(h);
    const grow = [
      (k: number) => fs.appendFileSync(claudeFile(h, 1 + (k % 3)), claudeLine(uuid(1 + (k % 3)), `/tmp/p${1 + (k % 3)}`, `claude round ${k}`, ts(10 + (k % 15), k % 24))),
      (k: number) => fs.appendFileSync(piFile(h, 4 + ((k >> 1) % 2)), piMessage(`pi round ${k}`, ts(10 + (k % 15), (k + 5) % 24), 10 + k)),
    ];
    for (let k = 0; k < 16; k++) {
      grow[k % 2]!(k);
      ok(h, ['rows', '-a']);
    }
    const p = patchOf(h);
    expect(p.base).toBe(base);
    expect(p.put).toHaveLength(5);
    expect(p.id).toBe(checkId(h));
    expectFresh(h);
  });

  it('a session that appears or goes is patched over the listing; a Claude Code fork (its first record another\'s) rewrites it', () => {
    const h = store();
    views(h);
    fs.appendFileSync(claudeFile(h, 1), claudeLine(uuid(1), '/tmp/p1', 'one a', ts(10)));
    views(h);
    expect(exists(h, 'list.patch')).toBe(true);
    const list = listId(h);
    // a new Claude session whose first record is its own (links.bin: no other session has it)
    write(h, claudeFile(h, 6), claudeLine(uuid(6), '/tmp/p6', 'claude prompt 6', ts(11)));
    expect(counts(h)).toMatch(/1 parsed, 0 appended, 5 unchanged/);
    expectFresh(h);
    expect(listId(h)).toBe(list);
    expect(keys(ok(h, ['rows', '-a']))).toContain(`claude:${uuid(6)}`);
    // a fork of session 3 (its first record copied): the finish pass over the listing links it
    write(h, claudeFile(h, 8), claudeLine(uuid(8), '/tmp/p3', 'claude prompt 3', ts(3), { uuid: `u-${uuid(3)}-${ts(3)}` }) + claudeLine(uuid(8), '/tmp/p3', 'the fork of three', ts(15)));
    expectFresh(h);
    expect(exists(h, 'list.patch')).toBe(false);
    expect(listId(h)).not.toBe(list);
    expect((JSON.parse(ok(h, ['ls', '--json', '-a'])) as { id: string; forkedFrom: string | null }[]).find((s) => s.id === uuid(8))?.forkedFrom).toBe(uuid(3));
    fs.rmSync(claudeFile(h, 8));
    views(h);
    const again = listId(h);
    // a second session new since the listing with the first record of one new since it too (the patch's)
    write(h, claudeFile(h, 9), claudeLine(uuid(9), '/tmp/p9', 'claude prompt 9', ts(16)));
    views(h);
    expect(listId(h)).toBe(again);
    write(h, claudeFile(h, 10), claudeLine(uuid(10), '/tmp/p9', 'claude prompt 9', ts(16), { uuid: `u-${uuid(9)}-${ts(16)}` }) + claudeLine(uuid(10), '/tmp/p9', 'the fork of nine', ts(17)));
    expectFresh(h);
    expect(listId(h)).not.toBe(again);
    expect((JSON.parse(ok(h, ['ls', '--json', '-a'])) as { id: string; forkedFrom: string | null }[]).find((s) => s.id === uuid(10))?.forkedFrom).toBe(uuid(9));
    fs.rmSync(claudeFile(h, 10));
    fs.rmSync(claudeFile(h, 9));
    fs.rmSync(claudeFile(h, 6));
    ok(h, ['index', '--rebuild']);
    const base = listId(h);

    // a Claude session gone (no fork, its first record its own): its row and record dropped by the patch
    fs.appendFileSync(piFile(h, 4), piMessage('four a', ts(12), 2));
    views(h);
    fs.rmSync(claudeFile(h, 2));
    expect(counts(h)).toMatch(/0 parsed, 0 appended, 4 unchanged, 1 dropped/);
    expectFresh(h);
    expect(listId(h)).toBe(base);
    expect(patchOf(h).gone).toEqual([`claude:${uuid(2)}`]);
    expect(keys(ok(h, ['rows', '-a']))).not.toContain(`claude:${uuid(2)}`);
    expect(run(h, ['resolve', '-a', `claude:${uuid(2)}`]).code).toBe(1);

    // a pi session appears: put with its short id, its prompts in its shard for words
    write(h, piFile(h, 7), piHeader(uuid(7), '/tmp/q7', ts(13)) + piMessage('the quokka census', ts(13, 11), 1));
    expect(counts(h)).toMatch(/1 parsed, 0 appended, 4 unchanged/);
    expectFresh(h);
    expect(listId(h)).toBe(base);
    expect(keys(ok(h, ['rows']))[0]).toBe(`pi:${uuid(7)}`);
    expect(ok(h, ['resolve', '-a', 'quokka'])).toBe(`pi:${uuid(7)}\n`);
    expect(ok(h, ['resolve', '-a', uuid(7).slice(0, 8)])).toBe(`pi:${uuid(7)}\n`);

    // and goes again, with another pi session
    fs.rmSync(piFile(h, 7));
    fs.rmSync(piFile(h, 5));
    expect(counts(h)).toMatch(/0 parsed, 0 appended, 3 unchanged, 2 dropped/);
    expectFresh(h);
    expect(listId(h)).toBe(base);
    expect(patchOf(h).gone.sort()).toEqual([`claude:${uuid(2)}`, `pi:${uuid(5)}`, `pi:${uuid(7)}`].sort());
    expect(run(h, ['resolve', '-a', 'quokka']).code).toBe(1);
  });

  it('a session file moved (gone from one path, new at another, the same key): listed as a build lists it', () => {
    const h = store();
    views(h);
    fs.appendFileSync(piFile(h, 4), piMessage('four a', ts(12, 11), 2));
    views(h);
    expect(exists(h, 'list.patch')).toBe(true);
    const moved = path.join(h, '.pi/agent/sessions/--tmp-moved--', path.basename(piFile(h, 5)));
    fs.mkdirSync(path.dirname(moved), { recursive: true });
    fs.renameSync(piFile(h, 5), moved);
    expectFresh(h);
    expect(keys(ok(h, ['rows', '-a'])).filter((k) => k === `pi:${uuid(5)}`)).toHaveLength(1);
    expect(exists(h, 'list.patch')).toBe(false);
  });

  it('links.bin missing, damaged or of another build: a new Claude session goes the full way, and the listing is right', () => {
    const h = store();
    views(h);
    const links = path.join(cache(h), 'links.bin');
    const good = fs.readFileSync(links);
    expect(good.toString('latin1', 0, good.indexOf(10))).toBe(`l${INDEX_VERSION} ${listId(h)}`);
    const bad = [null, Buffer.from('garbage'), good.subarray(0, good.length - 1), Buffer.concat([Buffer.from(`l${INDEX_VERSION} another-build\n`), good.subarray(good.indexOf(10) + 1)])];
    let n = 20;
    for (const b of bad) {
      const list = listId(h);
      if (b) fs.writeFileSync(links, b);
      else fs.rmSync(links, { force: true });
      write(h, claudeFile(h, n), claudeLine(uuid(n), `/tmp/p${n}`, `claude prompt ${n}`, ts(20)));
      expectFresh(h);
      expect(listId(h)).not.toBe(list);
      expect(exists(h, 'list.patch')).toBe(false);
      // written again with the listing
      expect(read(h, 'links.bin').toString('latin1', 0, read(h, 'links.bin').indexOf(10))).toBe(`l${INDEX_VERSION} ${listId(h)}`);
      n++;
    }
  });

  it('a new session whose id begins as another\'s (its short id, or theirs, would be longer), or a gone one whose short id is, rewrites the listing', () => {
    const h = store();
    views(h);
    const list = listId(h);
    // 00000004-… is listed: 00000004-3333-… shares its first 8 characters
    const twin = `${uuid(4).slice(0, 9)}3333-4333-8333-333333333333`;
    write(h, `.pi/agent/sessions/--tmp-twin--/2026-05-01T10-00-00-000Z_${twin}.jsonl`, piHeader(twin, '/tmp/twin', ts(14)) + piMessage('twin prompt', ts(14), 1));
    expectBuilt(h);
    expect(listId(h)).not.toBe(list);
    expect(exists(h, 'list.patch')).toBe(false);
    const shorts = new Map(ok(h, ['rows', '-a']).trim().split('\n').map((l) => [l.split('\t')[0], l.split('\t')[1]]));
    expect(shorts.get(`pi:${twin}`)).toBe(twin.slice(0, 10));
    expect(shorts.get(`pi:${uuid(4)}`)).toBe(uuid(4).slice(0, 10));

    // the twin goes: pi 4's short id is 8 characters again
    const again = listId(h);
    fs.rmSync(path.join(h, `.pi/agent/sessions/--tmp-twin--/2026-05-01T10-00-00-000Z_${twin}.jsonl`));
    expectBuilt(h);
    expect(listId(h)).not.toBe(again);
    expect(keys(ok(h, ['rows', '-a']))).not.toContain(`pi:${twin}`);
  });

  it('a grown file whose sessions change (a pi header only now complete) takes the full path', () => {
    const h = store();
    // a pi file with a partial first line: no session yet
    const f = piFile(h, 7);
    const header = piHeader(uuid(7), '/tmp/q7', ts(7));
    write(h, f, header.slice(0, 20));
    views(h);
    fs.appendFileSync(f, header.slice(20) + piMessage('pi prompt 7', ts(7), 1));
    expectFresh(h);
    expect(exists(h, 'list.patch')).toBe(false);
    expect(keys(ok(h, ['rows', '-a']))[0]).toBe(`pi:${uuid(7)}`);
  });

  it('a fork (a held key) is not patched: the finish pass runs, and the links stand', () => {
    const h = store();
    const id = uuid(8);
    const fork = uuid(9);
    const shared = { uuid: 'shared-first-prompt-0001' };
    write(h, claudeFile(h, 8), claudeLine(id, '/tmp/p8', 'a parent prompt', ts(20), shared) + claudeLine(id, '/tmp/p8', 'parent goes on', ts(22), { uuid: 'p-2' }));
    write(h, claudeFile(h, 9), claudeLine(fork, '/tmp/p9', 'a parent prompt', ts(20), shared) + claudeLine(fork, '/tmp/p9', 'the fork', ts(21), { uuid: 'f-2' }));
    views(h);
    const hold = JSON.parse(read(h, 'list.json').toString('utf8').split('\n')[0]!.slice(0, -1) + '}').hold;
    expect(hold.sort()).toEqual([`claude:${id}`, `claude:${fork}`].sort());
    fs.appendFileSync(claudeFile(h, 9), claudeLine(fork, '/tmp/p9', 'the fork goes on', ts(23), { uuid: 'f-3' }));
    expectFresh(h);
    expect(exists(h, 'list.patch')).toBe(false);
    const ls = JSON.parse(ok(h, ['ls', '--json', '-a'])) as { id: string; forkedFrom: string | null }[];
    expect(ls.find((s) => s.id === fork)?.forkedFrom).toBe(id);
  });
});

describe('an append writes its shard again a line per entry (lib/index/shardtext.ts)', () => {
  it('copies the lines of the entries it did not change, its prompt file\'s too; a shard of the old layout or a missing prompt file is made whole again', () => {
    const h = store();
    // two more Claude sources: seven in all, so the state is one shard (shardCount)
    const [a, b] = [10, 11];
    for (const n of [a, b]) write(h, claudeFile(h, n), claudeLine(uuid(n), `/tmp/p${n}`, `first words of ${n}`, ts(6)));
    ok(h, ['rows']);
    expect(shardCount(7)).toBe(1);
    const sfile = path.join(cache(h), 'state', '000.json');
    const pfile = sfile.replace('.json', '.prompts.json');
    const lines = (f: string) => fs.readFileSync(f, 'utf8').split('\n');
    const lineOf = (ls: string[], n: number) => ls.find((l) => l.includes(JSON.stringify(claudeFile(h, n)) + ':') || l.includes(`"claude:${uuid(n)}"`))!;
    const s0 = lines(sfile);
    const p0 = lines(pfile);
    expect(s0.length).toBe(9);
    expect(p0.length).toBe(9);
    expect(s0[0]).toMatch(new RegExp(`^\\{"v":${STATE_VERSION},"of":1,"tok":"[0-9a-z]+","entries":\\{$`));
    expect(s0[8]).toBe('}}');
    expect(p0[8]).toBe(']}');

    // an append to a: b's lines are copied byte for byte, a's made again
    fs.appendFileSync(claudeFile(h, a), claudeLine(uuid(a), `/tmp/p${a}`, 'the walrus index', ts(9)));
    expect(keys(ok(h, ['rows', '-a']))[0]).toBe(`claude:${uuid(a)}`);
    expect(exists(h, 'list.patch')).toBe(true);
    const s1 = lines(sfile);
    const p1 = lines(pfile);
    expect(s1.length).toBe(9);
    expect(lineOf(s1, b)).toBe(lineOf(s0, b));
    expect(lineOf(s1, a)).not.toBe(lineOf(s0, a));
    expect(lineOf(p1, b)).toBe(lineOf(p0, b));
    expect(lineOf(p1, a)).toContain('the walrus index');
    expect(JSON.parse(p1.join('\n')).tok).toBe(JSON.parse(s1.join('\n')).tok);
    expect(ok(h, ['resolve', 'walrus'])).toBe(`claude:${uuid(a)}\n`);
    expectFresh(h);

    // a reply adds no prompt: the prompt file stays as it is (the same file), the shard keeps its token
    const pinode = fs.statSync(pfile).ino;
    fs.appendFileSync(claudeFile(h, b), claudeLine(uuid(b), `/tmp/p${b}`, 'a reply about otters', ts(9, 11), {
      type: 'assistant', message: { role: 'assistant', model: 'claude-test', content: [{ type: 'text', text: 'a reply about otters' }] },
    }));
    ok(h, ['rows']);
    expect(fs.statSync(pfile).ino).toBe(pinode);
    expect(lines(pfile)).toEqual(p1);
    expect(lineOf(lines(sfile), b)).not.toBe(lineOf(s1, b));
    expect(JSON.parse(lines(sfile).join('\n')).tok).toBe(JSON.parse(p1.join('\n')).tok);
    expect(ok(h, ['resolve', 'walrus'])).toBe(`claude:${uuid(a)}\n`);
    expectFresh(h);

    // the shard as earlier versions wrote it (one line) and its prompt file (pairs in one array):
    // read whole, written in lines
    const doc = JSON.parse(lines(sfile).join('\n'));
    fs.writeFileSync(sfile, JSON.stringify(doc));
    fs.writeFileSync(pfile, JSON.stringify({ v: STATE_VERSION, tok: doc.tok, p: JSON.parse(p1.join('\n')).e.flat() }));
    fs.appendFileSync(claudeFile(h, b), claudeLine(uuid(b), `/tmp/p${b}`, 'the puffin queue', ts(10)));
    expect(keys(ok(h, ['rows', '-a']))[0]).toBe(`claude:${uuid(b)}`);
    const s2 = lines(sfile);
    expect(s2.length).toBe(9);
    expect(JSON.parse(s2.join('\n')).entries[claudeFile(h, a)]).toEqual(doc.entries[claudeFile(h, a)]);
    expect(lines(pfile).length).toBe(9);
    expect(ok(h, ['resolve', 'walrus'])).toBe(`claude:${uuid(a)}\n`);
    expect(ok(h, ['resolve', 'puffin'])).toBe(`claude:${uuid(b)}\n`);
    expectFresh(h);

    // no prompt file: the unchanged entry's line is made from its entry
    fs.rmSync(pfile);
    fs.appendFileSync(claudeFile(h, b), claudeLine(uuid(b), `/tmp/p${b}`, 'the ibis cache', ts(11)));
    ok(h, ['rows']);
    const p3 = lines(pfile);
    expect(lineOf(p3, a)).toBe(lineOf(p1, a));
    expect(lineOf(p3, b)).toContain('the ibis cache');
    expect(lineOf(s2, a)).toBe(lineOf(lines(sfile), a));
    expect(ok(h, ['resolve', 'walrus'])).toBe(`claude:${uuid(a)}\n`);
    expectFresh(h);

    // a damaged line: the shard is not taken as lines (nor trusted whole): the sources are parsed again
    const s4 = lines(sfile);
    fs.writeFileSync(sfile, s4.map((l, i) => (i === 2 ? l.slice(0, 20) : l)).join('\n'));
    fs.appendFileSync(claudeFile(h, a), claudeLine(uuid(a), `/tmp/p${a}`, 'the heron branch', ts(12)));
    expect(keys(ok(h, ['rows', '-a']))[0]).toBe(`claude:${uuid(a)}`);
    expect(ok(h, ['resolve', 'heron'])).toBe(`claude:${uuid(a)}\n`);
    expect(ok(h, ['resolve', 'ibis'])).toBe(`claude:${uuid(b)}\n`);
    expectFresh(h);
  });
});

describe('an append to a long session takes its prompt list as it was (shardtext.ts heldEntry)', () => {
  // a session's entry line and prompt file line, as they stand in a cache (a leading comma dropped)
  const entryLines = (dir: string, file: string, key: string) => {
    const state = path.join(dir, 'state');
    const pick = (f: string, needle: string) => {
      for (const n of fs.readdirSync(state).filter((x) => x.endsWith(f)).sort()) {
        const l = fs.readFileSync(path.join(state, n), 'utf8').split('\n').find((x) => x.includes(needle));
        if (l) return l.replace(/^,/, '');
      }
      return null;
    };
    return { member: pick('.json', JSON.stringify(file) + ':'), prompts: pick('.prompts.json', JSON.stringify(key)) };
  };
  /** The long session's lines here and in a cache built from nothing: the same bytes. */
  const expectAsBuilt = (h: string, file: string, key: string) => {
    const d = tempDir('resume-fresh-');
    ok(h, ['index'], { RESUME_CACHE_DIR: d });
    const mine = entryLines(cache(h), file, key);
    expect(mine.member).toBeTruthy();
    expect(mine).toEqual(entryLines(d, file, key));
    expectFresh(h);
    return mine;
  };
  const words = (i: number) => `prompt number ${i} about the ${['otter', 'heron', 'ibis', 'puffin'][i % 4]} module`;

  it('heldEntry takes a list past HELD_HEAD prompts, written first by memberLine, and a session\'s own list after it; declines what it cannot take as it is', () => {
    const tricky = ['a "quoted" word', 'back\\slash', 'ends with a backslash \\', '\\"', 'caf\u00e9 \u2713', 'tab\there'];
    const all = Array.from({ length: 100 }, (_, i) => (i % 10 === 3 ? `${i} ` + tricky[Math.floor(i / 10) % tricky.length]! : `prompt ${i}`));
    const entry = (sessions: unknown[], list = all) => ({ size: 10, mtime: 1, state: { header: true, all: list.slice(), prompts: list.length }, sessions });
    const one = (list: unknown) => [{ harness: 'pi', id: 's1', allPrompts: list }];
    const dir = tempDir('resume-held-');
    const shard = (entries: Record<string, unknown>) => {
      const paths = Object.keys(entries);
      const sf = path.join(dir, '000.json');
      writeShardFiles(sf, path.join(dir, '000.prompts.json'), STATE_VERSION, 1, paths.map((p) => memberLine(p, entries[p])), paths.map((p) => promptLine(p, entries[p] as never)), (err) => { throw err; });
      return readShardText(sf, path.join(dir, '000.prompts.json'), STATE_VERSION, 1)!;
    };
    const e = entry(one(all));
    const upper = all.map((x) => x.toUpperCase());
    const t = shard({
      '/a': e, '/b': entry(one(all.slice(0, HELD_HEAD)), all.slice(0, HELD_HEAD)), '/c': entry(one(upper)), '/d': entry([...one(all), { harness: 'pi', id: 's2', allPrompts: all }]),
      '/e': entry(one(all.slice(0, 10))),
    });
    // written first, and read back whole as it was
    expect(t.members[0]!.toString('utf8', t.at[0]!)).toMatch(/^\{"\$all":\["prompt 0",/);
    expect(reviveEntry(JSON.parse(t.members[0]!.toString('utf8', t.at[0]!)))).toEqual(e);
    const got = heldEntry(t, 0)!;
    expect(got.held.count).toBe(100);
    expect((got.entry as { state: { all: string[] } }).state.all).toHaveLength(HELD_HEAD);
    expect(JSON.parse(got.held.bytes.toString('utf8'))).toEqual(all);
    expect(got.entry).toEqual({ ...e, state: { ...e.state, all: all.slice(0, HELD_HEAD) }, sessions: one(all.slice(0, HELD_HEAD)) });
    expect(got.own).toBeNull();
    // a session whose prompts are not the state's list (a secret redacted): its own list, after it
    const c = entry(one(upper));
    expect(t.members[2]!.toString('utf8', t.at[2]!)).toMatch(/^\{"\$all":\["prompt 0",.*\],"\$own":\["PROMPT 0",/);
    expect(reviveEntry(JSON.parse(t.members[2]!.toString('utf8', t.at[2]!)))).toEqual(c);
    const own = heldEntry(t, 2)!;
    expect(JSON.parse(own.own!.bytes.toString('utf8'))).toEqual(upper);
    expect(own.own!.count).toBe(100);
    expect(own.entry).toEqual({ ...c, state: { ...c.state, all: all.slice(0, HELD_HEAD) }, sessions: one(upper.slice(0, HELD_HEAD)) });
    // a list of HELD_HEAD prompts (not written first), two sessions, a session's own list of 10
    expect(t.members[1]!.toString('utf8', t.at[1]!)).not.toContain('$all');
    expect(heldEntry(t, 1)).toBeNull();
    expect(heldEntry(t, 3)).toBeNull();
    expect(t.members[4]!.toString('utf8', t.at[4]!)).not.toContain('$own');
    expect(heldEntry(t, 4)).toBeNull();
    // a list cut short, or one whose line goes on with no entry after it
    const line = t.members[0]!;
    const cut = (b: Buffer) => heldEntry({ ...t, members: [b], at: [t.at[0]!] }, 0);
    expect(cut(Buffer.from(line.toString('utf8').replace('"prompt 99"]', '"prompt 99]')))).toBeNull();
    expect(cut(Buffer.from(line.toString('utf8').replace('"prompt 50",', '"prompt 50" ,')))).toBeNull();
    expect(cut(line.subarray(0, line.indexOf('"prompt 99"]') + 12))).toBeNull();
  });

  it('pi: a prompt or a reply appended writes the same entry and prompt line as a build; a prompt with a secret gives the session a list of its own; a damaged list goes the whole way', () => {
    const h = store();
    const n = 7;
    const f = piFile(h, n);
    const key = `pi:${uuid(n)}`;
    write(h, f, piHeader(uuid(n), `/tmp/q${n}`, ts(7)) + Array.from({ length: 100 }, (_, i) => piMessage(words(i), ts(7, 11), 10 + i)).join(''));
    ok(h, ['rows']);
    const first = entryLines(cache(h), f, key);
    // (a list past HELD_HEAD prompts is written first in its entry)
    expect(first.member).toMatch(/^"[^"]+":\{"\$all":\["prompt number 0 /);

    // a prompt: the list's bytes taken as they were, the new prompt after them
    fs.appendFileSync(f, piMessage('the walrus cache', ts(8), 500));
    expect(keys(ok(h, ['rows', '-a']))[0]).toBe(key);
    expect(exists(h, 'list.patch')).toBe(true);
    let now = expectAsBuilt(h, f, key);
    expect(now.prompts).toContain('"prompt number 80 about the otter module"');
    expect(ok(h, ['resolve', 'walrus'])).toBe(`${key}\n`);
    expect(ok(h, ['resolve', 'number 81 '])).toBe(`${key}\n`);

    // a reply: the prompt file stays as it was
    const pfile = () => fs.readdirSync(path.join(cache(h), 'state')).filter((x) => x.endsWith('.prompts.json')).map((x) => path.join(cache(h), 'state', x)).find((x) => fs.readFileSync(x, 'utf8').includes(key))!;
    const ino = fs.statSync(pfile()).ino;
    fs.appendFileSync(f, jsonl({ type: 'message', id: 'r1', parentId: null, timestamp: ts(8, 12), message: { role: 'assistant', content: [{ type: 'text', text: 'a reply about kelp' }], model: 'm', timestamp: Date.parse(ts(8, 12)) } }));
    ok(h, ['rows']);
    expect(fs.statSync(pfile()).ino).toBe(ino);
    now = expectAsBuilt(h, f, key);

    // a prompt with a secret: its session's prompts are no longer the parser's list, and are written
    // as a list of their own after it; the entry as a build writes it (every prompt kept, the secret out)
    const secret = 'ghp_' + 'a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8';
    fs.appendFileSync(f, piMessage(`use the token ${secret} for the narwhal job`, ts(9), 501));
    expect(keys(ok(h, ['rows', '-a']))[0]).toBe(key);
    now = expectAsBuilt(h, f, key);
    expect(now.member).toContain(',"$own":[');
    expect(now.prompts).not.toContain(secret);
    expect(now.prompts).toContain('[REDACTED');
    expect(now.prompts).toContain('"prompt number 99 about the puffin module"');
    expect(ok(h, ['resolve', 'narwhal'])).toBe(`${key}\n`);
    expect(ok(h, ['resolve', 'number 70 '])).toBe(`${key}\n`);
    // and the next appends to it take both lists as they are: a prompt, a reply
    fs.appendFileSync(f, piMessage('the dugong queue', ts(10), 502));
    expect(keys(ok(h, ['rows', '-a']))[0]).toBe(key);
    expect(expectAsBuilt(h, f, key).member).toContain(',"$own":[');
    const ino2 = fs.statSync(pfile()).ino;
    fs.appendFileSync(f, jsonl({ type: 'message', id: 'r2', parentId: null, timestamp: ts(10, 12), message: { role: 'assistant', content: [{ type: 'text', text: 'a reply about krill' }], model: 'm', timestamp: Date.parse(ts(10, 12)) } }));
    ok(h, ['rows']);
    expect(fs.statSync(pfile()).ino).toBe(ino2);
    expectAsBuilt(h, f, key);
    expect(ok(h, ['resolve', 'dugong'])).toBe(`${key}\n`);
    expect(ok(h, ['resolve', 'number 72 '])).toBe(`${key}\n`);

    // a list cut short in its line: not taken; the source is parsed again and the listing is right
    const n2 = 8;
    const f2 = piFile(h, n2);
    const key2 = `pi:${uuid(n2)}`;
    write(h, f2, piHeader(uuid(n2), `/tmp/q${n2}`, ts(7)) + Array.from({ length: 90 }, (_, i) => piMessage(words(i + 200), ts(7, 12), 10 + i)).join(''));
    ok(h, ['rows']);
    for (const name of fs.readdirSync(path.join(cache(h), 'state')).filter((x) => /^\d+\.json$/.test(x))) {
      const sf = path.join(cache(h), 'state', name);
      const text = fs.readFileSync(sf, 'utf8');
      if (!text.includes(JSON.stringify(f2) + ':')) continue;
      // the list's last prompt loses its closing quote: the line is no JSON
      fs.writeFileSync(sf, text.replace('"prompt number 289 about the ibis module"]', '"prompt number 289 about the ibis module]'));
    }
    fs.appendFileSync(f2, piMessage('the manatee branch', ts(11), 600));
    expect(keys(ok(h, ['rows', '-a']))[0]).toBe(key2);
    expectAsBuilt(h, f2, key2);
    expect(ok(h, ['resolve', 'manatee'])).toBe(`${key2}\n`);
    expect(ok(h, ['resolve', 'number 285 '])).toBe(`${key2}\n`);
  });

  it('Claude Code: a prompt appended to a session of 70, one of them with a secret, writes what a build writes', () => {
    const h = store();
    const n = 9;
    const f = claudeFile(h, n);
    const key = `claude:${uuid(n)}`;
    // (its fourth prompt holds a secret: the session's prompts are a list of their own, from the head on)
    const text = (i: number) => (i === 3 ? `deploy with password=hunter2hunter2 ${words(i + 100)}` : words(i + 100));
    write(h, f, Array.from({ length: 70 }, (_, i) => claudeLine(uuid(n), `/tmp/p${n}`, text(i), ts(7, 10).replace('00:00.000', `${String(i % 60).padStart(2, '0')}:00.000`))).join(''));
    ok(h, ['rows']);
    expect(entryLines(cache(h), f, key).member).toMatch(/\{"\$all":\[.*\],"\$own":\[/);
    expect(entryLines(cache(h), f, key).prompts).not.toContain('hunter2');
    fs.appendFileSync(f, claudeLine(uuid(n), `/tmp/p${n}`, 'the axolotl plan', ts(8)));
    expect(keys(ok(h, ['rows', '-a']))[0]).toBe(key);
    expect(expectAsBuilt(h, f, key).prompts).not.toContain('hunter2');
    expect(ok(h, ['resolve', 'axolotl'])).toBe(`${key}\n`);
    expect(ok(h, ['resolve', 'number 165 '])).toBe(`${key}\n`);
  });
});

describe('a patch is used only when it is sound and of the build check.bin names', () => {
  function patched(): string {
    const h = store();
    views(h);
    fs.appendFileSync(claudeFile(h, 1), claudeLine(uuid(1), '/tmp/p1', 'one a', ts(10)));
    views(h);
    expect(exists(h, 'list.patch')).toBe(true);
    return h;
  }

  it('a damaged, truncated, foreign or inconsistent patch is never applied (the listing is built again from the state)', { timeout: 60_000 }, () => {
    const h = patched();
    const good = read(h, 'list.patch').toString('utf8');
    const p = JSON.parse(good);
    const bad = [
      good.slice(0, Math.floor(good.length / 2)),
      '',
      JSON.stringify({ ...p, base: 'another-build' }),
      JSON.stringify({ ...p, id: 'another-build' }),
      // a put key it does not drop would list a session twice
      JSON.stringify({ ...p, drop: [] }),
      // nor take a session away that it does not say is gone
      JSON.stringify({ ...p, drop: [...p.drop, `claude:${uuid(2)}`] }),
      // and what it says is gone it drops, and does not put again
      JSON.stringify({ ...p, gone: [`claude:${uuid(2)}`] }),
      JSON.stringify({ ...p, drop: [...p.drop, `claude:${uuid(2)}`], gone: [`claude:${uuid(2)}`, `claude:${uuid(2)}`] }),
      JSON.stringify({ ...p, gone: p.put.map((x: { key: string }) => x.key) }),
      JSON.stringify({ ...p, gone: 'claude' }),
      JSON.stringify({ ...p, short: [] }),
      JSON.stringify({ ...p, put: [...p.put, p.put[0]], short: [...p.short, p.short[0]] }),
    ];
    const want = fresh(h);
    for (const text of bad) {
      // the same cache, copied, with the patch replaced
      const c = tempDir('resume-cache-');
      fs.cpSync(cache(h), c, { recursive: true });
      fs.writeFileSync(path.join(c, 'list.patch'), text);
      const env = { RESUME_CACHE_DIR: c };
      // `rows` alone reads rows.bin (of the build): the whole listing's readers find no listing
      expect(JSON.parse(ok(h, ['ls', '--json', '-a'], env))).toEqual(want.ls);
      expect(fs.existsSync(path.join(c, 'list.patch'))).toBe(false);
      expect(ok(h, ['rows', '-a', '--align'], env)).toEqual(want.align);
      expect(ok(h, ['rows', '-a'], env)).toEqual(want.rows);
    }
    // check.patch, which names the build over check.bin and rows.bin: damaged, cut short, of another
    // build or over another, or naming a source check.bin has not: never put over them
    const over = read(h, 'check.patch');
    const head = over.toString('latin1', 0, over.indexOf(10)).split(' ');
    const rest = over.subarray(over.indexOf(10));
    const withHead = (f: (x: string[]) => string[]) => Buffer.concat([Buffer.from(f([...head]).join(' '), 'latin1'), rest]);
    const badOver = [
      over.subarray(0, over.length - 5),
      Buffer.from('garbage'),
      withHead((x) => ((x[1] = 'another-build'), x)),
      withHead((x) => ((x[2] = 'another-build'), x)),
      withHead((x) => ((x[3] = String(Number(x[3]) + 1)), x)),
    ];
    const statAt = Buffer.from(over);
    statAt.writeUInt32LE(99, over.indexOf(10) + 1);
    badOver.push(statAt);
    for (const b of badOver) {
      const c = tempDir('resume-cache-');
      fs.cpSync(cache(h), c, { recursive: true });
      fs.writeFileSync(path.join(c, 'check.patch'), b);
      const env = { RESUME_CACHE_DIR: c };
      expect(ok(h, ['rows', '-a'], env)).toEqual(want.rows);
      expect(ok(h, ['rows', '-a', '--align'], env)).toEqual(want.align);
      expect(JSON.parse(ok(h, ['ls', '--json', '-a'], env))).toEqual(want.ls);
      expect(ok(h, ['rows', '-a'], env)).toEqual(want.rows);
    }

    // and without any parsing: the state shards hold every source
    const h3 = patched();
    fs.writeFileSync(path.join(cache(h3), 'list.patch'), 'garbage');
    expect(counts(h3)).toMatch(/0 parsed, 0 appended, 5 unchanged/);
    expectFresh(h3);
  });

  it('a run killed after writing the state and list.patch but before check.patch is never read as finished', { timeout: 60_000 }, () => {
    // what names the build: check.bin, and check.patch over it
    const named = (h: string) => ({ check: read(h, 'check.bin'), over: exists(h, 'check.patch') ? read(h, 'check.patch') : null });
    const restore = (h: string, n: ReturnType<typeof named>) => {
      fs.writeFileSync(path.join(cache(h), 'check.bin'), n.check);
      if (n.over) fs.writeFileSync(path.join(cache(h), 'check.patch'), n.over);
      else fs.rmSync(path.join(cache(h), 'check.patch'), { force: true });
    };
    // the stored build is a whole listing: it still serves; the grown file is taken from its state
    const h = store();
    views(h);
    const named0 = named(h);
    fs.appendFileSync(claudeFile(h, 1), claudeLine(uuid(1), '/tmp/p1', 'one a', ts(10)));
    views(h);
    expect(exists(h, 'check.patch')).toBe(true);
    restore(h, named0);
    expect(counts(h)).toMatch(/0 parsed, 0 appended/);
    expectFresh(h);

    // the stored build is itself a patch (which the killed run overwrote): built again from the state
    const k = store();
    views(k);
    fs.appendFileSync(claudeFile(k, 1), claudeLine(uuid(1), '/tmp/p1', 'one a', ts(10)));
    views(k);
    const named1 = named(k);
    fs.appendFileSync(claudeFile(k, 2), claudeLine(uuid(2), '/tmp/p2', 'two a', ts(11)));
    views(k);
    restore(k, named1);
    expect(keys(ok(k, ['rows', '-a'])).slice(0, 2)).toEqual([`claude:${uuid(2)}`, `claude:${uuid(1)}`]);
    expectFresh(k);

    // killed before the state was written: the stored listing and entry agree, the append is parsed
    const m = store();
    views(m);
    const state0 = fs.readdirSync(path.join(cache(m), 'state')).map((f) => [f, read(m, path.join('state', f))] as const);
    const named2 = named(m);
    fs.appendFileSync(claudeFile(m, 3), claudeLine(uuid(3), '/tmp/p3', 'three a', ts(12)));
    views(m);
    restore(m, named2);
    for (const [f, b] of state0) fs.writeFileSync(path.join(cache(m), 'state', f), b);
    expect(keys(ok(m, ['rows', '-a']))[0]).toBe(`claude:${uuid(3)}`);
    expectFresh(m);
  });

  it('a discovery memo made or dropped under check.patch writes check.bin again of its own build; the patch stands, stats and all', { timeout: 60_000 }, () => {
    const h = store();
    const settle = () => spawnSync('sleep', ['2.4']);
    ok(h, ['rows']);
    // directories read more than RACY_MS after their last change are remembered (lib/index/discmemo.ts)
    settle();
    ok(h, ['rows']);
    expect(read(h, 'check.bin').toString('latin1')).toContain('"memo"');
    const own = () => read(h, 'check.bin').toString('latin1').split(' ')[1];
    const base = own();
    fs.appendFileSync(claudeFile(h, 1), claudeLine(uuid(1), '/tmp/p1', 'one later', ts(10)));
    expectFresh(h);
    expect(read(h, 'check.patch').toString('latin1').split('\n')[0]).toMatch(/ 1 1 1$/);
    // a file that is no session in a session directory: the memo is dropped (no source changed), and
    // made again once the directory is quiet; check.bin written again, of its own build
    const claudeMemo = () => {
      const b = read(h, 'check.bin');
      const nl = b.indexOf(10);
      const meta = JSON.parse(b.toString('utf8', nl + 1, nl + 1 + Number(b.toString('latin1', 0, nl).split(' ')[3])));
      return !!meta.find((m: { name: string }) => m.name === 'claude')?.memo;
    };
    expect(claudeMemo()).toBe(true);
    const before = read(h, 'check.bin');
    write(h, path.join(path.dirname(claudeFile(h, 2)), 'notes.txt'), 'x');
    expect(ok(h, ['rows', '-a'])).toBe(fresh(h).rows);
    expect(read(h, 'check.bin').equals(before)).toBe(false);
    for (const again of [false, true]) {
      if (again) {
        settle();
        ok(h, ['rows']);
        expect(claudeMemo()).toBe(true);
      }
      expect(own()).toBe(base);
      expect(counts(h)).toMatch(/0 parsed, 0 appended, 5 unchanged/);
      expectFresh(h);
    }
    // an append in the same run as a memo change: check.bin written again with every stat, the patch carries none
    write(h, path.join(path.dirname(claudeFile(h, 3)), 'notes.txt'), 'y');
    fs.appendFileSync(claudeFile(h, 3), claudeLine(uuid(3), '/tmp/p3', 'three later', ts(11)));
    expect(keys(ok(h, ['rows', '-a'])).slice(0, 2)).toEqual([`claude:${uuid(3)}`, `claude:${uuid(1)}`]);
    expect(own()).toBe(base);
    expect(read(h, 'check.patch').toString('latin1').split('\n')[0]).toMatch(/ 0 2 2$/);
    expect(counts(h)).toMatch(/0 parsed, 0 appended, 5 unchanged/);
    expectFresh(h);
    // and an append with the memos standing (made once the directories are quiet) records its stat in the patch again
    settle();
    ok(h, ['rows']);
    fs.appendFileSync(claudeFile(h, 2), claudeLine(uuid(2), '/tmp/p2', 'two later', ts(12)));
    expect(keys(ok(h, ['rows', '-a']))[0]).toBe(`claude:${uuid(2)}`);
    expect(read(h, 'check.patch').toString('latin1').split('\n')[0]).toMatch(/ 1 3 3$/);
    expectFresh(h);
  });

  it('rows.bin missing under check.patch: written again of the build it names, with check.bin, and the patch goes', () => {
    const h = store();
    views(h);
    fs.appendFileSync(claudeFile(h, 2), claudeLine(uuid(2), '/tmp/p2', 'two later', ts(10)));
    const want = fresh(h);
    expect(ok(h, ['rows', '-a'])).toBe(want.rows);
    const id = checkId(h);
    fs.rmSync(path.join(cache(h), 'rows.bin'));
    expect(ok(h, ['rows', '-a'])).toBe(want.rows);
    expect(exists(h, 'check.patch')).toBe(false);
    expect(checkId(h)).toBe(id);
    expect(read(h, 'rows.bin').toString('latin1').split(' ')[1]).toBe(id);
    expect(counts(h)).toMatch(/0 parsed, 0 appended, 5 unchanged/);
    expect(views(h)).toEqual(want);
    // and appends go on from there
    fs.appendFileSync(claudeFile(h, 3), claudeLine(uuid(3), '/tmp/p3', 'three later', ts(11)));
    expectFresh(h);
    expect(exists(h, 'check.patch')).toBe(true);
  });

  it('rows.bin of another build, or missing, sends the append the whole way', () => {
    const h = store();
    views(h);
    fs.rmSync(path.join(cache(h), 'rows.bin'));
    fs.appendFileSync(claudeFile(h, 2), claudeLine(uuid(2), '/tmp/p2', 'two a', ts(10)));
    expectFresh(h);
    expect(exists(h, 'list.patch')).toBe(false);
    expect(exists(h, 'rows.bin')).toBe(true);
  });
});

describe('check.patch over rows.bin and check.bin (overlay.ts)', () => {
  const home = '/home/u';
  const mk = (n: number, t: number | null, title = `title ${n}`): Session => ({
    key: `claude:${uuid(n)}`, id: uuid(n), harness: 'claude', cwd: `/home/u/p${n}`, title, firstPrompt: title, lastPrompt: null, lastReply: null,
    prompts: 1, branch: 'main', model: null, started: t, updated: t, file: `/f/${n}`, hidden: n % 5 === 0, hiddenReason: n % 5 === 0 ? 'empty' : null,
    parent: null, forkedFrom: null,
  });
  const render = (ss: Session[]) => {
    const sorted = [...ss].sort(byRecency);
    const b = rowBinChunks('b', home, sorted.map((s) => ({ s, short: s.id.slice(0, 8) })))!;
    return readRowBin(Buffer.concat(b))!;
  };
  const print = (bin: NonNullable<ReturnType<typeof render>>) => {
    const out: Buffer[] = [];
    printRowBin(bin, { all: true }, () => ({}), Date.parse('2026-06-01T00:00:00Z'), (b) => out.push(Buffer.from(b)));
    return Buffer.concat(out).toString('utf8');
  };
  /** The base rows with a patch over them, the patch read back from its bytes as a reader takes it. */
  const viewOf = (base: Session[], o: Over) => {
    const back = parseOver(Buffer.concat(overBytes(o, INDEX_VERSION)), INDEX_VERSION)!;
    expect(back).toEqual(o);
    const bin = render(base);
    expect(overlayRows(bin, back)).toBe(true);
    expect(bin.id).toBe(o.id);
    return bin;
  };
  const times = [100, 200, 300, 300, 300, 400, 500, null, 600, 700];
  const cases: [number, number | null][][] = [
    [[1, 900]], // to the top
    [[10, 50]], // to the bottom
    [[4, 300]], // in place among its ties
    [[6, 300], [2, 300]], // into a tie, by id
    [[8, 250], [9, null]], // out of and into the no-time end
    [[3, 301], [4, 299], [5, 300]],
    [[1, 950], [2, 950]], // both to the top, one of them already in the patch
  ];
  const apply = (ss: Session[], changes: [number, number | null][]) => ss.map((s) => {
    const c = changes.find(([n]) => s.id === uuid(n));
    return c ? mk(c[0], c[1], `changed ${c[0]} at ${c[1]}`) : s;
  });

  it('lists changed records where a build would, ties on time ordered by id, each patch alone and each over the ones before', () => {
    const base = times.map((t, i) => mk(i + 1, t));
    let cur = base;
    let chained = emptyOver('b');
    for (const [i, changes] of cases.entries()) {
      const put = (ss: Session[]) => ss.filter((s) => changes.some(([n]) => s.id === uuid(n)));
      // alone, over rows.bin
      const alone = apply(base, changes);
      const a = overWith(render(base), emptyOver('b'), `a${i}`, home, put(alone), new Map())!;
      expect(a.shorts).toEqual(put(alone).map((s) => s.id.slice(0, 8)));
      expect(print(viewOf(base, a.over))).toBe(print(render(alone)));
      // over the patches before it (rows.bin is the same file throughout)
      cur = apply(cur, changes);
      const c = overWith(render(base), chained, `c${i}`, home, put(cur), new Map())!;
      expect(c.over.base).toBe('b');
      chained = c.over;
      expect(print(viewOf(base, chained))).toBe(print(render(cur)));
    }
    // every session changed once is one record of the patch, and its rows.bin record is dropped
    expect(chained.pos.length).toBe(chained.drop.length);
    expect(chained.pos.length).toBe(new Set(cases.flat().map(([n]) => n)).size);
  });

  it('finds a key only at the start of a record, once, and where it is listed (the patch, not a dropped record); declines what it cannot order', () => {
    // a title holding another session's key does not count as its record
    const base = [mk(1, 100, `claude:${uuid(2)}\tx`), mk(2, 200)];
    const bin = render(base);
    const none = emptyOver('b');
    expect(findKeys(bin, none, new Set([`claude:${uuid(2)}`]))!.get(`claude:${uuid(2)}`)).toEqual({ base: 0, rec: -1, short: uuid(2).slice(0, 8) });
    expect(findKeys(bin, none, new Set(['claude:missing']))).toBeNull();
    const o = overWith(bin, none, 'n', home, [mk(2, 300)], new Map())!.over;
    expect(findKeys(render(base), o, new Set([`claude:${uuid(2)}`]))!.get(`claude:${uuid(2)}`)).toEqual({ base: -1, rec: 0, short: uuid(2).slice(0, 8) });
    // the same id in two harnesses at the same time: byRecency leaves their order to the sort
    const twin = { ...mk(2, 200), key: `pi:${uuid(2)}`, harness: 'pi' as const };
    const b2 = render([mk(1, 100), mk(2, 200), twin]);
    expect(overWith(b2, none, 'n', home, [mk(2, 200, 'changed')], new Map())).toBeNull();
    // a tie with a key whose space may stand for a tab of the real id: the same
    const blurred = { ...mk(3, 200), id: 'a b', key: 'claude:a b' };
    expect(overWith(render([mk(1, 100), blurred]), none, 'n', home, [mk(1, 200, 'changed')], new Map())).toBeNull();
    expect(overWith(render([mk(1, 100), blurred]), none, 'n', home, [mk(1, 201, 'changed')], new Map())).not.toBeNull();
  });

  it('stats by check.bin index; a malformed patch is not read at all', () => {
    const base = times.map((t, i) => mk(i + 1, t));
    const stat = Buffer.alloc(24, 7);
    const o = overWith(render(base), emptyOver('b'), 'n', home, [mk(3, 900)], new Map([[5, stat], [2, Buffer.alloc(24, 9)]]))!.over;
    expect([...o.statAt]).toEqual([2, 5]);
    const nums = Buffer.alloc(8 * 24);
    expect(applyStats(o, nums, 0, 8)).toBe(true);
    expect(nums.subarray(5 * 24, 6 * 24).equals(stat)).toBe(true);
    expect(nums.subarray(2 * 24, 3 * 24).equals(Buffer.alloc(24, 9))).toBe(true);
    expect(nums.subarray(0, 24).equals(Buffer.alloc(24))).toBe(true);
    expect(applyStats(o, Buffer.alloc(5 * 24), 0, 5)).toBe(false);
    const good = Buffer.concat(overBytes(o, INDEX_VERSION));
    expect(parseOver(good, INDEX_VERSION)).toEqual(o);
    const nl = good.indexOf(10);
    const unsorted = Buffer.from(good);
    unsorted.writeUInt32LE(9, nl + 1);
    const bad = [
      good.subarray(0, good.length - 1),
      Buffer.concat([good, Buffer.from([0])]),
      Buffer.from(good.toString('latin1').replace(/^c\d+ /, 'c999 '), 'latin1'),
      Buffer.from(good.toString('latin1').replace(/ 2 1 1\n/, ' 2 1 9\n'), 'latin1'),
      unsorted,
      Buffer.from('garbage'),
      Buffer.alloc(0),
    ];
    for (const b of bad) expect(parseOver(b, INDEX_VERSION)).toBeNull();
    // a patch whose records or drops do not fit the file is not put over it
    const small = render(base.slice(0, 2));
    expect(overlayRows(small, { ...o, drop: Uint32Array.from([5]) })).toBe(false);
    expect(overlayRows(small, { ...o, pos: Uint32Array.from([3]) })).toBe(false);
    expect(small.id).toBe('b');
  });
});

describe('the state shards: as many as the sources call for (shardCount)', () => {
  /** pi session n: three prompts, the middle one `middle` (in no listing: only the shards hold it); no reply (hidden: -a) */
  const piSession = (h: string, n: number, middle = `middle prompt ${n}`) => {
    const at = ts(1 + (n % 27));
    write(h, piFile(h, n), piHeader(uuid(n), `/tmp/q${n}`, at) + piMessage(`first prompt ${n}`, at, 1) + piMessage(middle, at, 2) + piMessage(`last prompt ${n}`, at, 3));
  };
  const shardNames = (h: string) => fs.readdirSync(path.join(cache(h), 'state')).filter((f) => !f.includes('.tmp-')).sort();
  const namesFor = (count: number) => Array.from({ length: count }, (_, n) => String(n).padStart(3, '0')).flatMap((s) => [`${s}.json`, `${s}.prompts.json`]).sort();
  const countOf = (h: string) => Number(/^\{"v":\d+,"of":(\d+),/.exec(read(h, 'state/000.json').toString('latin1', 0, 64))![1]);

  it('is a power of two, one per 32 sources or so, 1 to 256', () => {
    expect([0, 1, 32, 33, 64, 65, 686, 8192, 8193, 22000, 1e6].map(shardCount)).toEqual([1, 1, 1, 2, 2, 4, 32, 256, 256, 256, 256]);
  });

  it('a full build picks it for its sources; it stands while it suits them, else every shard is written again (nothing parsed again) and those past it removed', () => {
    const h = tempHome();
    for (let n = 1; n <= 40; n++) piSession(h, n, n === 7 ? 'the okapi ledger' : undefined);
    ok(h, ['rows']);
    expect(countOf(h)).toBe(2);
    expect(shardNames(h)).toEqual(namesFor(2));
    expect(ok(h, ['resolve', '-a', 'okapi'])).toBe(`pi:${uuid(7)}\n`);
    expectFresh(h);

    // thirty sources more call for four shards: two still suit them (a partial update keeps them)
    for (let n = 41; n <= 70; n++) piSession(h, n, n === 60 ? 'the tapir schedule' : undefined);
    expect(counts(h)).toMatch(/30 parsed, 0 appended, 40 unchanged/);
    expect(countOf(h)).toBe(2);
    expect(ok(h, ['resolve', '-a', 'tapir'])).toBe(`pi:${uuid(60)}\n`);
    expectFresh(h);

    // seventy more call for eight: the state is written again in eight, only the new ones parsed
    for (let n = 71; n <= 140; n++) piSession(h, n);
    expect(counts(h)).toMatch(/70 parsed, 0 appended, 70 unchanged/);
    expect(countOf(h)).toBe(8);
    expect(shardNames(h)).toEqual(namesFor(8));
    expect(ok(h, ['resolve', '-a', 'okapi'])).toBe(`pi:${uuid(7)}\n`);
    expect(ok(h, ['resolve', '-a', 'tapir'])).toBe(`pi:${uuid(60)}\n`);
    expectFresh(h);

    // all but two gone: one shard, and the other seven with their prompt files removed
    for (let n = 1; n <= 140; n++) if (n !== 7 && n !== 60) fs.rmSync(piFile(h, n));
    expect(counts(h)).toMatch(/0 parsed, 0 appended, 2 unchanged, 138 dropped/);
    expect(countOf(h)).toBe(1);
    expect(shardNames(h)).toEqual(namesFor(1));
    expect(ok(h, ['resolve', '-a', 'okapi'])).toBe(`pi:${uuid(7)}\n`);
    expect(ok(h, ['resolve', '-a', 'tapir'])).toBe(`pi:${uuid(60)}\n`);
    expectFresh(h);

    // --rebuild picks the count afresh too
    for (let n = 200; n <= 240; n++) piSession(h, n);
    ok(h, ['index', '--rebuild']);
    expect(countOf(h)).toBe(2);
    expectFresh(h);
  });

  it('a full pass over a stored state (a Claude Code session appears, forks, goes) writes again only the shards of what changed', () => {
    const h = tempHome();
    const claude = (n: number, text = `claude prompt ${n}`) => write(h, claudeFile(h, n), claudeLine(uuid(n), `/tmp/p${n}`, text, ts(1 + (n % 27))));
    for (let n = 1; n <= 70; n++) claude(n);
    ok(h, ['rows']);
    expect(countOf(h)).toBe(4);
    const shardWith = (n: number) => [0, 1, 2, 3].find((k) => read(h, `state/00${k}.json`).toString('utf8').includes(JSON.stringify(claudeFile(h, n))))!;
    const inodes = () => shardNames(h).map((f) => fs.statSync(path.join(cache(h), 'state', f)).ino);
    /** the shard files (state and prompts) that are new files since `before`, by shard number */
    const rewritten = (before: number[]) => {
      const now = inodes();
      return [...new Set(shardNames(h).filter((_, i) => now[i] !== before[i]).map((f) => Number(f.slice(0, 3))))].sort();
    };

    // a new session: Claude's finish pass reads every source's state (a new file can be a fork),
    // but only the new file's shard is written again
    let before = inodes();
    claude(71, 'the pangolin audit');
    expect(counts(h)).toMatch(/1 parsed, 0 appended, 70 unchanged/);
    expect(rewritten(before)).toEqual([shardWith(71)]);
    expect(ok(h, ['resolve', '-a', 'pangolin'])).toBe(`claude:${uuid(71)}\n`);
    expectFresh(h);

    // a fork of session 3 (its first prompt copied, the same record): linked by the finish pass
    before = inodes();
    const first = { uuid: `u-${uuid(3)}-${ts(4)}` };
    write(h, claudeFile(h, 72), claudeLine(uuid(72), '/tmp/p3', 'claude prompt 3', ts(4), first) + claudeLine(uuid(72), '/tmp/p3', 'the fork of three', ts(28)));
    ok(h, ['rows']);
    expect(rewritten(before)).toEqual([shardWith(72)]);
    const ls = JSON.parse(ok(h, ['ls', '--json', '-a'])) as { id: string; forkedFrom: string | null }[];
    expect(ls.find((s) => s.id === uuid(72))?.forkedFrom).toBe(uuid(3));
    expectFresh(h);

    // one gone: its shard is written again without it
    const of5 = shardWith(5);
    before = inodes();
    fs.rmSync(claudeFile(h, 5));
    expect(counts(h)).toMatch(/0 parsed, 0 appended, 71 unchanged, 1 dropped/);
    expect(rewritten(before)).toEqual([of5]);
    expect(read(h, `state/00${of5}.json`).toString('utf8')).not.toContain(JSON.stringify(claudeFile(h, 5)));
    expectFresh(h);
  });

  it('a full pass after an append that parsed and handed on its file (its sessions changed) writes that file\'s shard too', () => {
    const h = store();
    // a Claude file whose first line is not complete yet: no session
    const f = claudeFile(h, 7);
    const first = claudeLine(uuid(7), '/tmp/p7', 'first words of seven', ts(7));
    write(h, f, first.slice(0, 30));
    views(h);
    // list.json's body damaged (its head still read): the run after the append goes the full way
    const list = path.join(cache(h), 'list.json');
    fs.truncateSync(list, fs.statSync(list).size - 5);
    fs.appendFileSync(f, first.slice(30) + claudeLine(uuid(7), '/tmp/p7', 'the narwhal manifest', ts(8)) + claudeLine(uuid(7), '/tmp/p7', 'last words of seven', ts(9)));
    ok(h, ['rows']);
    // the middle prompt is only in the state: the shard was written with the parsed entry
    expect(ok(h, ['resolve', '-a', 'narwhal'])).toBe(`claude:${uuid(7)}\n`);
    expectFresh(h);
  });

  it('an append whose shard cannot be read reads and writes every shard again: the other sources of that shard keep their prompts', () => {
    const h = tempHome();
    for (let n = 1; n <= 40; n++) piSession(h, n);
    ok(h, ['rows']);
    expect(countOf(h)).toBe(2);
    // two sources in shard 1: one grows, the other has a word only its middle prompt holds
    const inOne = Array.from({ length: 40 }, (_, i) => i + 1).filter((n) => {
      const s = read(h, 'state/001.json').toString('utf8');
      return s.includes(JSON.stringify(piFile(h, n)));
    });
    expect(inOne.length).toBeGreaterThan(2);
    const [grows, other] = inOne as [number, number];
    piSession(h, other, 'the quokka rota');
    ok(h, ['rows']);
    expect(ok(h, ['resolve', '-a', 'quokka'])).toBe(`pi:${uuid(other)}\n`);
    // shard 1 damaged, then an append to the other source of it
    const sfile = path.join(cache(h), 'state', '001.json');
    fs.writeFileSync(sfile, fs.readFileSync(sfile).subarray(0, 200));
    fs.appendFileSync(piFile(h, grows), piMessage('a later prompt', ts(28), 4));
    expect(keys(ok(h, ['rows', '-a']))[0]).toBe(`pi:${uuid(grows)}`);
    expect(ok(h, ['resolve', '-a', 'quokka'])).toBe(`pi:${uuid(other)}\n`);
    expect(JSON.parse(read(h, 'state/001.json').toString('utf8')).entries[piFile(h, other)]).toBeDefined();
    expectFresh(h);
  });
});
