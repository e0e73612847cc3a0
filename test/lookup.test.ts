// A session looked up by key (preview on every cursor move, the picked session) is one row of the
// index database, not the whole listing. Whatever the lookup reads, it must give what the whole
// listing gives; a database it cannot read sends it to a build.
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { claudePrompt, jsonl, run, tempDir, tempHome, write } from './helpers.js';

const uuid = (n: number) => `${String(n).padStart(8, '0')}-3333-4333-8333-333333333333`;
const ts = (day: number) => `2026-06-${String(day).padStart(2, '0')}T10:00:00.000Z`;
/** Session n's directory: made under HOME (emit refuses a directory that is gone). */
let cwdOf = (n: number) => `/tmp/p${n}`;
const claudeLine = (n: number, text: string, at: string) => jsonl(claudePrompt(uuid(n), cwdOf(n), text, at, { uuid: `u-${n}-${at}` }));
const claudeFile = (h: string, n: number) => path.join(h, `.claude/projects/-tmp-p${n}/${uuid(n)}.jsonl`);
const key = (n: number) => `claude:${uuid(n)}`;
const cache = (h: string) => path.join(h, '.cache', 'resume');
const file = (h: string, f: string) => path.join(cache(h), f);

/** Six Claude sessions with prompts of plain, wide and escaped text. */
function store(): string {
  const h = tempHome();
  cwdOf = (n: number) => path.join(h, `p${n}`);
  for (let n = 1; n <= 9; n++) fs.mkdirSync(cwdOf(n), { recursive: true });
  const texts = ['plain one', 'naïve café ☕ two', 'tab\there three', 'quote " and \\ four', '日本語 five', 'six'];
  for (const [i, t] of texts.entries()) write(h, claudeFile(h, i + 1), claudeLine(i + 1, t, ts(i + 1)));
  return h;
}

/** A pi session with id `id`, one prompt on day `day`, in the directory of session `day`. */
function piSession(h: string, id: string, day: number, text: string): void {
  write(
    h,
    `.pi/agent/sessions/--tmp-q${day}--/2026-06-0${day}T10-00-00-000Z_${id}.jsonl`,
    jsonl({ type: 'session', version: 3, id, timestamp: ts(day), cwd: cwdOf(day) }) +
      jsonl({
        type: 'message',
        id: 'm1',
        parentId: null,
        timestamp: ts(day),
        message: { role: 'user', content: [{ type: 'text', text }], timestamp: Date.parse(ts(day)) },
      }),
  );
}

function preview(h: string, k: string, env: Record<string, string> = {}): string {
  const r = run(h, ['preview', k], env);
  expect(r.code, r.stderr).toBe(0);
  return r.stdout;
}
/** The preview from a listing built from nothing, in another cache directory. */
const fresh = (h: string, k: string) => preview(h, k, { RESUME_CACHE_DIR: tempDir('resume-fresh-') });

