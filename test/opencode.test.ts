// opencode: the v1.2 SQLite store (built from the fixture schema, WAL mode) and the legacy JSON tree.

import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { isPlaceholderTitle, opencode } from '../lib/harness/opencode/index.js';
import { engineName } from '../lib/os/sqlite.js';
import type { Session } from '../lib/types.js';
import { lsJson, must, put, ROOT, run, tempDir, tempHome, write } from './helpers.js';
import type { Doctor, Listed } from './json.js';
import { addSessions, assistant, digest, OPENCODE_SCHEMA, opencodeDb, openDatabase, user } from './sqlite-fixtures.js';

const onExit: (() => void)[] = [];
afterEach(() => {
  for (const f of onExit.splice(0)) f();
});
function home(): string {
  const h = tempHome('resume-oc-');
  return h;
}
const DATA = '.local/share/opencode';
const dbPath = (h: string, name = 'opencode.db') => path.join(h, DATA, name);
const byId = (list: Listed[]) => new Map(list.filter((s) => s.harness === 'opencode').map((s) => [s.id, s]));

/** A database with a parent, a child, an archived and an empty session, and prompts of every kind. */
function corpus(file: string) {
  const db = opencodeDb(file);
  addSessions(
    db,
    [
      {
        id: 'ses_parent',
        directory: '/home/u/src/api',
        title: 'Fix the flaky upload test',
        created: 1770000000000,
        updated: 1770000900000,
      },
      {
        id: 'ses_child',
        directory: '/home/u/src/api',
        title: 'Child session - 2026-02-02T03:00:00.000Z',
        parent: 'ses_parent',
        updated: 1770000500000,
      },
      { id: 'ses_archived', directory: '/home/u/src/old', title: 'Old idea', archived: 1770000800000, updated: 1770000700000 },
      { id: 'ses_untitled', directory: '/home/u/src/web', updated: 1770000600000 },
      { id: 'ses_empty', directory: '/home/u', updated: 1770000100000 },
    ],
    [
      user(
        'msg_001',
        'ses_parent',
        'why does upload fail?',
        { type: 'text', text: '<file contents injected>', synthetic: true },
        { type: 'file', url: 'data:image/png;base64,AAAA' },
      ),
      assistant('msg_002', 'ses_parent', 'The retry loop races.'),
      user('msg_003', 'ses_parent', { type: 'text', text: 'ignored text', ignored: true }),
      user('msg_004', 'ses_parent', 'fix it please'),
      assistant('msg_005', 'ses_parent', 'Fixed in upload.ts.', 'gpt-5.1'),
      user('msg_006', 'ses_child', 'look for retries'),
      user('msg_007', 'ses_archived', 'old prompt'),
      user('msg_008', 'ses_untitled', 'add a dark mode toggle'),
    ],
  );
  return db;
}

