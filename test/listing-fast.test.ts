// Issue 15, the no-change `rows` path: the rendered rows (rows.bin) and the discovery memo kept in
// check.bin. What they must never do is serve a stale listing, or trust a damaged file.

import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { checkNames, type Found, wholePaths } from '../lib/index/check.js';
import { RACY_MS, type SeenDir } from '../lib/index/dirs.js';
import type { AdapterMeta } from '../lib/index/discmemo.js';
import { dirsStand, makeMemo, parseMeta } from '../lib/index/discmemo.js';
import { dirFilterable, lsRows, printRowBin, ROWBIN_VERSION, readRowBin, rowBinChunks } from '../lib/index/rowbin.js';
import { openWrite } from '../lib/index/store.js';
import type { Source } from '../lib/types.js';
import { claudePrompt, jsonl, must, run, tempHome, write } from './helpers.js';

const uuid = (n: number) => `${String(n).padStart(8, '0')}-2222-4222-8222-222222222222`;
const claudeLine = (id: string, cwd: string, text: string, ts: string, extra: Record<string, unknown> = {}): string =>
  jsonl(claudePrompt(id, cwd, text, ts, extra));
function piSession(id: string, cwd: string, text: string, ts: string): string {
  return jsonl(
    { type: 'session', version: 3, id, timestamp: ts, cwd },
    {
      type: 'message',
      id: 'm1',
      parentId: null,
      timestamp: ts,
      message: { role: 'user', content: [{ type: 'text', text }], timestamp: Date.parse(ts) },
    },
  );
}
const cache = (h: string) => path.join(h, '.cache', 'resume');
const rows = (h: string, args: string[] = ['-a']) => {
  const r = run(h, ['rows', ...args]);
  expect(r.code, r.stderr).toBe(0);
  return r.stdout;
};
const keys = (out: string) =>
  out
    .split('\n')
    .filter(Boolean)
    .map((l) => l.split('\t')[0]);
/** Wait until every directory changed so far is past the racy window (a memo is made only then). */
const settle = () => spawnSync('sleep', [String((RACY_MS + 300) / 1000)]);
/** The per-adapter meta check.bin records. */
function meta(h: string): { name: string; n: number; memo?: { dirs: unknown[] } }[] {
  const b = fs.readFileSync(path.join(cache(h), 'check.bin'));
  const nl = b.indexOf(10);
  const len = Number(b.toString('latin1', 0, nl).split(' ')[3]);
  return JSON.parse(b.toString('utf8', nl + 1, nl + 1 + len));
}
const memoOf = (h: string, name: string) => meta(h).find((m) => m.name === name)?.memo;

function store(): string {
  const h = tempHome();
  write(h, `.claude/projects/-tmp-a/${uuid(1)}.jsonl`, claudeLine(uuid(1), '/tmp/a', 'alpha prompt', '2026-05-01T10:00:00.000Z'));
  write(h, `.claude/projects/-tmp-b/${uuid(2)}.jsonl`, claudeLine(uuid(2), '/tmp/b', 'beta prompt', '2026-05-02T10:00:00.000Z'));
  write(
    h,
    `.pi/agent/sessions/--tmp-c--/2026-05-03T10-00-00-000Z_${uuid(3)}.jsonl`,
    piSession(uuid(3), '/tmp/c', 'gamma prompt', '2026-05-03T10:00:00.000Z'),
  );
  return h;
}