describe('lookup by key in the database', () => {
  it('each session is one row of the database, and every preview is what a build from nothing gives', () => {
    const h = store();
    expect(run(h, ['index']).code).toBe(0);
    const Sqlite = createRequire(import.meta.url)('better-sqlite3');
    const db = new Sqlite(file(h, 'index.db'), { readonly: true });
    const rows = db.prepare('SELECT key, short, doc FROM sessions').all() as Array<{ key: string; short: string; doc: string }>;
    db.close();
    expect(rows).toHaveLength(6);
    for (const r of rows) {
      expect(JSON.parse(r.doc).key).toBe(r.key);
      expect(r.short).toBe(JSON.parse(r.doc).id.slice(0, 8));
    }
    for (let n = 1; n <= 6; n++) expect(preview(h, key(n))).toBe(fresh(h, key(n)));
  });

  it('a lookup reads the last commit and builds nothing: resolve and emit by key or full id', () => {
    const h = store();
    expect(run(h, ['index']).code).toBe(0);
    const want = preview(h, key(3));
    const before = fs.statSync(file(h, 'index.db')).mtimeMs;
    expect(preview(h, key(3))).toBe(want);
    expect(run(h, ['resolve', uuid(3)]).stdout).toBe(`${key(3)}\n`);
    const emit = run(h, ['emit', key(3)], { RESUME_SHELL: 'bash' });
    expect(emit.code, emit.stderr).toBe(0);
    expect(emit.stdout).toBe(`cd ${h}/p3 && claude --resume ${uuid(3)}\n`);
    expect(fs.statSync(file(h, 'index.db')).mtimeMs).toBe(before);
  });

  it('a lookup brings the index up to date first, and with nothing changed stops at the stat check', () => {
    const h = store();
    expect(run(h, ['index']).code).toBe(0);
    // the rendered rows are neither read nor written again (a lookup that read them would find this
    // one damaged and write it anew)
    fs.writeFileSync(file(h, 'rows.bin'), 'damaged');
    expect(run(h, ['resolve', uuid(3)]).stdout).toBe(`${key(3)}\n`);
    expect(run(h, ['resolve', 'quote']).stdout).toBe(`${key(4)}\n`);
    expect(fs.readFileSync(file(h, 'rows.bin'), 'utf8')).toBe('damaged');
    // a session written since the last run is found, by id and by its words
    write(h, claudeFile(h, 7), claudeLine(7, 'seven is new', ts(20)));
    expect(run(h, ['resolve', uuid(7)]).stdout).toBe(`${key(7)}\n`);
    expect(run(h, ['resolve', 'seven', 'new']).stdout).toBe(`${key(7)}\n`);
  });

  it('resolve and emit by key, id, prefix or words give what the whole listing gives', () => {
    const h = store();
    // a pi session sharing session 6's id: the bare id names two sessions
    piSession(h, uuid(6), 7, 'pi twin');
    expect(run(h, ['index']).code).toBe(0);
    const other = { RESUME_CACHE_DIR: tempDir('resume-fresh-') };
    const same = (args: string[], env: Record<string, string> = {}) => {
      const a = run(h, args, env);
      const b = run(h, args, { ...env, ...other });
      expect([a.code, a.stdout, a.stderr]).toEqual([b.code, b.stdout, b.stderr]);
      return a;
    };
    expect(same(['resolve', key(2)]).stdout).toBe(`${key(2)}\n`);
    expect(same(['resolve', uuid(2)]).stdout).toBe(`${key(2)}\n`);
    expect(same(['resolve', uuid(6)]).code).toBe(1);
    expect(same(['resolve', `pi:${uuid(6)}`]).stdout).toBe(`pi:${uuid(6)}\n`);
    expect(same(['resolve', '00000004']).stdout).toBe(`${key(4)}\n`);
    expect(same(['resolve', '00000006']).code).toBe(2);
    expect(same(['resolve', 'pi:00000006']).stdout).toBe(`pi:${uuid(6)}\n`);
    expect(same(['resolve', 'claude:00000006-3333']).stdout).toBe(`${key(6)}\n`);
    expect(same(['resolve', 'claude:00000009']).code).toBe(1);
    expect(same(['resolve', 'café']).stdout).toBe(`${key(2)}\n`);
    expect(same(['resolve', '--harness', 'pi', key(2)]).code).toBe(1);
    for (const k of [key(1), uuid(5), `pi:${uuid(6)}`, '00000003']) {
      const r = same(['emit', k], { RESUME_SHELL: 'zsh' });
      expect(r.code, r.stderr).toBe(0);
    }
  });

  it('the start of an id is compared as resolve compares it: lower-cased, whatever its characters', () => {
    const h = store();
    // (U+212A, the Kelvin sign, lower-cases to `k`, which SQLite's lower() does not know)
    piSession(h, 'ABCDEF-1', 7, 'upper');
    piSession(h, '\u212Aelvin-1', 8, 'kelvin sign');
    piSession(h, 'kelvin-2', 9, 'plain k');
    expect(run(h, ['index']).code).toBe(0);
    expect(run(h, ['resolve', 'abcd']).stdout).toBe('pi:ABCDEF-1\n');
    expect(run(h, ['resolve', 'KELVIN-2']).stdout).toBe('pi:kelvin-2\n');
    const both = run(h, ['resolve', 'kelv']);
    expect(both.code).toBe(2);
    expect(both.stdout.split('\n').filter(Boolean).sort()).toEqual(['pi:kelvin-2', 'pi:\u212Aelvin-1']);
  });

  it('after an append the preview shows the grown session, the others as before', () => {
    const h = store();
    expect(run(h, ['index']).code).toBe(0);
    fs.appendFileSync(claudeFile(h, 2), claudeLine(2, 'two goes on', ts(9)));
    expect(run(h, ['rows']).code).toBe(0);
    expect(preview(h, key(2))).toContain('two goes on');
    for (let n = 1; n <= 6; n++) expect(preview(h, key(n))).toBe(fresh(h, key(n)));
  });

  it('a database that is damaged or gone: the lookup builds the index again and answers', () => {
    const h = store();
    expect(run(h, ['index']).code).toBe(0);
    for (const damage of [() => fs.writeFileSync(file(h, 'index.db'), 'garbage'), () => fs.rmSync(file(h, 'index.db'))]) {
      for (const f of ['index.db-wal', 'index.db-shm']) fs.rmSync(file(h, f), { force: true });
      damage();
      for (const n of [1, 4, 6]) expect(preview(h, key(n))).toBe(fresh(h, key(n)));
    }
  });

  it('completion from the rendered rows gives what the listing gives', () => {
    const h = store();
    piSession(h, uuid(8), 8, 'pi eight');
    expect(run(h, ['index']).code).toBe(0);
    for (const words of [
      [''],
      ['0000000'],
      ['00000003-3333'],
      ['-a', ''],
      ['--harness', 'pi', ''],
      ['show', '0'],
      ['café'],
      ['--dir', h, ''],
    ]) {
      const warm = run(h, ['__complete', '--', ...words]);
      // a fresh cache directory builds the index: its listing answers, not rows.bin
      const cold = run(h, ['__complete', '--', ...words], { RESUME_CACHE_DIR: tempDir('resume-fresh-') });
      expect([warm.code, warm.stdout]).toEqual([cold.code, cold.stdout]);
    }
    expect(run(h, ['__complete', '--', '-a', '']).stdout.split('\n').filter(Boolean)).toHaveLength(7);
  });

  it('a key the listing does not have is still an error, and a new session is found', () => {
    const h = store();
    expect(run(h, ['index']).code).toBe(0);
    const r = run(h, ['preview', 'claude:nosuchsession']);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/no session/);
    write(h, claudeFile(h, 7), claudeLine(7, 'seven is new', ts(20)));
    expect(preview(h, key(7))).toContain('seven is new');
  });
});