describe('opencode database', () => {
  it('lists sessions with directory, title, prompts, model and hidden reasons', () => {
    const h = home();
    corpus(dbPath(h)).close();
    const s = byId(lsJson(h));
    const p = s.get('ses_parent');
    expect(p).toMatchObject({
      cwd: '/home/u/src/api',
      title: 'Fix the flaky upload test',
      prompts: 2,
      firstPrompt: 'why does upload fail?',
      lastPrompt: 'fix it please',
      model: 'openai/gpt-5.1',
      hidden: false,
      parent: null,
      file: dbPath(h),
      started: '2026-02-02T02:40:00.000Z',
      updated: '2026-02-02T02:55:00.000Z',
      resume: { cwd: '/home/u/src/api', argv: ['opencode', '--session', 'ses_parent'] },
    });
    expect(s.get('ses_child')).toMatchObject({ hidden: true, hiddenReason: 'subagent', parent: 'ses_parent', title: 'look for retries' });
    expect(s.get('ses_archived')).toMatchObject({ hidden: true, hiddenReason: 'archived', title: 'Old idea' });
    // A placeholder title is no title: the first prompt stands in.
    expect(s.get('ses_untitled')).toMatchObject({ hidden: false, title: 'add a dark mode toggle', prompts: 1 });
    expect(s.get('ses_empty')).toMatchObject({ hidden: true, hiddenReason: 'empty', prompts: 0, title: null });
    // The default listing leaves hidden ones out and counts them on stderr.
    const r = run(h, ['ls']);
    expect(r.code).toBe(0);
    expect(
      r.stdout
        .split('\n')
        .filter(Boolean)
        .map((l) => l.split('\t')[0]),
    ).toEqual(['ses_pare', 'ses_unti']);
    expect(r.stderr).toMatch(/\+3 hidden: .*1 workers.*--all/);
  });

  it('recognises placeholder titles only in their exact shape', () => {
    expect(isPlaceholderTitle('New session - 2026-02-01T10:00:00.000Z')).toBe(true);
    expect(isPlaceholderTitle('Child session - 2026-02-01T10:00:00.000Z')).toBe(true);
    expect(isPlaceholderTitle('New session for the parser')).toBe(false);
  });

  it('resumes with --session and forks with --fork', () => {
    const s = { id: 'ses_x' } as Session;
    expect(opencode.launch(s, { fork: false })).toEqual({ argv: ['opencode', '--session', 'ses_x'] });
    expect(opencode.launch(s, { fork: true })).toEqual({ argv: ['opencode', '--session', 'ses_x', '--fork'] });
  });

  it('reads a later schema (extra columns, session.model) and an older one missing columns', () => {
    const h = home();
    const later =
      OPENCODE_SCHEMA +
      `
      ALTER TABLE session ADD workspace_id text; ALTER TABLE session ADD model text; ALTER TABLE session ADD cost real;`;
    const db = opencodeDb(dbPath(h), later);
    addSessions(db, [{ id: 'ses_new', directory: '/w', title: 'Later build' }], [user('msg_1', 'ses_new', 'hello')]);
    db.prepare(`UPDATE session SET model = ? WHERE id = 'ses_new'`).run(JSON.stringify({ id: 'claude-opus-4', providerID: 'anthropic' }));
    db.close();
    // An old build: no time_archived, no title, no part table.
    const old = openDatabase(dbPath(h, 'opencode-old.db'));
    old.pragma('journal_mode = WAL');
    old.exec(`CREATE TABLE session (id text PRIMARY KEY, directory text, time_created integer, time_updated integer);
      CREATE TABLE message (id text PRIMARY KEY, session_id text, data text);
      INSERT INTO session VALUES ('ses_old', '/o', 1760000000000, 1760000001000);
      INSERT INTO message VALUES ('msg_a', 'ses_old', '{"role":"user"}');`);
    old.close();
    const s = byId(lsJson(h));
    // The user message's model stands in when no assistant replied; session.model is a fallback.
    expect(s.get('ses_new')).toMatchObject({ title: 'Later build', model: 'anthropic/claude-sonnet-4', prompts: 1 });
    expect(s.get('ses_old')).toMatchObject({ cwd: '/o', title: null, prompts: 0, updated: '2025-10-09T08:53:21.000Z' });
    const d: Doctor = JSON.parse(run(h, ['doctor', '--json']).stdout);
    const oc = must(d.harnesses.find((x) => x.name === 'opencode'));
    expect(oc.skipped.reasons).toMatchObject({ 'session table has no title column': 1, 'no usable part table (prompts not counted)': 1 });
  });

  it('uses session.model when no message names one', () => {
    const h = home();
    const db = opencodeDb(dbPath(h), `${OPENCODE_SCHEMA}ALTER TABLE session ADD model text;`);
    addSessions(db, [{ id: 'ses_m', title: 'Model only on the session' }]);
    db.prepare(`UPDATE session SET model = ?`).run(JSON.stringify({ id: 'gemini-2.5-pro', providerID: 'google' }));
    db.close();
    expect(byId(lsJson(h)).get('ses_m')).toMatchObject({ model: 'google/gemini-2.5-pro' });
  });

  it('skips rows that are not JSON, counts them, and still lists the session', () => {
    const h = home();
    const db = opencodeDb(dbPath(h));
    addSessions(
      db,
      [{ id: 'ses_bad', title: 'Odd rows' }],
      [
        { id: 'msg_1', session: 'ses_bad', data: '{not json' },
        { id: 'msg_2', session: 'ses_bad', data: { role: 'user' }, parts: [{ type: 'text', text: 'real prompt' }, '{"broken'] },
        { id: 'msg_3', session: 'ses_bad', data: { role: 'tool-runner' } },
        user('msg_4', 'ses_bad', { type: 'hologram', text: 'x' }),
      ],
    );
    db.close();
    expect(byId(lsJson(h)).get('ses_bad')).toMatchObject({ prompts: 1, firstPrompt: 'real prompt' });
    const d: Doctor = JSON.parse(run(h, ['doctor', '--json']).stdout);
    const oc = must(d.harnesses.find((x) => x.name === 'opencode'));
    expect(oc.skipped.reasons).toMatchObject({ 'message rows that are not JSON': 1, 'part rows that are not JSON': 1 });
    expect(oc.unknownTypes).toEqual(
      expect.arrayContaining([
        { type: 'message role tool-runner', count: 1 },
        { type: 'part hologram', count: 1 },
      ]),
    );
  });
});