describe('rendered rows (rows.bin)', () => {
  it('prints exactly what the listing gives, for every filter, and applies snapshot names', () => {
    const h = store();
    write(
      h,
      `.claude/projects/-tmp-d/${uuid(4)}.jsonl`,
      claudeLine(uuid(4), '/tmp/d', 'a worker', '2026-05-04T10:00:00.000Z', { entrypoint: 'sdk-ts' }),
    );
    const variants = [[], ['-a'], ['-a', '--harness', 'pi'], ['--harness', 'claude,pi']];
    const viaBin = variants.map((v) => rows(h, v));
    expect(fs.existsSync(path.join(cache(h), 'rows.bin'))).toBe(true);
    // the same rows from the database (rows.bin gone: it is rendered again from the database's records)
    fs.rmSync(path.join(cache(h), 'rows.bin'));
    const viaJson = variants.map((v) => rows(h, v));
    expect(viaBin).toEqual(viaJson);
    expect(fs.existsSync(path.join(cache(h), 'rows.bin'))).toBe(true);
    expect(keys(viaBin[1])).toHaveLength(4);
    expect(keys(viaBin[0])).not.toContain(`claude:${uuid(4)}`); // hidden (sdk) unless -a
    expect(keys(viaBin[2])).toEqual([`pi:${uuid(3)}`]);
    // a /rename name kept by `resume snapshot` titles an untitled Claude session, as in every listing
    write(h, '.config/resume/sessions/names.json', JSON.stringify({ [uuid(1)]: 'named\tby  snapshot' }));
    const named = must(
      rows(h)
        .split('\n')
        .find((l) => l.startsWith(`claude:${uuid(1)}`)),
    );
    expect(named.split('\t').slice(-1)[0]).toBe('named by snapshot');
    expect(named.split('\t')).toHaveLength(7);
    expect(rows(h, ['--dir', '/tmp/a'])).toBe(`${named}\n`);
  });

  it('reads a damaged, truncated, foreign or other-home rows.bin as absent (and renders it again)', () => {
    const h = store();
    const want = rows(h);
    const file = path.join(cache(h), 'rows.bin');
    const good = fs.readFileSync(file);
    const damaged: Buffer[] = [
      good.subarray(0, good.length - 3),
      Buffer.concat([good, Buffer.from([1, 2, 3])]),
      Buffer.from('garbage'),
      Buffer.alloc(0),
      Buffer.from(good.toString('latin1').replace(/^(v\d+) \S+/, '$1 another-build'), 'latin1'),
      Buffer.from(good.toString('latin1').replace(/^(v\d+ \S+ \d+ )\S+/, '$1/home/someone-else'), 'latin1'),
      Buffer.from(good.toString('latin1').replace(/^v\d+ /, 'v999 '), 'latin1'),
      Buffer.from(good.toString('latin1').replace(/^v\d+ /, `v${ROWBIN_VERSION - 1} `), 'latin1'),
    ];
    // a record whose length runs past the end
    const long = Buffer.from(good);
    long.writeUInt32LE(0xffffff, long.indexOf(10) + 1 + 10);
    damaged.push(long);
    for (const bad of damaged) {
      fs.writeFileSync(file, bad);
      // (the rows printed last would be printed again without reading rows.bin: rowsout.ts)
      for (const f of fs.readdirSync(cache(h)).filter((n) => n.endsWith('.out'))) fs.rmSync(path.join(cache(h), f));
      expect(rows(h)).toBe(want);
      expect(readRowBin(fs.readFileSync(file))).not.toBeNull();
    }
  });

  it('round-trips records and refuses an id that would break a row', () => {
    type Extra = { cwd?: string | null; hidden?: boolean; hiddenReason?: string | null; prompts?: number };
    const s = (id: string, title: string | null, harness: 'claude' | 'pi' = 'claude', x: Extra = {}) => ({
      s: {
        key: `${harness}:${id}`,
        id,
        harness,
        cwd: '/home/u/p',
        title,
        firstPrompt: 'first ask',
        branch: 'main',
        started: 1,
        updated: 1_700_000_000_000,
        hidden: false,
        hiddenReason: null,
        prompts: 3,
        ...x,
      },
      short: id.slice(0, 8),
    });
    const chunks = must(rowBinChunks('b1', '/home/u', [s('abcdefgh-1', 'A title'), s('abcdefgh-2', null, 'pi')]));
    const r = must(readRowBin(Buffer.concat(chunks)));
    expect(r.count).toBe(2);
    const out: Buffer[] = [];
    printRowBin(r, {}, { readNames: () => ({}), now: 1_700_000_060_000, write: (b) => out.push(Buffer.from(b)) });
    expect(Buffer.concat(out).toString()).toBe(
      'claude:abcdefgh-1\tabcdefgh\t1m\tclaude\t~/p\tmain\tA title\npi:abcdefgh-2\tabcdefgh\t1m\tpi\t~/p\tmain\tfirst ask\n',
    );
    expect(rowBinChunks('b1', '/home/u', [s('bad\tid', null)])).toBeNull();
  });

  it("gives `ls` each record's values as the listing has them: the directory whole, the prompt count, why it is hidden", () => {
    const s = (id: string, x: object) => ({
      s: {
        key: `pi:${id}`,
        id,
        harness: 'pi' as const,
        cwd: '/home/u/p',
        title: null,
        firstPrompt: 'ask',
        branch: null,
        started: 5,
        updated: null,
        hidden: false,
        hiddenReason: null,
        prompts: 0,
        ...x,
      },
      short: id,
    });
    const home = '/home/u';
    const list = [
      s('a', { cwd: '/home/u/p', prompts: 7, branch: 'dev' }),
      s('b', { cwd: home, hidden: true, hiddenReason: 'subagent' }),
      s('c', { cwd: null, hidden: true, hiddenReason: 'archived', prompts: 70000 }),
      // `~` that is not the home, and a directory outside it
      s('d', { cwd: '/srv/~/x', title: 'T', updated: 9 }),
      s('e', { cwd: '~/literal' }),
    ];
    const bin = must(readRowBin(Buffer.concat(must(rowBinChunks('b', home, list)))));
    const got = must(lsRows(bin, () => ({}), { all: true })).shown;
    expect(got.map((r) => [r.short, r.cwd, r.prompts, r.hidden, r.hiddenReason, r.branch, r.label, r.time])).toEqual([
      ['a', '/home/u/p', 7, false, null, 'dev', 'ask', 5],
      ['b', '/home/u', 0, true, 'subagent', null, 'ask', 5],
      ['c', null, 70000, true, 'archived', null, 'ask', 5],
      ['d', '/srv/~/x', 0, false, null, null, 'T', 9],
      ['e', '~/literal', 0, false, null, null, 'ask', 5],
    ]);
    // the filter and the limit pick what is shown; every hidden record is still counted
    const some = must(lsRows(bin, () => ({}), {}, 1));
    expect(some.shown.map((r) => r.short)).toEqual(['a']);
    expect(some.hidden).toEqual([
      { hidden: true, harness: 'pi', cwd: null, hiddenReason: 'subagent' },
      { hidden: true, harness: 'pi', cwd: null, hiddenReason: 'archived' },
    ]);
    expect(must(lsRows(bin, () => ({}), { harness: ['claude'] })).shown).toEqual([]);
    // a directory filter: the directories whole again (under HOME and not), none for a session without one
    expect(dirFilterable(bin)).toBe(true);
    expect(must(lsRows(bin, () => ({}), { all: true, dir: '/home/u' })).shown.map((r) => r.short)).toEqual(['a', 'b']);
    expect(must(lsRows(bin, () => ({}), { all: true, dir: '/srv' })).shown.map((r) => r.short)).toEqual(['d']);
    // a directory a row shows made one line (a tab in it) cannot be filtered from the rows
    const tabbed = must(readRowBin(Buffer.concat(must(rowBinChunks('b', home, [...list, s('g', { cwd: '/srv/a\tb' })])))));
    expect(dirFilterable(tabbed)).toBe(false);
    expect(lsRows(tabbed, () => ({}), { dir: '/srv' })).toBeNull();
    expect(must(lsRows(tabbed, () => ({}), {})).shown.map((r) => r.cwd)).toContain('/srv/a b');
    // a reason without a code, or a home that is not one clean line: the listing serves
    expect(
      lsRows(
        must(readRowBin(Buffer.concat(must(rowBinChunks('b', home, [s('f', { hidden: true, hiddenReason: 'new-kind' })]))))),
        () => ({}),
      ),
    ).toBeNull();
    expect(lsRows(must(readRowBin(Buffer.concat(must(rowBinChunks('b', '/home/u  two', list))))), () => ({}))).toBeNull();
  });
});

