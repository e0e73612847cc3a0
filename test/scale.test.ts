// The rules behind a fast listing at scale — directory listings reused by directory stat (with the
// racy-timestamp guard), the check.bin / rows.bin listing (a corrupt, foreign or old one is written
// again), and one builder at a time (the database's write lock, concurrent builders).

import { spawn } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { DirCache, dirRec, RACY_MS } from '../lib/index/dirs.js';
import { INDEX_VERSION } from '../lib/index/index.js';
import { BIN, claudePrompt, envFor, jsonl, must, run, tempHome, write } from './helpers.js';

function home(): string {
  const h = tempHome();
  return h;
}

function claudeSession(id: string, cwd: string, text: string, ts = '2026-05-01T10:00:00.000Z'): string {
  return jsonl(claudePrompt(id, cwd, text, ts, { uuid: `u-${id}` }));
}
const uuid = (n: number) => `${String(n).padStart(8, '0')}-1111-4111-8111-111111111111`;
const rowsOf = (h: string) => {
  const r = run(h, ['rows', '-a']);
  expect(r.code, r.stderr).toBe(0);
  return r.stdout.split('\n').filter(Boolean);
};
const cache = (h: string) => path.join(h, '.cache', 'resume');

describe('directory listings reused by directory stat', () => {
  function dirWith(names: string[]): string {
    const d = path.join(home(), 'd');
    fs.mkdirSync(d, { recursive: true });
    for (const n of names) fs.writeFileSync(path.join(d, n), '');
    return d;
  }

  it('reuses the listing of a directory unchanged since well before it was read, without reading it', () => {
    const d = dirWith(['a.jsonl']);
    const st = fs.statSync(d);
    const first = new DirCache({}, () => Math.max(st.mtimeMs, st.ctimeMs) + RACY_MS + 1000);
    expect(first.entries(d).map((e) => e.name)).toEqual(['a.jsonl']);
    expect(first.reads).toBe(1);
    const again = new DirCache(first.seen);
    const es = again.entries(d);
    expect(es.map((e) => [e.name, e.isFile(), e.isDirectory()])).toEqual([['a.jsonl', true, false]]);
    expect(again.reads).toBe(0);
    expect(again.hits).toBe(1);
    expect(again.dirty()).toBe(false);
  });

  it('reads a directory again once an entry is added or removed', () => {
    const d = dirWith(['a.jsonl']);
    const st = fs.statSync(d);
    const first = new DirCache({}, () => Math.max(st.mtimeMs, st.ctimeMs) + RACY_MS + 1000);
    first.entries(d);
    fs.writeFileSync(path.join(d, 'b.jsonl'), '');
    fs.mkdirSync(path.join(d, 'sub'));
    const again = new DirCache(first.seen);
    const es = again.entries(d);
    expect(es.map((e) => e.name).sort()).toEqual(['a.jsonl', 'b.jsonl', 'sub']);
    expect(must(es.find((e) => e.name === 'sub')).isDirectory()).toBe(true);
    expect(again.reads).toBe(1);
    // read just after the change: it would not be trusted next run, so it is not written back;
    // read well after, it is
    expect(again.dirty()).toBe(false);
    const now = fs.statSync(d);
    const later = new DirCache(first.seen, () => Math.max(now.mtimeMs, now.ctimeMs) + RACY_MS + 1000);
    later.entries(d);
    expect(later.dirty()).toBe(true);
    expect(later.read[d]?.[4].sort()).toEqual(['a.jsonl', 'b.jsonl', 'sub']);
    fs.rmSync(path.join(d, 'a.jsonl'));
    const third = new DirCache(again.seen);
    expect(
      third
        .entries(d)
        .map((e) => e.name)
        .sort(),
    ).toEqual(['b.jsonl', 'sub']);
  });

  it("does not trust a listing read within the racy window of the directory's last change", () => {
    const d = dirWith(['a.jsonl']);
    const st = fs.statSync(d);
    // Read in the same instant the directory last changed: an entry added in that timestamp tick
    // would leave mtime and ctime as stored. Model it: the record misses b.jsonl, stat matches.
    const racy = new DirCache({}, () => Math.max(st.mtimeMs, st.ctimeMs) + RACY_MS / 4);
    racy.entries(d);
    const rec = racy.seen[d];
    fs.writeFileSync(path.join(d, 'b.jsonl'), '');
    const now = fs.statSync(d);
    const stale: typeof rec = [now.mtimeMs, now.ctimeMs, now.ino, Math.max(now.mtimeMs, now.ctimeMs) + RACY_MS / 4, ['a.jsonl'], [1]];
    const c = new DirCache({ [d]: stale });
    expect(
      c
        .entries(d)
        .map((e) => e.name)
        .sort(),
    ).toEqual(['a.jsonl', 'b.jsonl']);
    expect(c.reads).toBe(1);
    // …and the same stale record taken well after the change would be trusted: the guard is what
    // keeps it out (this is the case a timestamp tick of 1-2 s on some filesystems produces).
    const trusted: typeof rec = [now.mtimeMs, now.ctimeMs, now.ino, Math.max(now.mtimeMs, now.ctimeMs) + RACY_MS + 1, ['a.jsonl'], [1]];
    expect(new DirCache({ [d]: trusted }).entries(d).map((e) => e.name)).toEqual(['a.jsonl']);
    // a future timestamp (clock skew) is never trusted
    const future: typeof rec = [now.mtimeMs + 60_000, now.ctimeMs, now.ino, now.mtimeMs + 70_000, ['a.jsonl'], [1]];
    expect(
      new DirCache({ [d]: future })
        .entries(d)
        .map((e) => e.name)
        .sort(),
    ).toEqual(['a.jsonl', 'b.jsonl']);
  });

  it('lists a missing directory as empty and drops what it remembered of it', () => {
    const d = dirWith(['a.jsonl']);
    const st = fs.statSync(d);
    const first = new DirCache({}, () => Math.max(st.mtimeMs, st.ctimeMs) + RACY_MS + 1000);
    first.entries(d);
    fs.rmSync(d, { recursive: true });
    const again = new DirCache(first.seen);
    expect(again.entries(d)).toEqual([]);
    expect(again.dirty()).toBe(true);
    expect(again.seen[d]).toBeUndefined();
  });

  it('takes a damaged remembered listing for none (the directory is read again)', () => {
    expect(dirRec('{not json')).toBeUndefined();
    expect(dirRec(JSON.stringify({ '/x': [1, 1, 1, 1, [], []] }))).toBeUndefined();
    expect(dirRec(JSON.stringify([1, 1, 1, 1, ['a'], []]))).toBeUndefined();
    expect(dirRec(JSON.stringify([1, 1, 1, 1, [2], [1]]))).toBeUndefined();
    expect(dirRec(JSON.stringify([1, 2, 3, 4, ['a'], [1]]))).toEqual([1, 2, 3, 4, ['a'], [1]]);
  });

  it('a new session in an old directory, and one in a new directory, are listed at once', () => {
    const h = home();
    const old = Date.now() / 1000 - 3600;
    const f1 = write(h, `.claude/projects/-tmp-a/${uuid(1)}.jsonl`, claudeSession(uuid(1), '/tmp/a', 'first one'));
    for (const d of ['.claude/projects/-tmp-a', '.claude/projects', '.claude']) fs.utimesSync(path.join(h, d), old, old);
    fs.utimesSync(f1, old, old);
    expect(rowsOf(h)).toHaveLength(1);
    expect(rowsOf(h)).toHaveLength(1); // served from the cached directory listings
    write(h, `.claude/projects/-tmp-a/${uuid(2)}.jsonl`, claudeSession(uuid(2), '/tmp/a', 'second one'));
    expect(rowsOf(h).join('\n')).toContain('second one');
    write(h, `.claude/projects/-tmp-b/${uuid(3)}.jsonl`, claudeSession(uuid(3), '/tmp/b', 'third one'));
    const rows = rowsOf(h);
    expect(rows).toHaveLength(3);
    expect(rows.join('\n')).toContain('third one');
    fs.rmSync(path.join(h, '.claude/projects/-tmp-a'), { recursive: true });
    expect(rowsOf(h).map((r) => r.split('\t')[0])).toEqual([`claude:${uuid(3)}`]);
  });
});