describe('opencode legacy JSON tree', () => {
  it('reads the fixture tree (pre-1.2 storage)', () => {
    const h = home();
    put(h, 'opencode/legacy-storage', `${DATA}/storage`);
    const s = must(byId(lsJson(h)).get('s_stage0_small'));
    expect(s).toMatchObject({
      cwd: '/tmp/repo',
      title: 'OpenCode Small',
      prompts: 1,
      firstPrompt: 'Hello',
      model: 'openai/gpt-4o-mini',
      started: '2024-10-27T03:33:20.000Z',
      updated: '2024-10-27T03:33:25.000Z',
      hidden: false,
    });
    expect(s.file).toBe(path.join(h, DATA, 'storage/session/proj_test/ses_s_stage0_small.json'));
  });

  it('never follows a session id out of the storage tree; odd files are skipped and counted', () => {
    const h = home();
    const st = path.join(h, DATA, 'storage');
    write(h, path.join(st, 'session/global/ses_evil.json'), JSON.stringify({ id: '../../../outside', directory: '/x', title: 'Evil' }));
    write(h, path.join(h, DATA, 'outside/m.json'), JSON.stringify({ id: 'm', role: 'user' }));
    write(h, path.join(st, 'session/global/ses_junk.json'), '{ not json');
    write(h, path.join(st, 'session/global/ses_ok.json'), JSON.stringify({ id: 'ses_ok', directory: '/y', title: 'Fine' }));
    const r = run(h, ['ls', '-a', '--json']);
    expect(r.code).toBe(0);
    expect((JSON.parse(r.stdout) as Listed[]).map((s) => s.id)).toEqual(['ses_ok']);
    const oc = must((JSON.parse(run(h, ['doctor', '--json']).stdout) as Doctor).harnesses.find((x) => x.name === 'opencode'));
    expect(oc.skipped.reasons).toEqual({ 'legacy sessions whose id is not a plain name': 1, 'legacy session files that are not JSON': 1 });
  });

  it('lists a session found in both stores once, from the database', () => {
    const h = home();
    put(h, 'opencode/legacy-storage', `${DATA}/storage`);
    const db = opencodeDb(dbPath(h));
    addSessions(
      db,
      [{ id: 's_stage0_small', directory: '/tmp/repo', title: 'Imported into the database', updated: 1770000000000 }],
      [user('msg_1', 's_stage0_small', 'Hello')],
    );
    db.close();
    const all = lsJson(h).filter((s) => s.id === 's_stage0_small');
    expect(all).toHaveLength(1);
    expect(all[0]).toMatchObject({ title: 'Imported into the database', file: dbPath(h) });
  });

  it('re-reads a legacy session when a message or part is added', () => {
    const h = home();
    const st = path.join(h, DATA, 'storage');
    const j = (rel: string, o: unknown) => write(h, path.join(st, rel), JSON.stringify(o));
    j('session/global/ses_abc.json', {
      id: 'ses_abc',
      directory: '/w/app',
      title: 'Legacy',
      time: { created: 1730000000000, updated: 1730000005000 },
    });
    j('message/ses_abc/msg_1.json', { id: 'msg_1', sessionID: 'ses_abc', role: 'user', time: { created: 1730000001000 } });
    j('part/msg_1/prt_1.json', { id: 'prt_1', type: 'text', text: 'first' });
    expect(byId(lsJson(h)).get('ses_abc')).toMatchObject({ prompts: 1, cwd: '/w/app' });
    expect(run(h, ['index']).stderr).toMatch(/ 0 parsed, 0 appended, 1 unchanged/);
    j('message/ses_abc/msg_2.json', { id: 'msg_2', sessionID: 'ses_abc', role: 'user', time: { created: 1730000009000 } });
    j('part/msg_2/prt_2.json', { id: 'prt_2', type: 'text', text: 'And again' });
    expect(byId(lsJson(h)).get('ses_abc')).toMatchObject({ prompts: 2, lastPrompt: 'And again' });
    j('message/ses_abc/msg_3.json', { id: 'msg_3', sessionID: 'ses_abc', role: 'user', time: { created: 1730000019000 } });
    expect(byId(lsJson(h)).get('ses_abc')).toMatchObject({ prompts: 2 });
    j('part/msg_3/prt_3.json', { id: 'prt_3', type: 'text', text: 'third' });
    expect(byId(lsJson(h)).get('ses_abc')).toMatchObject({ prompts: 3, lastPrompt: 'third' });
    // A FIFO among the parts is never opened, and a part over 1 MiB is not read; both are counted.
    execFileSync('mkfifo', [path.join(st, 'part/msg_3/prt_4.json')]);
    j('part/msg_3/prt_5.json', { id: 'prt_5', type: 'text', text: 'x'.repeat(1 << 20) });
    expect(byId(lsJson(h)).get('ses_abc')).toMatchObject({ prompts: 3, lastPrompt: 'third' });
    const oc = must((JSON.parse(run(h, ['doctor', '--json']).stdout) as Doctor).harnesses.find((x) => x.name === 'opencode'));
    expect(oc.skipped.reasons).toEqual({ 'legacy part files that are not regular files': 1, 'legacy part files over 1 MiB (not read)': 1 });
  });
});

