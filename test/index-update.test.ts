// An update of a stored index (lib/index/index.ts): appends, sessions that appear, go, move or fork,
// short ids that grow. What it must never do is serve a stale listing: every listing here is
// compared with one built from nothing (another cache directory). Then what a killed or concurrent
// builder leaves.

import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { openDatabase } from '../lib/os/sqlite.js';
import { BIN, claudePrompt, envFor, jsonl, run, sleep, tempDir, tempHome, write } from './helpers.js';

const uuid = (n: number) => `${String(n).padStart(8, '0')}-2222-4222-8222-222222222222`;
const ts = (day: number, h = 10) => `2026-05-${String(day).padStart(2, '0')}T${String(h).padStart(2, '0')}:00:00.000Z`;
const claudeLine = (id: string, cwd: string, text: string, at: string, extra: Record<string, unknown> = {}): string =>
  jsonl(claudePrompt(id, cwd, text, at, extra));
const piHeader = (id: string, cwd: string, at: string) => jsonl({ type: 'session', version: 3, id, timestamp: at, cwd });
const piMessage = (text: string, at: string, n: number) =>
  jsonl({
    type: 'message',
    id: `m${n}`,
    parentId: null,
    timestamp: at,
    message: { role: 'user', content: [{ type: 'text', text }], timestamp: Date.parse(at) },
  });

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
  return {
    rows: ok(h, ['rows', '-a'], env),
    align: ok(h, ['rows', '-a', '--align'], env),
    ls: JSON.parse(ok(h, ['ls', '--json', '-a'], env)),
  };
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
const keys = (out: string) =>
  out
    .split('\n')
    .filter(Boolean)
    .map((l) => l.split('\t')[0]);
const read = (h: string, f: string) => fs.readFileSync(path.join(cache(h), f));
const exists = (h: string, f: string) => fs.existsSync(path.join(cache(h), f));
const counts = (h: string, env: Record<string, string> = {}) => {
  const r = run(h, ['index'], env);
  expect(r.code, r.stderr).toBe(0);
  return r.stderr;
};

