// A session looked up by key (preview on every cursor move, the picked session) is one record of
// list.json, found through list.idx, not the whole listing. Whatever the lookup reads, it must
// give what the whole listing gives; anything it cannot trust sends it to the whole listing.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { jsonl, run, tempDir, tempHome, write } from './helpers.js';

const uuid = (n: number) => `${String(n).padStart(8, '0')}-3333-4333-8333-333333333333`;
const ts = (day: number) => `2026-06-${String(day).padStart(2, '0')}T10:00:00.000Z`;
/** Session n's directory: made under HOME (emit refuses a directory that is gone). */
let cwdOf = (n: number) => `/tmp/p${n}`;
const claudeLine = (n: number, text: string, at: string) =>
  jsonl({
    parentUuid: null, isSidechain: false, userType: 'external', cwd: cwdOf(n), sessionId: uuid(n), version: '2.1.207', gitBranch: 'main',
    type: 'user', message: { role: 'user', content: text }, uuid: `u-${n}-${at}`, timestamp: at, entrypoint: 'cli',
  });
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
  texts.forEach((t, i) => write(h, claudeFile(h, i + 1), claudeLine(i + 1, t, ts(i + 1))));
  return h;
}

/** A pi session with id `id`, one prompt on day `day`, in the directory of session `day`. */
function piSession(h: string, id: string, day: number, text: string): void {
  write(h, `.pi/agent/sessions/--tmp-q${day}--/2026-06-0${day}T10-00-00-000Z_${id}.jsonl`,
    jsonl({ type: 'session', version: 3, id, timestamp: ts(day), cwd: cwdOf(day) }) +
    jsonl({ type: 'message', id: 'm1', parentId: null, timestamp: ts(day), message: { role: 'user', content: [{ type: 'text', text }], timestamp: Date.parse(ts(day)) } }));
}

function preview(h: string, k: string, env: Record<string, string> = {}): string {
  const r = run(h, ['preview', k], env);
  expect(r.code, r.stderr).toBe(0);
  return r.stdout;
}
/** The preview from a listing built from nothing, in another cache directory. */
const fresh = (h: string, k: string) => preview(h, k, { RESUME_CACHE_DIR: tempDir('resume-fresh-') });

describe('lookup by key through list.idx', () => {
  it('list.idx gives each session its own bytes of list.json, and every preview is the whole listing’s', () => {
    const h = store();
    expect(run(h, ['index']).code).toBe(0);
    const idx = fs.readFileSync(file(h, 'list.idx'), 'utf8').split('\n');
    const list = fs.readFileSync(file(h, 'list.json'));
    const listId = JSON.parse(list.toString('utf8')).id;
    expect(idx[0]).toBe(`v${idx[0]!.slice(1).split(' ')[0]} ${listId} 6`);
    for (const line of idx.slice(1).filter(Boolean)) {
      const [k, short, off, len] = line.split('\t');
      const rec = JSON.parse(list.toString('utf8', Number(off), Number(off) + Number(len)));
      expect(rec.key).toBe(k);
      expect(short).toBe(rec.id.slice(0, 8));
    }
    for (let n = 1; n <= 6; n++) expect(preview(h, key(n))).toBe(fresh(h, key(n)));
  });

  it('reads only the one record: the rest of list.json may be unreadable', () => {
    const h = store();
    expect(run(h, ['index']).code).toBe(0);
    const want = preview(h, key(3));
    // garble every other record in place (same length), leaving the head and session 3's record
    const idx = fs.readFileSync(file(h, 'list.idx'), 'utf8').split('\n').slice(1).filter(Boolean).map((l) => l.split('\t'));
    const list = fs.readFileSync(file(h, 'list.json'));
    for (const [k, , off, len] of idx) if (k !== key(3)) list.fill(0x7e, Number(off), Number(off) + Number(len));
    fs.writeFileSync(file(h, 'list.json'), list);
    expect(preview(h, key(3))).toBe(want);
    // nothing was built again (a whole read would have found the listing broken and rewritten it)
    expect(fs.readFileSync(file(h, 'list.json')).equals(list)).toBe(true);
    // so are resolve and emit by key or full id (the launch's own lookup)
    expect(run(h, ['resolve', uuid(3)]).stdout).toBe(`${key(3)}\n`);
    const emit = run(h, ['emit', key(3)], { RESUME_SHELL: 'bash' });
    expect(emit.code, emit.stderr).toBe(0);
    expect(emit.stdout).toBe(`cd ${h}/p3 && claude --resume ${uuid(3)}\n`);
    expect(fs.readFileSync(file(h, 'list.json')).equals(list)).toBe(true);
    // a garbled record is not trusted: the listing is found broken and built again
    expect(preview(h, key(2))).toBe(fresh(h, key(2)));
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
    expect(same(['resolve', 'café']).stdout).toBe(`${key(2)}\n`);
    expect(same(['resolve', '--harness', 'pi', key(2)]).code).toBe(1);
    for (const k of [key(1), uuid(5), `pi:${uuid(6)}`, '00000003']) {
      const r = same(['emit', k], { RESUME_SHELL: 'zsh' });
      expect(r.code, r.stderr).toBe(0);
    }
  });

  it('after an append the patched session comes from list.patch, the others from list.json', () => {
    const h = store();
    expect(run(h, ['index']).code).toBe(0);
    fs.appendFileSync(claudeFile(h, 2), claudeLine(2, 'two goes on', ts(9)));
    expect(run(h, ['rows']).code).toBe(0);
    expect(fs.existsSync(file(h, 'list.patch'))).toBe(true);
    expect(preview(h, key(2))).toContain('two goes on');
    for (let n = 1; n <= 6; n++) expect(preview(h, key(n))).toBe(fresh(h, key(n)));
  });

  it('a list.idx of another build, with wrong offsets, or missing is not used', () => {
    const h = store();
    expect(run(h, ['index']).code).toBe(0);
    const good = fs.readFileSync(file(h, 'list.idx'), 'utf8');
    const lines = good.split('\n');
    const cases = [
      // another build's head
      [lines[0]!.replace(/ \S+ /, ' someotherbuild '), ...lines.slice(1)].join('\n'),
      // every offset moved by one record: each points at a neighbour's record
      [lines[0], ...lines.slice(1).map((l, i, a) => (l && a[(i + 1) % 6] ? l.split('\t').slice(0, 2).join('\t') + '\t' + a[(i + 1) % 6]!.split('\t').slice(2).join('\t') : l))].join('\n'),
      // cut short, and garbage
      good.slice(0, good.length >> 1),
      '\u0000\u0001garbage',
    ];
    for (const text of cases) {
      fs.writeFileSync(file(h, 'list.idx'), text);
      for (const n of [1, 4, 6]) expect(preview(h, key(n))).toBe(fresh(h, key(n)));
    }
    fs.rmSync(file(h, 'list.idx'));
    for (const n of [1, 4, 6]) expect(preview(h, key(n))).toBe(fresh(h, key(n)));
  });

  it('completion from the rendered rows gives what the listing gives', () => {
    const h = store();
    piSession(h, uuid(8), 8, 'pi eight');
    expect(run(h, ['index']).code).toBe(0);
    for (const words of [[''], ['0000000'], ['00000003-3333'], ['-a', ''], ['--harness', 'pi', ''], ['show', '0'], ['café'], ['--dir', h, '']]) {
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