describe('opencode roots', () => {
  const one = (file: string, id: string) => {
    const db = opencodeDb(file);
    addSessions(db, [{ id, title: `in ${path.basename(path.dirname(file))}` }], [user(`msg_${id}`, id, 'hi')]);
    db.close();
  };
  it('XDG_DATA_HOME moves the data directory', () => {
    const h = home();
    one(path.join(h, 'xdg/opencode/opencode.db'), 'ses_xdg');
    one(dbPath(h), 'ses_default');
    const ids = [...byId(lsJson(h, { XDG_DATA_HOME: path.join(h, 'xdg') })).keys()];
    expect(ids).toEqual(['ses_xdg']);
  });
  it('OPENCODE_DB names a database: absolute as is, relative under the data directory', () => {
    const h = home();
    one(path.join(h, 'elsewhere/custom.db'), 'ses_abs');
    one(path.join(h, DATA, 'sub/rel.db'), 'ses_rel');
    expect([...byId(lsJson(h, { OPENCODE_DB: path.join(h, 'elsewhere/custom.db') })).keys()]).toEqual(['ses_abs']);
    expect([...byId(lsJson(h, { OPENCODE_DB: 'sub/rel.db' })).keys()]).toEqual(['ses_rel']);
    expect(lsJson(h, { OPENCODE_DB: ':memory:' }).filter((s) => s.harness === 'opencode')).toEqual([]);
  });
  it('globs channel databases (opencode-dev.db) and adds RESUME_OPENCODE_DIRS', () => {
    const h = home();
    one(dbPath(h, 'opencode-dev.db'), 'ses_dev');
    one(path.join(h, 'synced/opencode.db'), 'ses_synced');
    const ids = [...byId(lsJson(h, { RESUME_OPENCODE_DIRS: path.join(h, 'synced') })).keys()].sort();
    expect(ids).toEqual(['ses_dev', 'ses_synced']);
    const d: Doctor = JSON.parse(run(h, ['doctor', '--json'], { RESUME_OPENCODE_DIRS: path.join(h, 'synced') }).stdout);
    const roots = must(d.harnesses.find((x) => x.name === 'opencode')).roots;
    expect(roots.map((r) => [r.via, r.exists])).toEqual([
      ['RESUME_OPENCODE_DIRS', true],
      ['default', true],
    ]);
  });
});