describe('an update of a stored index lists as a build from nothing', () => {
  it('rows, rows --align, ls and preview show the new last prompt and order', () => {
    const h = store();
    const before = views(h);
    expect(keys(before.rows)).toEqual([5, 4, 3, 2, 1].map((n) => (n > 3 ? 'pi:' : 'claude:') + uuid(n)));

    // the oldest Claude session goes on, later than every other
    fs.appendFileSync(claudeFile(h, 1), claudeLine(uuid(1), '/tmp/p1', 'claude later one', ts(9)));
    const after = ok(h, ['rows', '-a']);
    expect(keys(after)[0]).toBe(`claude:${uuid(1)}`);
    // the prompts stay in the state shards, never in the listing
    expectFresh(h);
    const ls = JSON.parse(ok(h, ['ls', '--json', '-a']));
    expect(ls[0]).toMatchObject({ id: uuid(1), prompts: 2 });
    // the picker's preview reads the database: the new prompt count and last prompt
    expect(ok(h, ['preview', `claude:${uuid(1)}`])).toMatch(/prompts: +2\n[\s\S]*last prompt:\nclaude later one\n/);
    // the next run has nothing to do
    expect(counts(h)).toMatch(/0 parsed, 0 appended, 5 unchanged/);

    // a pi session too: in place in the order, without moving ahead
    fs.appendFileSync(piFile(h, 4), piMessage('pi later four', ts(4, 12), 2));
    expect(keys(ok(h, ['rows', '-a']))).toEqual([
      `claude:${uuid(1)}`,
      `pi:${uuid(5)}`,
      `pi:${uuid(4)}`,
      `claude:${uuid(3)}`,
      `claude:${uuid(2)}`,
    ]);
    expectFresh(h);
  });

  it('an append while the discovery memos serve (sources taken from check.bin, their paths alike but for one character) updates the right session', () => {
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
    fs.appendFileSync(twin(6), claudeLine(uuid(6), '/tmp/same', 'twin six goes on', ts(9)));
    const after = ok(h, ['rows', '-a']);
    expect(keys(after)[0]).toBe(`claude:${uuid(6)}`);
    expect(read(h, 'check.bin').toString('latin1')).toContain('"memo"');
    expectFresh(h);
    expect(counts(h)).toMatch(/0 parsed, 0 appended, 7 unchanged/);
    // and the other twin after it
    fs.appendFileSync(twin(7), claudeLine(uuid(7), '/tmp/same', 'twin seven too', ts(10)));
    expect(keys(ok(h, ['rows', '-a'])).slice(0, 2)).toEqual([`claude:${uuid(7)}`, `claude:${uuid(6)}`]);
    expectFresh(h);
  });

  it('with the memos serving, a file grown in one harness and a session new or gone in another in the same run: each change seen', () => {
    const h = store();
    ok(h, ['rows']);
    // directories read more than RACY_MS after their last change are remembered (lib/index/discmemo.ts)
    spawnSync('sleep', ['2.4']);
    ok(h, ['rows']);
    expect(read(h, 'check.bin').toString('latin1')).toContain('"memo"');
    // pi's memo serves (its directories did not change): its grown file is told by its stat alone;
    // Claude Code's directories changed (a new session): its files are compared path by path
    fs.appendFileSync(piFile(h, 4), piMessage('four grows', ts(20), 2));
    write(h, claudeFile(h, 6), claudeLine(uuid(6), '/tmp/p6', 'claude prompt 6', ts(19)));
    expect(keys(ok(h, ['rows', '-a'])).slice(0, 2)).toEqual([`pi:${uuid(4)}`, `claude:${uuid(6)}`]);
    expectFresh(h);
    spawnSync('sleep', ['2.4']);
    ok(h, ['rows']);
    // and the other way: a Claude file grows (its memo serves) while a pi session goes
    fs.appendFileSync(claudeFile(h, 2), claudeLine(uuid(2), '/tmp/p2', 'two grows', ts(21)));
    fs.rmSync(piFile(h, 5));
    const after = keys(ok(h, ['rows', '-a']));
    expect(after[0]).toBe(`claude:${uuid(2)}`);
    expect(after).not.toContain(`pi:${uuid(5)}`);
    expectFresh(h);
  });

  it('an append seen first by ls, search or resolve (the whole listing) updates it the same', () => {
    const h = store();
    views(h);
    fs.appendFileSync(claudeFile(h, 2), claudeLine(uuid(2), '/tmp/p2', 'claude later two', ts(8)));
    const ls = JSON.parse(ok(h, ['ls', '--json', '-a']));
    expect(ls[0]).toMatchObject({ id: uuid(2), prompts: 2 });
    expect(ok(h, ['resolve', 'later two'])).toContain(uuid(2));
    expectFresh(h);
  });

  it('successive appends, one session or several in a run', { timeout: 60_000 }, () => {
    const h = store();
    const env = {};
    views(h, env);
    // two sessions grown in one run, then one of them again, then a third
    fs.appendFileSync(claudeFile(h, 1), claudeLine(uuid(1), '/tmp/p1', 'one a', ts(10)));
    fs.appendFileSync(piFile(h, 5), piMessage('five a', ts(11), 2));
    expectFresh(h, env);
    fs.appendFileSync(claudeFile(h, 1), claudeLine(uuid(1), '/tmp/p1', 'one b', ts(12)));
    expectFresh(h, env);
    fs.appendFileSync(claudeFile(h, 3), claudeLine(uuid(3), '/tmp/p3', 'three a', ts(13)));
    expectFresh(h, env);
    // a fourth session
    fs.appendFileSync(piFile(h, 4), piMessage('four a', ts(14), 2));
    expectFresh(h, env);
    // and one more
    fs.appendFileSync(claudeFile(h, 2), claudeLine(uuid(2), '/tmp/p2', 'two a', ts(15)));
    expectFresh(h, env);
  });

  it('many successive appends to every session list as a build would', { timeout: 120_000 }, () => {
    const h = store();
    views(h);
    const grow = [
      (k: number) =>
        fs.appendFileSync(
          claudeFile(h, 1 + (k % 3)),
          claudeLine(uuid(1 + (k % 3)), `/tmp/p${1 + (k % 3)}`, `claude round ${k}`, ts(10 + (k % 15), k % 24)),
        ),
      (k: number) => fs.appendFileSync(piFile(h, 4 + ((k >> 1) % 2)), piMessage(`pi round ${k}`, ts(10 + (k % 15), (k + 5) % 24), 10 + k)),
    ];
    for (let k = 0; k < 16; k++) {
      grow[k % 2](k);
      ok(h, ['rows', '-a']);
    }
    expectFresh(h);
  });

  it("a session that appears or goes; a Claude Code fork (its first record another's) linked by the finish pass", () => {
    const h = store();
    views(h);
    fs.appendFileSync(claudeFile(h, 1), claudeLine(uuid(1), '/tmp/p1', 'one a', ts(10)));
    views(h);
    // a new Claude session whose first record is its own (links.bin: no other session has it)
    write(h, claudeFile(h, 6), claudeLine(uuid(6), '/tmp/p6', 'claude prompt 6', ts(11)));
    expect(counts(h)).toMatch(/1 parsed, 0 appended, 5 unchanged/);
    expectFresh(h);
    expect(keys(ok(h, ['rows', '-a']))).toContain(`claude:${uuid(6)}`);
    // a fork of session 3 (its first record copied): the finish pass over the listing links it
    write(
      h,
      claudeFile(h, 8),
      claudeLine(uuid(8), '/tmp/p3', 'claude prompt 3', ts(3), { uuid: `u-${uuid(3)}-${ts(3)}` }) +
        claudeLine(uuid(8), '/tmp/p3', 'the fork of three', ts(15)),
    );
    expectFresh(h);
    expect(
      (JSON.parse(ok(h, ['ls', '--json', '-a'])) as { id: string; forkedFrom: string | null }[]).find((s) => s.id === uuid(8))?.forkedFrom,
    ).toBe(uuid(3));
    fs.rmSync(claudeFile(h, 8));
    views(h);
    // a second session new since the last build, with the first record of one that is new too
    write(h, claudeFile(h, 9), claudeLine(uuid(9), '/tmp/p9', 'claude prompt 9', ts(16)));
    views(h);
    write(
      h,
      claudeFile(h, 10),
      claudeLine(uuid(10), '/tmp/p9', 'claude prompt 9', ts(16), { uuid: `u-${uuid(9)}-${ts(16)}` }) +
        claudeLine(uuid(10), '/tmp/p9', 'the fork of nine', ts(17)),
    );
    expectFresh(h);
    expect(
      (JSON.parse(ok(h, ['ls', '--json', '-a'])) as { id: string; forkedFrom: string | null }[]).find((s) => s.id === uuid(10))?.forkedFrom,
    ).toBe(uuid(9));
    fs.rmSync(claudeFile(h, 10));
    fs.rmSync(claudeFile(h, 9));
    fs.rmSync(claudeFile(h, 6));
    ok(h, ['index', '--rebuild']);

    // a Claude session gone (no fork, its first record its own): its row dropped
    fs.appendFileSync(piFile(h, 4), piMessage('four a', ts(12), 2));
    views(h);
    fs.rmSync(claudeFile(h, 2));
    expect(counts(h)).toMatch(/0 parsed, 0 appended, 4 unchanged, 1 dropped/);
    expectFresh(h);
    expect(keys(ok(h, ['rows', '-a']))).not.toContain(`claude:${uuid(2)}`);
    expect(run(h, ['resolve', '-a', `claude:${uuid(2)}`]).code).toBe(1);

    // a pi session appears: put with its short id, its prompts in its shard for words
    write(h, piFile(h, 7), piHeader(uuid(7), '/tmp/q7', ts(13)) + piMessage('the quokka census', ts(13, 11), 1));
    expect(counts(h)).toMatch(/1 parsed, 0 appended, 4 unchanged/);
    expectFresh(h);
    expect(keys(ok(h, ['rows']))[0]).toBe(`pi:${uuid(7)}`);
    expect(ok(h, ['resolve', '-a', 'quokka'])).toBe(`pi:${uuid(7)}\n`);
    expect(ok(h, ['resolve', '-a', uuid(7).slice(0, 8)])).toBe(`pi:${uuid(7)}\n`);

    // and goes again, with another pi session
    fs.rmSync(piFile(h, 7));
    fs.rmSync(piFile(h, 5));
    expect(counts(h)).toMatch(/0 parsed, 0 appended, 3 unchanged, 2 dropped/);
    expectFresh(h);
    expect(run(h, ['resolve', '-a', 'quokka']).code).toBe(1);
  });

  it('a session file moved (gone from one path, new at another, the same key): listed as a build lists it', () => {
    const h = store();
    views(h);
    fs.appendFileSync(piFile(h, 4), piMessage('four a', ts(12, 11), 2));
    views(h);
    const moved = path.join(h, '.pi/agent/sessions/--tmp-moved--', path.basename(piFile(h, 5)));
    fs.mkdirSync(path.dirname(moved), { recursive: true });
    fs.renameSync(piFile(h, 5), moved);
    expectFresh(h);
    expect(keys(ok(h, ['rows', '-a'])).filter((k) => k === `pi:${uuid(5)}`)).toHaveLength(1);
  });

  it("a new session whose id begins as another's lengthens both short ids; they shorten when it goes", () => {
    const h = store();
    views(h);
    // 00000004-… is listed: 00000004-3333-… shares its first 8 characters
    const twin = `${uuid(4).slice(0, 9)}3333-4333-8333-333333333333`;
    write(
      h,
      `.pi/agent/sessions/--tmp-twin--/2026-05-01T10-00-00-000Z_${twin}.jsonl`,
      piHeader(twin, '/tmp/twin', ts(14)) + piMessage('twin prompt', ts(14), 1),
    );
    expectBuilt(h);
    const shorts = new Map(
      ok(h, ['rows', '-a'])
        .trim()
        .split('\n')
        .map((l) => [l.split('\t')[0], l.split('\t')[1]]),
    );
    expect(shorts.get(`pi:${twin}`)).toBe(twin.slice(0, 10));
    expect(shorts.get(`pi:${uuid(4)}`)).toBe(uuid(4).slice(0, 10));

    // the twin goes: pi 4's short id is 8 characters again
    fs.rmSync(path.join(h, `.pi/agent/sessions/--tmp-twin--/2026-05-01T10-00-00-000Z_${twin}.jsonl`));
    expectBuilt(h);
    expect(keys(ok(h, ['rows', '-a']))).not.toContain(`pi:${twin}`);
  });

  it('a grown file whose sessions change (a pi header only now complete)', () => {
    const h = store();
    // a pi file with a partial first line: no session yet
    const f = piFile(h, 7);
    const header = piHeader(uuid(7), '/tmp/q7', ts(7));
    write(h, f, header.slice(0, 20));
    views(h);
    fs.appendFileSync(f, header.slice(20) + piMessage('pi prompt 7', ts(7), 1));
    expectFresh(h);
    expect(keys(ok(h, ['rows', '-a']))[0]).toBe(`pi:${uuid(7)}`);
  });

  it('an append to a fork: the finish pass runs, and the links stand', () => {
    const h = store();
    const id = uuid(8);
    const fork = uuid(9);
    const shared = { uuid: 'shared-first-prompt-0001' };
    write(
      h,
      claudeFile(h, 8),
      claudeLine(id, '/tmp/p8', 'a parent prompt', ts(20), shared) + claudeLine(id, '/tmp/p8', 'parent goes on', ts(22), { uuid: 'p-2' }),
    );
    write(
      h,
      claudeFile(h, 9),
      claudeLine(fork, '/tmp/p9', 'a parent prompt', ts(20), shared) + claudeLine(fork, '/tmp/p9', 'the fork', ts(21), { uuid: 'f-2' }),
    );
    views(h);
    fs.appendFileSync(claudeFile(h, 9), claudeLine(fork, '/tmp/p9', 'the fork goes on', ts(23), { uuid: 'f-3' }));
    expectFresh(h);
    const ls = JSON.parse(ok(h, ['ls', '--json', '-a'])) as { id: string; forkedFrom: string | null }[];
    expect(ls.find((s) => s.id === fork)?.forkedFrom).toBe(id);
  });

  it('an append continues from a state kept without its prompts: every prompt stored, sanitised, as a build from nothing stores them', () => {
    const h = store();
    // earlier prompts with a secret and a control character (stored sanitised, put back so for the append)
    fs.appendFileSync(piFile(h, 4), piMessage('deploy with password=hunter2 now', ts(6), 2));
    fs.appendFileSync(claudeFile(h, 1), claudeLine(uuid(1), '/tmp/p1', 'colour \x1b[31mred\x1b[0m please', ts(6)));
    views(h);
    const db = (c: string) => openDatabase(path.join(c, 'index.db'), { readonly: true });
    const stored = (c: string) => {
      const d = db(c);
      try {
        const prompts = d.prepare('SELECT path, key, texts FROM prompts ORDER BY path, key').all();
        const states = d.prepare('SELECT state FROM sources').pluck().all() as string[];
        return { prompts, states };
      } finally {
        d.close();
      }
    };
    /** the prompts a build from nothing stores */
    const fresh = () => {
      const other = tempDir('resume-fresh-');
      ok(h, ['rows', '-a'], { RESUME_CACHE_DIR: other });
      return stored(other).prompts;
    };
    for (const n of [2, 3]) {
      fs.appendFileSync(piFile(h, 4), piMessage(`pi four, prompt ${n + 1}`, ts(6, n + 10), n + 1));
      fs.appendFileSync(claudeFile(h, 1), claudeLine(uuid(1), '/tmp/p1', `claude one, prompt ${n + 1}`, ts(6, n + 10)));
      expect(counts(h)).toMatch(/0 parsed, 2 appended, 3 unchanged/);
      const now = stored(cache(h));
      expect(now.prompts).toEqual(fresh());
      expect(now.states.some((s) => Object.hasOwn(JSON.parse(s), 'all'))).toBe(false);
    }
    const texts = (stored(cache(h)).prompts as { texts: string }[]).map((r) => r.texts).join('\n');
    expect(texts).toContain('password=[REDACTED:password]');
    expect(texts).toContain('pi four, prompt 4');
    expect(texts).not.toContain('hunter2');
    expect(texts).not.toContain('\x1b');
    expectFresh(h);
    // a stored state whose prompts are not what it counts (a damaged row): the file is parsed again
    const d = openDatabase(path.join(cache(h), 'index.db'));
    d.prepare('UPDATE prompts SET texts = ? WHERE key = ?').run(JSON.stringify(['only one']), `pi:${uuid(4)}`);
    d.close();
    fs.appendFileSync(piFile(h, 4), piMessage('pi four, last', ts(7), 9));
    expect(counts(h)).toMatch(/1 parsed, 0 appended, 4 unchanged/);
    expectFresh(h);
    expect(stored(cache(h)).prompts).toEqual(fresh());
  });

  it('rows.bin after a change is the last one with the changed sessions put in their places, as a build writes it', () => {
    const h = store();
    // sessions 6 and 7 at the same time as 5 (ties sort by id), the twin's id one 4 shares a prefix with
    for (const n of [6, 7]) write(h, claudeFile(h, n), claudeLine(uuid(n), `/tmp/p${n}`, `claude prompt ${n}`, ts(5)));
    views(h);
    // a record the build did not change is taken from the last file (a record put there by hand stays)
    const marked = read(h, 'rows.bin').toString('latin1').replace('claude prompt 2', 'claude PROMPT 2');
    fs.writeFileSync(path.join(cache(h), 'rows.bin'), Buffer.from(marked, 'latin1'));
    fs.appendFileSync(claudeFile(h, 1), claudeLine(uuid(1), '/tmp/p1', 'one a', ts(5)));
    expect(ok(h, ['rows', '-a'])).toContain('claude PROMPT 2');
    const records = (b: Buffer) => b.subarray(b.indexOf(10) + 1);
    const same = (patched = true) => {
      // (the marked record is kept by every change below but the last)
      expect(read(h, 'rows.bin').includes('claude PROMPT 2')).toBe(patched);
      const other = tempDir('resume-fresh-');
      ok(h, ['rows', '-a'], { RESUME_CACHE_DIR: other });
      const want = records(fs.readFileSync(path.join(other, 'rows.bin')));
      expect(records(read(h, 'rows.bin')).toString('latin1').replace('PROMPT', 'prompt')).toBe(want.toString('latin1'));
    };
    same();
    // appends that tie with others' times, on either side of their ids; a session that goes; a new
    // one that lengthens another's short id; one whose time goes back
    fs.appendFileSync(claudeFile(h, 7), claudeLine(uuid(7), '/tmp/p7', 'seven a', ts(5)));
    ok(h, ['rows', '-a']);
    same();
    fs.appendFileSync(piFile(h, 4), piMessage('four a', ts(5), 2));
    fs.rmSync(claudeFile(h, 6));
    ok(h, ['rows', '-a']);
    same();
    const twin = `${uuid(4).slice(0, 9)}3333-4333-8333-333333333333`;
    write(
      h,
      `.pi/agent/sessions/--tmp-twin--/2026-05-01T10-00-00-000Z_${twin}.jsonl`,
      piHeader(twin, '/tmp/twin', ts(5)) + piMessage('twin', ts(5), 1),
    );
    ok(h, ['rows', '-a']);
    same();
    // the last file of another build: written whole from the database (the mark goes)
    fs.writeFileSync(
      path.join(cache(h), 'rows.bin'),
      Buffer.from(
        read(h, 'rows.bin')
          .toString('latin1')
          .replace(/^v(\d+) \S+/, 'v$1 another'),
        'latin1',
      ),
    );
    fs.appendFileSync(claudeFile(h, 3), claudeLine(uuid(3), '/tmp/p3', 'three a', ts(6)));
    expect(ok(h, ['rows', '-a'])).not.toContain('claude PROMPT 2');
    same(false);
  });
});