describe('the discovery memo (check.bin)', () => {
  it('is made for directory-listing adapters once their directories are past the racy window', () => {
    const h = store();
    settle();
    rows(h);
    expect(memoOf(h, 'claude')?.dirs.length).toBeGreaterThan(0);
    expect(memoOf(h, 'pi')?.dirs.length).toBeGreaterThan(0);
    // adapters that read more than directories (SQLite -wal, hints) never get one
    expect(memoOf(h, 'cursor')).toBeUndefined();
    expect(memoOf(h, 'opencode')).toBeUndefined();
    // served: no directory is listed, so the remembered listings (the database's `dirs`) are not
    // even read; one made unreadable stays so
    const db = path.join(cache(h), 'index.db');
    const projects = path.join(h, '.claude/projects');
    const dirRow = (v?: string): string | undefined => {
      const d = openWrite(db);
      try {
        if (v !== undefined) d.prepare('UPDATE dirs SET rec = ? WHERE path = ?').run(v, projects);
        return d.prepare('SELECT rec FROM dirs WHERE path = ?').pluck().get(projects) as string | undefined;
      } finally {
        d.close();
      }
    };
    expect(JSON.parse(must(dirRow()))[4]).toContain('-tmp-a');
    const want = rows(h);
    dirRow('not read');
    expect(rows(h)).toBe(want);
    expect(dirRow()).toBe('not read');
    // a new session is seen at once (its directory changed), and the listings read are written again
    write(h, `.claude/projects/-tmp-b/${uuid(9)}.jsonl`, claudeLine(uuid(9), '/tmp/b', 'one more', '2026-05-09T10:00:00.000Z'));
    expect(keys(rows(h))[0]).toBe(`claude:${uuid(9)}`);
    expect(JSON.parse(must(dirRow()))[4]).toEqual(expect.arrayContaining(['-tmp-a', '-tmp-b']));
  });

  it('never hides a new file, a new directory, a removed file, a renamed directory or an append', () => {
    const h = store();
    const proj = path.join(h, '.claude/projects');
    const change: [string, () => void, (ks: string[], out: string) => void][] = [
      [
        'new file in a known directory',
        () => write(h, `.claude/projects/-tmp-a/${uuid(10)}.jsonl`, claudeLine(uuid(10), '/tmp/a', 'new file', '2026-05-05T10:00:00.000Z')),
        (ks) => expect(ks).toContain(`claude:${uuid(10)}`),
      ],
      [
        'new directory',
        () =>
          write(h, `.claude/projects/-tmp-new/${uuid(11)}.jsonl`, claudeLine(uuid(11), '/tmp/new', 'new dir', '2026-05-06T10:00:00.000Z')),
        (ks) => expect(ks).toContain(`claude:${uuid(11)}`),
      ],
      [
        'removed file',
        () => fs.rmSync(path.join(proj, `-tmp-a/${uuid(10)}.jsonl`)),
        (ks) => expect(ks).not.toContain(`claude:${uuid(10)}`),
      ],
      [
        'renamed directory',
        () => fs.renameSync(path.join(proj, '-tmp-new'), path.join(proj, '-tmp-moved')),
        (ks) => expect(ks).toContain(`claude:${uuid(11)}`),
      ],
      [
        'append',
        () =>
          fs.appendFileSync(
            path.join(h, `.pi/agent/sessions/--tmp-c--/2026-05-03T10-00-00-000Z_${uuid(3)}.jsonl`),
            jsonl({
              type: 'message',
              id: 'm2',
              parentId: 'm1',
              timestamp: '2026-06-01T10:00:00.000Z',
              message: { role: 'user', content: [{ type: 'text', text: 'later' }], timestamp: Date.parse('2026-06-01T10:00:00.000Z') },
            }),
          ),
        (ks) => expect(ks[0]).toBe(`pi:${uuid(3)}`),
      ],
    ];
    for (const [what, act, check] of change) {
      settle();
      rows(h);
      // the memo is in place, and it is what the next run would use
      expect(memoOf(h, 'claude'), what).toBeDefined();
      act();
      const out = rows(h);
      check(keys(out), out);
      // the same as a listing built from nothing
      const fresh = run(h, ['rows', '-a'], { RESUME_CACHE_DIR: path.join(h, 'fresh-cache') });
      expect(out, what).toBe(fresh.stdout);
    }
    // the renamed directory's session is read from its new path
    const ls = JSON.parse(run(h, ['ls', '--json', '-a']).stdout) as { id: string; file: string }[];
    expect(must(ls.find((s) => s.id === uuid(11))).file).toContain('-tmp-moved');
  });

  it('beside a harness discovered live every run, a renamed file of it is seen (same size, mtime and inode)', () => {
    // Gemini has no memo: its sources are found afresh each run while Claude's and pi's come from
    // their memos; the no-change check then compares only Gemini's paths. A rename keeps every stat
    // number, so only that comparison can tell.
    const h = store();
    const chats = path.join(h, '.gemini', 'tmp', 'proj', 'chats');
    fs.mkdirSync(chats, { recursive: true });
    fs.writeFileSync(path.join(h, '.gemini', 'tmp', 'proj', '.project_root'), '/tmp/g\n');
    const gid = 'aaaabbbb-e5f6-4890-abcd-ef1234567890';
    const before = path.join(chats, 'session-2026-05-04T10-00-aaaabbbb.jsonl');
    fs.writeFileSync(
      before,
      jsonl(
        {
          sessionId: gid,
          projectHash: 'f'.repeat(64),
          startTime: '2026-05-04T10:00:00.000Z',
          lastUpdated: '2026-05-04T10:00:00.000Z',
          kind: 'main',
        },
        { id: 'g1', timestamp: '2026-05-04T10:00:00.000Z', type: 'user', content: [{ text: 'gemini prompt' }] },
      ),
    );
    settle();
    rows(h);
    const want = rows(h);
    expect(keys(want)).toContain(`gemini:${gid}`);
    expect(memoOf(h, 'claude')).toBeDefined();
    expect(memoOf(h, 'gemini')).toBeUndefined();
    const after = path.join(chats, 'session-2026-05-04T10-00-renamed.jsonl');
    fs.renameSync(before, after);
    expect(rows(h)).toBe(want);
    const ls = JSON.parse(run(h, ['ls', '--json', '-a']).stdout) as { id: string; file: string }[];
    expect(must(ls.find((s) => s.id === gid)).file).toBe(after);
  });

  it('is not made when discovery follows a symbolic link, and the linked sessions are found', () => {
    const h = store();
    const elsewhere = path.join(h, 'elsewhere');
    write(h, `elsewhere/${uuid(20)}.jsonl`, claudeLine(uuid(20), '/tmp/l', 'linked', '2026-05-07T10:00:00.000Z'));
    fs.symlinkSync(elsewhere, path.join(h, '.claude/projects/-tmp-l'));
    settle();
    expect(keys(rows(h))).toContain(`claude:${uuid(20)}`);
    expect(memoOf(h, 'claude')).toBeUndefined();
    expect(memoOf(h, 'pi')).toBeDefined();
    write(h, `elsewhere/${uuid(21)}.jsonl`, claudeLine(uuid(21), '/tmp/l', 'linked too', '2026-05-08T10:00:00.000Z'));
    expect(keys(rows(h))).toContain(`claude:${uuid(21)}`);
  });

  it('treats a damaged memo as none', () => {
    const h = store();
    settle();
    const want = rows(h);
    const file = path.join(cache(h), 'check.bin');
    const good = fs.readFileSync(file);
    const nl = good.indexOf(10);
    const head = good.toString('latin1', 0, nl).split(' ');
    const metaLen = Number(head[3]);
    const metaText = good.toString('utf8', nl + 1, nl + 1 + metaLen);
    const count = Number(head[2]);
    const names = (hurt: (b: Buffer, at: number) => void) => {
      const b = Buffer.from(good);
      hurt(b, nl + 1 + metaLen + count * 25);
      return b;
    };
    const withMeta = (m: string) =>
      Buffer.concat([
        Buffer.from(`${head.slice(0, 3).join(' ')} ${Buffer.byteLength(m)}\n`, 'latin1'),
        Buffer.from(m),
        good.subarray(nl + 1 + metaLen),
      ]);
    const bad = [
      withMeta('{not json'),
      withMeta(JSON.stringify(JSON.parse(metaText).map((m: { n: number }) => ({ ...m, n: m.n + 1 })))),
      withMeta(JSON.stringify(JSON.parse(metaText).map((m: { memo?: unknown }) => (m.memo ? { ...m, memo: { key: 1 } } : m)))),
      Buffer.concat([good.subarray(0, good.length - 5)]),
      // kinds shuffled: the memo's codes no longer name the stored kinds
      withMeta(
        JSON.stringify(
          JSON.parse(metaText).map((m: { memo?: { kinds: string[] } }) => (m.memo ? { ...m, memo: { ...m.memo, kinds: [] } } : m)),
        ),
      ),
      // the stored paths (NUL between, last in the file): two joined into one, one split in two
      names((b, at) => (b[b.indexOf(0, at)] = 0x78)),
      names((b, at) => (b[b.lastIndexOf(0x2f, b.indexOf(0, at))] = 0)),
    ];
    bad.forEach((b, i) => {
      fs.writeFileSync(file, b);
      expect(rows(h), `damage ${i}`).toBe(want);
    });
  });

  it('sessions in directories with hostile names are served from the memo as a fresh build lists them, appends included', () => {
    const h = tempHome();
    const odd = ['-tmp-sp ace', '-tmp-q\'uo"te', '-tmp-new\nline', '-tmp-\u00e9t\u00e9-\u6f22', '-tmp-$(x)`y`'];
    for (const [i, d] of odd.entries())
      write(
        h,
        `.claude/projects/${d}/${uuid(30 + i)}.jsonl`,
        claudeLine(uuid(30 + i), `/tmp/${i}`, `odd ${i}`, `2026-05-0${i + 1}T10:00:00.000Z`),
      );
    // and two in one directory, so the memo's walk stays in a directory for more than one file
    write(h, `.claude/projects/${odd[3]}/${uuid(40)}.jsonl`, claudeLine(uuid(40), '/tmp/3', 'odd again', '2026-05-08T10:00:00.000Z'));
    settle();
    const first = rows(h);
    expect(memoOf(h, 'claude')).toBeDefined();
    const fresh = () => run(h, ['rows', '-a'], { RESUME_CACHE_DIR: path.join(h, `fresh-${Math.random()}`) }).stdout;
    expect(rows(h)).toBe(first);
    expect(first).toBe(fresh());
    expect(keys(first)).toHaveLength(odd.length + 1);
    fs.appendFileSync(
      path.join(h, `.claude/projects/${odd[3]}/${uuid(33)}.jsonl`),
      claudeLine(uuid(33), '/tmp/3', 'appended', '2026-06-01T10:00:00.000Z'),
    );
    const after = rows(h);
    expect(keys(after)[0]).toBe(`claude:${uuid(33)}`);
    expect(after).toBe(fresh());
  });

  it('dirsStand: a changed, created, removed or recently changed directory does not stand', () => {
    const h = tempHome();
    const d = path.join(h, 'd');
    fs.mkdirSync(d);
    const st = fs.statSync(d);
    const later = Math.max(st.mtimeMs, st.ctimeMs) + RACY_MS + 1;
    const rec: SeenDir = [d, st.mtimeMs, st.ctimeMs, st.ino, later];
    expect(dirsStand([rec])).toBe(true);
    expect(dirsStand([[d, st.mtimeMs, st.ctimeMs, st.ino, later - RACY_MS]])).toBe(false);
    const missing = path.join(h, 'missing');
    expect(dirsStand([[missing, -1, 0, 0, 0]])).toBe(true);
    fs.mkdirSync(missing);
    expect(dirsStand([[missing, -1, 0, 0, 0]])).toBe(false);
    fs.writeFileSync(path.join(d, 'x'), '');
    expect(dirsStand([rec])).toBe(false);
    fs.rmSync(d, { recursive: true });
    expect(dirsStand([rec])).toBe(false);
  });

  it('makeMemo refuses links, racy reads, deps, hints and unreadable directories; parseMeta refuses bad shapes', () => {
    const src: Source = { path: '/x/a.jsonl', harness: 'claude', kind: 'session', mode: 'lines' };
    const ok: SeenDir = ['/x', 1000, 1000, 5, 1000 + RACY_MS + 1];
    expect(makeMemo('k', [ok], [src], false)).toEqual({ key: 'k', kinds: ['session'], dirs: [ok] });
    expect(makeMemo('k', [ok], [src], true)).toBeUndefined();
    expect(makeMemo('k', [['/x', 1000, 1000, 5, 1000 + RACY_MS]], [src], false)).toBeUndefined();
    expect(makeMemo('k', [['/x', NaN, 0, 0, 0]], [src], false)).toBeUndefined();
    expect(makeMemo('k', [ok], [{ ...src, deps: [] }], false)).toBeUndefined();
    expect(makeMemo('k', [ok], [{ ...src, hint: { a: 1 } }], false)).toBeUndefined();
    expect(parseMeta('[]')).toEqual([]);
    expect(parseMeta('{}')).toBeNull();
    expect(parseMeta('[{"name":"claude","n":-1}]')).toBeNull();
    expect(parseMeta('[{"name":"claude","n":1,"memo":{"key":"k","kinds":["s"],"dirs":[["/x",1,2,3]]}}]')).toBeNull();
    expect(parseMeta('[{"name":"claude","n":1,"memo":{"key":"k","kinds":["s"],"dirs":[["/x",1,2,3,4]]}}]')).toHaveLength(1);
  });
});