describe('opencode database safety', () => {
  it('reads a database being written: the last commit, never the open transaction; nothing written', () => {
    const h = home();
    const file = dbPath(h);
    const writer = corpus(file);
    try {
      writer.exec('BEGIN IMMEDIATE');
      addSessions(writer, [{ id: 'ses_uncommitted', title: 'Not yet committed' }]);
      expect(fs.existsSync(`${file}-wal`)).toBe(true);
      const before = [digest(file), digest(`${file}-wal`)];
      const r = run(h, ['ls', '--json', '-a']);
      expect(r.code).toBe(0);
      expect(r.stderr).toBe('');
      const ids = (JSON.parse(r.stdout) as Listed[]).map((s) => s.id);
      expect(ids).toContain('ses_parent');
      expect(ids).not.toContain('ses_uncommitted');
      expect([digest(file), digest(`${file}-wal`)]).toEqual(before);
      writer.exec('COMMIT');
      expect(lsJson(h).map((s) => s.id)).toContain('ses_uncommitted');
    } finally {
      writer.close();
    }
  });

  it('re-reads the database only when it or its -wal changed', () => {
    const h = home();
    const file = dbPath(h);
    const writer = corpus(file);
    try {
      const first = run(h, ['index']);
      expect(first.stderr).toMatch(/ 1 parsed, 0 appended, 0 unchanged/);
      expect(run(h, ['index']).stderr).toMatch(/ 0 parsed, 0 appended, 1 unchanged/);
      // A write lands in the -wal only (the writer stays open, so no checkpoint): still noticed.
      const dbBefore = digest(file);
      addSessions(writer, [{ id: 'ses_later', title: 'Written later' }], [user('msg_900', 'ses_later', 'new work')]);
      expect(digest(file)).toBe(dbBefore);
      expect(run(h, ['index']).stderr).toMatch(/ 1 parsed, 0 appended, 0 unchanged/);
      expect(lsJson(h).map((s) => s.id)).toContain('ses_later');
      expect(run(h, ['index']).stderr).toMatch(/ 0 parsed, 0 appended, 1 unchanged/);
    } finally {
      writer.close();
    }
  });

  it('a closed database is read once: the empty -wal SQLite creates for a reader is not a change', () => {
    const h = home();
    const file = dbPath(h);
    corpus(file).close();
    expect(fs.existsSync(`${file}-wal`)).toBe(false);
    const db = digest(file);
    expect(run(h, ['index']).stderr).toMatch(/ 1 parsed, 0 appended, 0 unchanged/);
    expect(run(h, ['index']).stderr).toMatch(/ 0 parsed, 0 appended, 1 unchanged/);
    expect(digest(file)).toBe(db);
    // The next write by opencode lands in the -wal: noticed.
    const w = openDatabase(file);
    try {
      addSessions(w, [{ id: 'ses_next', title: 'Next' }]);
      expect(run(h, ['index']).stderr).toMatch(/ 1 parsed, 0 appended, 0 unchanged/);
      expect(lsJson(h).map((s) => s.id)).toContain('ses_next');
    } finally {
      w.close();
    }
  });

  it('a corrupt database is one warning; the other stores still list', () => {
    const h = home();
    put(h, 'opencode/legacy-storage', `${DATA}/storage`);
    write(h, `${DATA}/opencode.db`, Buffer.from('this is not an SQLite database, just bytes '.repeat(200)));
    const r = run(h, ['ls', '-a']);
    expect(r.code).toBe(0);
    expect(r.stderr.trim().split('\n')).toEqual([expect.stringMatching(/^resume: opencode: cannot read opencode\.db: .*not a database/)]);
    expect(r.stdout).toContain('OpenCode Small');
  });

  it('an empty file named like a database and a database without tables list nothing and fail nothing', () => {
    const h = home();
    write(h, `${DATA}/opencode.db`, '');
    const d = openDatabase(dbPath(h, 'opencode-x.db'));
    d.exec('CREATE TABLE other (a)');
    d.close();
    const r = run(h, ['ls', '-a', '--json']);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual([]);
  });

  /** A writer holding an exclusive lock with an uncommitted change while `check` runs. */
  function midWrite(pragmas: string[], check: (h: string, file: string) => void): void {
    const h = home();
    put(h, 'opencode/legacy-storage', `${DATA}/storage`);
    const file = dbPath(h);
    corpus(file).close();
    const locker = openDatabase(file);
    try {
      for (const p of pragmas) locker.pragma(p);
      locker.exec('BEGIN EXCLUSIVE');
      locker.exec(`UPDATE session SET title = 'locked' WHERE id = 'ses_parent'`);
      check(h, file);
      locker.exec('ROLLBACK');
    } finally {
      locker.close();
    }
  }

  it('a database locked exclusively by its writer is read at its last commit (WAL, nothing in the -wal yet)', () => {
    midWrite(['locking_mode = EXCLUSIVE'], (h) => {
      const r = run(h, ['ls', '-a']);
      expect(r.code).toBe(0);
      expect(r.stderr).toBe('');
      expect(r.stdout).toContain('Fix the flaky upload test');
      expect(r.stdout).not.toContain('locked');
      expect(r.stdout).toContain('OpenCode Small');
    });
  });

  it('a rollback-journal database in the middle of a write is a warning, not a failure', () => {
    midWrite(['journal_mode = DELETE', 'cache_size = 1'], (h, file) => {
      expect(fs.existsSync(`${file}-journal`)).toBe(true);
      const r = run(h, ['ls', '-a']);
      expect(r.code).toBe(0);
      expect(r.stderr).toMatch(/^resume: opencode: cannot read opencode\.db: database is locked\n$/);
      expect(r.stdout).toContain('OpenCode Small');
    });
  });

  it('without better-sqlite3 (and node:sqlite): a build says in one line what is missing and what to do, doctor still reports; an index built where it loads still lists', () => {
    const h = home();
    put(h, 'opencode/legacy-storage', `${DATA}/storage`);
    // opencode is running: its connection keeps the -wal in place.
    const writer = corpus(dbPath(h));
    onExit.push(() => writer.close());
    // The built CLI copied where no node_modules is reachable: better-sqlite3 cannot be loaded.
    const pkg = tempDir('resume-nosqlite-');
    fs.cpSync(path.join(ROOT, 'bin'), path.join(pkg, 'bin'), { recursive: true });
    fs.cpSync(path.join(ROOT, 'dist'), path.join(pkg, 'dist'), { recursive: true });
    const bare = path.join(pkg, 'bin', 'resume');
    const runBare = (args: string[], cache: string) =>
      spawnSync(process.execPath, [bare, ...args], {
        env: { PATH: process.env.PATH, HOME: h, TZ: 'UTC', NO_COLOR: '1', RESUME_CACHE_DIR: path.join(h, cache) },
        encoding: 'utf8',
      });
    // the index is a SQLite database: nothing can be built without an engine; on a Node with
    // node:sqlite (lib/os/sqlite.ts) none is missing
    const r = runBare(['ls', '-a'], 'cache-bare');
    if (engineName() === 'node:sqlite') {
      expect([r.status, r.stderr]).toEqual([0, '']);
      expect(r.stdout).toContain('Fix the flaky');
    } else {
      expect(r.status).toBe(2);
      // not installed: npm leaves it out when its build fails, so the fix is a toolchain, or a Node with its own
      expect(r.stderr).toBe(
        'resume: cannot load better-sqlite3 for the index: not installed (npm leaves it out when its build fails); install a C++ toolchain (make, g++, python3) and install resume again, or use Node 22.16+, which has SQLite built in\n',
      );
      expect(r.stdout).toBe('');
      // doctor still reports, and says the same on its sqlite line
      const doc = runBare(['doctor'], 'cache-bare');
      expect([doc.status, doc.stderr]).toEqual([0, '']);
      expect(doc.stdout).toMatch(
        /\n {2}sqlite {4}cannot load better-sqlite3 for the index: not installed .* install resume again, or use Node 22\.16\+/,
      );
      expect(doc.stdout).toContain('opencode (opencode)');
    }
    // An index built where it loads, unchanged since: listed from its rendered rows without loading it.
    expect(run(h, ['ls', '-a'], { RESUME_CACHE_DIR: path.join(h, 'cache-full') }).stdout).toContain('Fix the flaky');
    const again = runBare(['ls', '-a'], 'cache-full');
    expect(again.stderr).toBe('');
    expect(again.stdout).toContain('Fix the flaky');
  });
});