describe('the stored listing (the database, check.bin, rows.bin)', () => {
  function twoSessions(): string {
    const h = home();
    write(h, `.claude/projects/-tmp-a/${uuid(1)}.jsonl`, claudeSession(uuid(1), '/tmp/a', 'alpha prompt', '2026-05-01T10:00:00.000Z'));
    write(h, `.claude/projects/-tmp-b/${uuid(2)}.jsonl`, claudeSession(uuid(2), '/tmp/b', 'beta prompt', '2026-05-02T10:00:00.000Z'));
    return h;
  }
  const counts = (h: string) => {
    const r = run(h, ['index']);
    expect(r.code, r.stderr).toBe(0);
    return r.stderr;
  };

  const buildOf = (h: string) => {
    const Sqlite = createRequire(import.meta.url)('better-sqlite3');
    const db = new Sqlite(path.join(cache(h), 'index.db'), { readonly: true });
    const id = db.prepare("SELECT v FROM meta WHERE k = 'build'").pluck().get() as string;
    db.close();
    return id;
  };

  it('names one build in the database, check.bin and rows.bin', () => {
    const h = twoSessions();
    const first = rowsOf(h);
    const id = buildOf(h);
    expect(
      fs
        .readFileSync(path.join(cache(h), 'check.bin'))
        .toString('latin1')
        .split('\n')[0],
    ).toBe(
      `v${INDEX_VERSION} ${id} 2 ${
        fs
          .readFileSync(path.join(cache(h), 'check.bin'))
          .toString('latin1')
          .split('\n')[0]
          .split(' ')[3]
      }`,
    );
    expect(
      fs
        .readFileSync(path.join(cache(h), 'rows.bin'))
        .toString('utf8')
        .split('\n')[0],
    ).toBe(`v3 ${id} 2 ${h}`);
    expect(counts(h)).toMatch(/0 parsed, 0 appended, 2 unchanged/);
    expect(buildOf(h)).toBe(id);
    expect(rowsOf(h)).toEqual(first);
  });

  it('builds again when check.bin is damaged (from the database, nothing parsed), and parses again without the database', () => {
    const h = twoSessions();
    const want = rowsOf(h);
    const check = path.join(cache(h), 'check.bin');
    fs.writeFileSync(check, fs.readFileSync(check).subarray(0, 30));
    expect(rowsOf(h)).toEqual(want);
    fs.writeFileSync(check, 'garbage');
    // the database still holds both: nothing to parse, check.bin and rows.bin are written again
    expect(counts(h)).toMatch(/0 parsed, 0 appended, 2 unchanged/);
    expect(fs.readFileSync(check).toString('latin1')).toMatch(new RegExp(`^v${INDEX_VERSION} \\S+ 2 \\d+\n`));
    expect(counts(h)).toMatch(/0 parsed, 0 appended, 2 unchanged/);
    for (const f of ['index.db', 'index.db-wal', 'index.db-shm']) fs.rmSync(path.join(cache(h), f), { force: true });
    expect(counts(h)).toMatch(/2 parsed/);
    expect(rowsOf(h)).toEqual(want);
  });

  it('an index of an earlier version (its files, or a database of another version) is replaced: every source parsed again', () => {
    const h = twoSessions();
    const want = rowsOf(h);
    const ls = run(h, ['ls', '-a']).stdout;
    const c = cache(h);
    // the files earlier versions wrote: removed by the first build
    fs.writeFileSync(path.join(c, 'list.json'), JSON.stringify({ v: 20, id: 'old', sessions: [], skipped: {}, built: 1 }));
    fs.writeFileSync(path.join(c, 'files.json'), 'v10 old\n[]');
    fs.mkdirSync(path.join(c, 'state'));
    fs.writeFileSync(path.join(c, 'state', '000.json'), '{"v":16,"entries":{}}');
    const Sqlite = createRequire(import.meta.url)('better-sqlite3');
    const db = new Sqlite(path.join(c, 'index.db'));
    db.pragma(`user_version = ${INDEX_VERSION - 1}`);
    db.close();
    fs.writeFileSync(
      path.join(c, 'check.bin'),
      fs.readFileSync(path.join(c, 'check.bin'), 'latin1').replace(`v${INDEX_VERSION} `, `v${INDEX_VERSION - 1} `),
      'latin1',
    );
    expect(counts(h)).toMatch(/2 parsed, 0 appended, 0 unchanged/);
    expect(rowsOf(h)).toEqual(want);
    expect(run(h, ['ls', '-a']).stdout).toBe(ls);
    for (const f of ['list.json', 'files.json', 'state']) expect(fs.existsSync(path.join(c, f)), f).toBe(false);
  });

  it('notices a grown, a replaced and a same-size rewritten file (never a stale listing)', () => {
    const h = twoSessions();
    rowsOf(h);
    const f = path.join(h, `.claude/projects/-tmp-a/${uuid(1)}.jsonl`);
    fs.appendFileSync(f, claudeSession(uuid(1), '/tmp/a', 'later prompt', '2026-05-03T10:00:00.000Z'));
    expect(counts(h)).toMatch(/1 appended/);
    expect(rowsOf(h)[0]).toContain(`claude:${uuid(1)}`);
    // same size, new inode (written elsewhere and renamed over)
    const text = fs.readFileSync(f, 'utf8').replace('alpha prompt', 'gamma prompt');
    fs.writeFileSync(`${f}.new`, text);
    fs.renameSync(`${f}.new`, f);
    expect(rowsOf(h).join('\n')).toContain('gamma prompt');
  });
});