describe("check.bin's names: a path in the directory of the one before written short", () => {
  const f = (p: string, sig = '') =>
    ({
      src: { path: p, harness: 'claude', kind: 'session', mode: 'lines' },
      stat: { size: 1, mtime: 1, ino: 1, sig },
      bound: 1,
    }) as unknown as Found;
  const seg = (...ns: number[]) => ns.map((n, i) => ({ name: (['claude', 'pi', 'codex'] as const)[i], n })) as AdapterMeta[];

  it('round-trips every kind of name, and writes short only within a directory and an adapter', () => {
    const found = [
      f('/a/p/1.jsonl'),
      f('/a/p/2.jsonl'),
      f('/a/p/3.jsonl'),
      f('/a/q/1.jsonl'),
      f('/a/p/4.jsonl'),
      // a path with a dependency signature is never short, nor the one after it
      f('/a/q/2.jsonl', '10:1|-'),
      f('/a/q/3.jsonl'),
      f('/a/q/4.jsonl'),
      // the next adapter's first path, in the same directory as the last: written whole
      f('/a/q/5.jsonl'),
      f('/a/q/6.jsonl'),
      // a file at the root, a relative path, names that start with the markers, odd characters
      f('/top.jsonl'),
      f('/top2.jsonl'),
      f('relative/x.jsonl'),
      f('\u0002odd'),
      f('\u0003odder'),
      f('/d/é \t\n"$`/x.jsonl'),
      f('/d/é \t\n"$`/y.jsonl'),
      f('/d/trailing/'),
    ];
    const meta = seg(8, found.length - 8);
    const text = checkNames(found, meta);
    const names = text.split('\u0000');
    expect(names).toEqual([
      '/a/p/1.jsonl',
      '\u00022.jsonl',
      '\u00023.jsonl',
      '/a/q/1.jsonl',
      '/a/p/4.jsonl',
      '/a/q/2.jsonl\u000110:1|-',
      '/a/q/3.jsonl',
      '\u00024.jsonl',
      '/a/q/5.jsonl',
      '\u00026.jsonl',
      '/top.jsonl',
      '\u0002top2.jsonl',
      'relative/x.jsonl',
      '\u0003\u0002odd',
      '\u0003\u0003odder',
      '/d/é \t\n"$`/x.jsonl',
      '\u0002y.jsonl',
      '/d/trailing/',
    ]);
    expect(wholePaths(names, meta)).toEqual(found.map((x) => (x.stat.sig ? `${x.src.path}\u0001${x.stat.sig}` : x.src.path)));
    // a short name with nothing before it in its adapter, or one with a slash, is damage
    expect(wholePaths(['\u00021.jsonl'], seg(1))).toEqual([]);
    expect(wholePaths(['/a/1.jsonl', '\u0002b/1.jsonl'], seg(2))).toEqual([]);
    expect(wholePaths(['/a/1.jsonl', '\u00022.jsonl'], seg(1, 1))).toEqual([]);
  });

  it('shrinks the names of a store whose sessions share directories, and the listing reads them back', () => {
    const h = store();
    for (let i = 0; i < 5; i++)
      write(
        h,
        `.claude/projects/-tmp-a/${uuid(60 + i)}.jsonl`,
        claudeLine(uuid(60 + i), '/tmp/a', `more ${i}`, `2026-05-1${i}T10:00:00.000Z`),
      );
    settle();
    const first = rows(h);
    const check = fs.readFileSync(path.join(cache(h), 'check.bin'));
    expect(check.includes(Buffer.from(`\u0002${uuid(61)}.jsonl`))).toBe(true);
    expect(rows(h)).toBe(first);
    // an append in that directory is seen, and the files are where they are
    fs.appendFileSync(
      path.join(h, `.claude/projects/-tmp-a/${uuid(62)}.jsonl`),
      claudeLine(uuid(62), '/tmp/a', 'appended', '2026-07-01T10:00:00.000Z'),
    );
    expect(keys(rows(h))[0]).toBe(`claude:${uuid(62)}`);
    const ls = JSON.parse(run(h, ['ls', '--json', '-a']).stdout) as { id: string; file: string }[];
    for (let i = 0; i < 5; i++)
      expect(must(ls.find((s) => s.id === uuid(60 + i))).file).toBe(path.join(h, `.claude/projects/-tmp-a/${uuid(60 + i)}.jsonl`));
  });
});