describe('one writer, readers that never wait, a killed builder', () => {
  /** A store big enough that a cold build takes a while: 60 Claude sessions of ~300 KB each. */
  function bigStore(): string {
    const h = store();
    const pad = 'x'.repeat(4000);
    for (let n = 10; n < 70; n++) {
      let text = '';
      for (let k = 0; k < 75; k++) text += claudeLine(uuid(n), `/tmp/p${n}`, `big prompt ${n} ${k} ${pad}`, ts(1 + (n % 20), k % 24));
      write(h, claudeFile(h, n), text);
    }
    return h;
  }
  const spawnIndex = (h: string, args: string[] = ['index']) =>
    spawn(process.execPath, [BIN, ...args], { env: envFor(h), stdio: ['ignore', 'ignore', 'pipe'] });
  // (a child that ended before the kill has fired its exit event already)
  const exited = (c: ChildProcess) =>
    new Promise<number>((res) => {
      if (c.exitCode !== null || c.signalCode !== null) res(c.exitCode ?? 128);
      else c.on('exit', (code, sig) => res(code ?? (sig ? 128 : 1)));
    });

  it('kill -9 at any moment of a build leaves a sound index: the next run lists as a build from nothing', {
    timeout: 120_000,
  }, async () => {
    const h = bigStore();
    const want = fresh(h);
    for (const ms of [30, 120, 250, 500]) {
      fs.rmSync(cache(h), { recursive: true, force: true });
      const c = spawnIndex(h);
      await sleep(ms);
      c.kill('SIGKILL');
      await exited(c);
      expect(views(h)).toEqual(want);
      const db = openDatabase(path.join(cache(h), 'index.db'), { readonly: true });
      expect(db.pragma('integrity_check', { simple: true })).toBe('ok');
      db.close();
    }
    // killed during an update of a stored index: the last commit stands, and the next run finishes it
    for (const ms of [30, 150]) {
      fs.appendFileSync(claudeFile(h, 12), claudeLine(uuid(12), '/tmp/p12', `killed at ${ms}`, ts(25, ms % 24)));
      fs.rmSync(claudeFile(h, ms === 30 ? 13 : 14));
      const c = spawnIndex(h, ['index', '--rebuild']);
      await sleep(ms);
      c.kill('SIGKILL');
      await exited(c);
      expect(views(h)).toEqual(fresh(h));
    }
  });

  it('builders started together do the work once; a reader during a build sees the last commit, whole', { timeout: 120_000 }, async () => {
    const h = bigStore();
    const runs = [spawnIndex(h), spawnIndex(h), spawnIndex(h)];
    const errs = runs.map((c) => {
      let s = '';
      c.stderr.on('data', (d) => (s += d));
      return () => s;
    });
    expect(await Promise.all(runs.map(exited))).toEqual([0, 0, 0]);
    // every source parsed by one of them; the others found it done
    const parsed = errs.map((e) => Number(/(\d+) parsed/.exec(e())?.[1] ?? NaN));
    expect(parsed.filter((n) => n > 0)).toEqual([65]);
    expect(parsed.filter((n) => n === 0)).toHaveLength(2);
    expect(views(h)).toEqual(fresh(h));

    // a reader while a rebuild holds the write lock: the listing as committed, not waiting for it
    const before = ok(h, ['ls', '--json', '-a']);
    const c = spawnIndex(h, ['index', '--rebuild']);
    await sleep(150);
    const show = run(h, ['show', uuid(12), '--json']);
    expect(show.code, show.stderr).toBe(0);
    expect(JSON.parse(show.stdout).id).toBe(uuid(12));
    expect(ok(h, ['ls', '--json', '-a'])).toBe(before);
    expect(await exited(c)).toBe(0);
    expect(ok(h, ['ls', '--json', '-a'])).toBe(before);
  });

  it('check.bin or rows.bin missing, damaged or of another build than the database: written again from it, nothing parsed', () => {
    const h = store();
    const want = views(h);
    const damage: Array<[string, Buffer | null]> = [
      ['rows.bin', null],
      ['rows.bin', Buffer.from('v3 another-build 5 /nowhere\n')],
      ['check.bin', null],
      ['check.bin', Buffer.from(`${read(h, 'check.bin').toString('latin1').split(' ')[0]} another-build 5 2\n[]`)],
    ];
    for (const [f, b] of damage) {
      if (b) fs.writeFileSync(path.join(cache(h), f), b);
      else fs.rmSync(path.join(cache(h), f));
      expect(counts(h)).toMatch(/0 parsed, 0 appended, 5 unchanged/);
      expect(views(h)).toEqual(want);
      expect(exists(h, 'rows.bin') && exists(h, 'check.bin')).toBe(true);
    }
  });
});