describe("one builder at a time (the database's write lock)", () => {
  function store(n: number): string {
    const h = home();
    for (let i = 0; i < n; i++)
      write(h, `.claude/projects/-tmp-p${i % 5}/${uuid(i)}.jsonl`, claudeSession(uuid(i), `/tmp/p${i % 5}`, `prompt ${i}`));
    return h;
  }
  it('waits while a live builder holds the write lock, then returns a fresh listing', async () => {
    const h = store(2);
    rowsOf(h);
    // this test process stands in for a builder that is still at work: it holds the database's write lock
    const Sqlite = createRequire(import.meta.url)('better-sqlite3');
    const db = new Sqlite(path.join(cache(h), 'index.db'));
    db.exec('BEGIN IMMEDIATE');
    write(h, `.claude/projects/-tmp-new/${uuid(50)}.jsonl`, claudeSession(uuid(50), '/tmp/new', 'arrived while locked'));
    const p = spawn(process.execPath, [BIN, 'rows', '-a'], { env: envFor(h), stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    p.stdout.on('data', (d) => (out += d));
    const exited = new Promise<number>((res) => p.on('close', (c) => res(c ?? -1)));
    let finished = false;
    void exited.then(() => (finished = true));
    await new Promise((r) => setTimeout(r, 700));
    expect(finished).toBe(false);
    db.exec('COMMIT');
    db.close();
    expect(await exited).toBe(0);
    expect(out).toContain('arrived while locked');
    expect(out.split('\n').filter(Boolean)).toHaveLength(3);
  });

  it('a builder that finds a new database being made WAL by another asks again, and builds into it (not into memory)', async () => {
    const h = store(3);
    fs.mkdirSync(cache(h), { recursive: true });
    // another builder's moment on a new file: not WAL yet, and its write lock taken. SQLite answers
    // a second connection's switch to WAL "locked" at once then, without waiting (it could deadlock)
    const Sqlite = createRequire(import.meta.url)('better-sqlite3');
    const db = new Sqlite(path.join(cache(h), 'index.db'));
    db.exec('BEGIN IMMEDIATE');
    const p = spawn(process.execPath, [BIN, 'index'], { env: envFor(h), stdio: ['ignore', 'ignore', 'pipe'] });
    let err = '';
    p.stderr.on('data', (d) => (err += d));
    const exited = new Promise<number>((res) => p.on('close', (c) => res(c ?? -1)));
    await new Promise((r) => setTimeout(r, 400));
    db.exec('COMMIT');
    db.close();
    expect(await exited, err).toBe(0);
    expect(err).toMatch(/^3 sessions .* 3 parsed/);
    // it built into the file: the next run finds everything there
    expect(run(h, ['index']).stderr).toMatch(/0 parsed, 0 appended, 3 unchanged/);
  });

  it('three concurrent index runs on a cold cache parse every file once in all, and agree', async () => {
    const h = store(40);
    const runs = await Promise.all(
      [0, 1, 2].map(
        () =>
          new Promise<{ code: number; err: string }>((res) => {
            const p = spawn(process.execPath, [BIN, 'index'], { env: envFor(h), stdio: ['ignore', 'ignore', 'pipe'] });
            let err = '';
            p.stderr.on('data', (d) => (err += d));
            p.on('close', (code) => res({ code: code ?? -1, err }));
          }),
      ),
    );
    for (const r of runs) {
      expect(r.code, r.err).toBe(0);
      expect(r.err).toMatch(/^40 sessions /);
    }
    const parsed = runs.reduce((n, r) => n + Number(must(/(\d+) parsed/.exec(r.err))[1]), 0);
    expect(parsed).toBe(40);
  });
});