// opencode 2.x (anomalyco/opencode dev: packages/core/src/session/sql.ts, message.ts): sessions in
// `session_v2` beside the migrated 1.x `session` rows, transcript entries in `session_message` (one
// row per entry: type, per-session seq, JSON data without id/type), subagents with parent_id, forks
// with fork_session_id and fork_boundary (the seq up to which entries are the parent's copies).
describe('opencode 2.x schema', () => {
  it('lists 2.x sessions from session_v2 + session_message and migrated 1.x ones, with forks and subagents', async () => {
    const { tempHome, lsJson, byId } = await import('./helpers.js');
    const { opencodeDb, addSessions, user, assistant, OPENCODE_V2_SCHEMA } = await import('./sqlite-fixtures.js');
    const home = tempHome();
    const db = opencodeDb(`${home}/.local/share/opencode/opencode.db`);
    db.exec(OPENCODE_V2_SCHEMA);
    // a 1.x session migrated in place (session/message/part)
    addSessions(
      db,
      [{ id: 'ses_old', directory: '/w/old', title: 'Old work' }],
      [user('msg_o1', 'ses_old', 'old prompt'), assistant('msg_o2', 'ses_old', 'old reply')],
    );
    const sv =
      db.prepare(`INSERT INTO session_v2 (id, project_id, parent_id, fork_session_id, fork_boundary, slug, directory, title, version, model, time_created, time_updated)
      VALUES (?, 'global', ?, ?, ?, 's', ?, ?, '2.0.0', ?, ?, ?)`);
    sv.run(
      'ses_v2a',
      null,
      null,
      null,
      '/w/new',
      'New session - 2026-06-01T10:00:00.000Z',
      JSON.stringify({ id: 'm2', providerID: 'p' }),
      1780000000000,
      1780000100000,
    );
    sv.run('ses_v2fork', null, 'ses_v2a', 2, '/w/new', 'Parent title (fork #1)', null, 1780000200000, 1780000300000);
    sv.run('ses_v2kid', 'ses_v2a', null, null, '/w/new', 'Child session - 2026-06-01T10:00:00.000Z', null, 1780000050000, 1780000060000);
    const sm = db.prepare(
      'INSERT INTO session_message (id, session_id, type, seq, time_created, time_updated, data) VALUES (?, ?, ?, ?, 1, 1, ?)',
    );
    const u = (text: string) => JSON.stringify({ text, files: [], agents: [], references: [], time: { created: 1780000000000 } });
    const a = (text: string) =>
      JSON.stringify({
        agent: 'build',
        model: { id: 'gpt-9', providerID: 'openai' },
        content: [
          { type: 'reasoning', id: 'r', text: 'hmm' },
          { type: 'text', id: 't', text },
        ],
        time: { created: 1 },
      });
    sm.run('m1', 'ses_v2a', 'system', 0, JSON.stringify({ text: 'injected context', time: { created: 1 } }));
    sm.run('m2', 'ses_v2a', 'user', 1, u('first v2 prompt'));
    sm.run('m3', 'ses_v2a', 'assistant', 2, a('v2 reply'));
    sm.run('m4', 'ses_v2a', 'synthetic', 3, JSON.stringify({ sessionID: 'ses_v2a', text: 'a note', time: { created: 1 } }));
    sm.run('m5', 'ses_v2a', 'user', 4, u('second v2 prompt'));
    // the fork: copies of seq 1..2, then its own entries
    sm.run('f2', 'ses_v2fork', 'user', 1, u('first v2 prompt'));
    sm.run('f3', 'ses_v2fork', 'assistant', 2, a('v2 reply'));
    sm.run('f5', 'ses_v2fork', 'user', 3, u('fork own v2 prompt'));
    sm.run('f6', 'ses_v2fork', 'brand-new-entry', 4, JSON.stringify({ time: { created: 1 } }));
    sm.run('k1', 'ses_v2kid', 'user', 1, u('subagent task'));
    db.close();
    const list = lsJson(home);
    expect(byId(list, 'ses_old')).toMatchObject({ title: 'Old work', prompts: 1, firstPrompt: 'old prompt', hidden: false });
    expect(byId(list, 'ses_v2a')).toMatchObject({
      cwd: '/w/new',
      prompts: 2,
      firstPrompt: 'first v2 prompt',
      lastPrompt: 'second v2 prompt',
      title: 'first v2 prompt',
      model: 'openai/gpt-9',
      hidden: false,
      forkedFrom: null,
      resume: { cwd: '/w/new', argv: ['opencode', '--session', 'ses_v2a'] },
    });
    expect(byId(list, 'ses_v2fork')).toMatchObject({
      forkedFrom: 'ses_v2a',
      prompts: 1,
      firstPrompt: 'fork own v2 prompt',
      title: 'fork own v2 prompt',
      hidden: false,
    });
    expect(byId(list, 'ses_v2kid')).toMatchObject({
      parent: 'ses_v2a',
      hidden: true,
      hiddenReason: 'subagent',
      firstPrompt: 'subagent task',
    });
  });

  it('a 1.x fork (copied messages, "(fork #N)" title, no link) is linked by the prompts it copied', async () => {
    const { tempHome, lsJson, byId } = await import('./helpers.js');
    const { opencodeDb, addSessions, user, assistant } = await import('./sqlite-fixtures.js');
    const home = tempHome();
    const db = opencodeDb(`${home}/.local/share/opencode/opencode.db`);
    addSessions(
      db,
      [
        { id: 'ses_p', directory: '/w/a', title: 'Port it', created: 1770000000000 },
        { id: 'ses_f', directory: '/w/a', title: 'Port it (fork #1)', created: 1770000500000 },
        { id: 'ses_same', directory: '/w/a', title: 'Unrelated', created: 1770000600000 },
      ],
      [
        user('msg_p1', 'ses_p', 'step one'),
        assistant('msg_p2', 'ses_p', 'ok'),
        user('msg_p3', 'ses_p', 'step two'),
        user('msg_f1', 'ses_f', 'step one'),
        assistant('msg_f2', 'ses_f', 'ok'),
        user('msg_f3', 'ses_f', 'step two'),
        user('msg_f4', 'ses_f', 'fork step'),
        // begins with the same words but is not marked as a fork: not linked
        user('msg_s1', 'ses_same', 'step one'),
        user('msg_s2', 'ses_same', 'other'),
      ],
    );
    db.close();
    const list = lsJson(home);
    expect(byId(list, 'ses_f')).toMatchObject({ forkedFrom: 'ses_p', prompts: 1, firstPrompt: 'fork step', title: 'fork step' });
    expect(byId(list, 'ses_p')).toMatchObject({ forkedFrom: null, prompts: 2, title: 'Port it' });
    expect(byId(list, 'ses_same')).toMatchObject({ forkedFrom: null, prompts: 2 });
  });
});