describe('an append against check.bin names written short', () => {
  it('finds the changed sources among short names, and a damaged short name sends the run the whole way', () => {
    const h = store();
    for (let i = 0; i < 4; i++)
      write(
        h,
        `.claude/projects/-tmp-a/${uuid(70 + i)}.jsonl`,
        claudeLine(uuid(70 + i), '/tmp/a', `sib ${i}`, `2026-05-1${i}T10:00:00.000Z`),
      );
    settle();
    rows(h);
    const file = path.join(cache(h), 'check.bin');
    const good = fs.readFileSync(file);
    const fresh = () => run(h, ['rows', '-a'], { RESUME_CACHE_DIR: path.join(h, `fresh-${Math.random()}`) }).stdout;
    const target = path.join(h, `.claude/projects/-tmp-a/${uuid(72)}.jsonl`);
    let n = 0;
    const append = () => fs.appendFileSync(target, claudeLine(uuid(72), '/tmp/a', `appended ${n++}`, `2026-08-0${n}T10:00:00.000Z`));
    // a short name in the middle of its directory's run: the append is found and patched
    expect(good.includes(Buffer.from(`\u0002${uuid(72)}.jsonl`))).toBe(true);
    append();
    const after = rows(h);
    expect(keys(after)[0]).toBe(`claude:${uuid(72)}`);
    expect(after).toBe(fresh());
    // damage: the first name of check.bin made short (nothing before it to take a directory from)
    const now = fs.readFileSync(file);
    const nl = now.indexOf(10);
    const head = now.toString('latin1', 0, nl).split(' ');
    const namesAt = nl + 1 + Number(head[3]) + Number(head[2]) * 25;
    const bad = Buffer.concat([
      now.subarray(0, namesAt),
      Buffer.from([2]),
      now.subarray(now.lastIndexOf(0x2f, now.indexOf(0, namesAt)) + 1),
    ]);
    fs.writeFileSync(file, bad);
    append();
    const again = rows(h);
    expect(keys(again)[0]).toBe(`claude:${uuid(72)}`);
    expect(again).toBe(fresh());
  });
});
