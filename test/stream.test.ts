// `rows` on a cold index streams the finished list, in order, for every harness (issue 12): files
// are read newest first and a session is written once no unread file can hold a newer one.

import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { HARNESSES, type Session } from '../lib/types.js';
import { BIN, claudeTurn, envFor, FIXTURES, jsonl, lsJson, must, run, tempHome, write } from './helpers.js';
import { cursorStore, md5 } from './sqlite-fixtures.js';

const homes: string[] = [];
afterEach(() => {
  for (const h of homes.splice(0)) fs.rmSync(h, { recursive: true, force: true });
});

/**
 * Every real client's recorded home in one HOME, plus a Cursor chat store, with file times spread
 * so that the order files are read in (newest mtime first) differs from the sessions' order: each
 * file's mtime is its newest session's time plus a few minutes that vary from file to file, and the
 * pi file with the oldest session gets the newest mtime of all.
 */
function mixedHome(): { home: string; files: string[] } {
  const home = tempHome();
  homes.push(home);
  const real = path.join(FIXTURES, 'real');
  for (const d of fs.readdirSync(real)) {
    const h = path.join(real, d, 'home');
    if (fs.existsSync(h)) fs.cpSync(h, home, { recursive: true });
  }
  const cwd = '/tmp/resume-stream-cursor';
  cursorStore(path.join(home, '.cursor', 'chats', md5(cwd), 'a1b2c3d4-e5f6-7890-abcd-ef1234567890', 'store.db'), {
    agentId: 'a1b2c3d4-e5f6-7890-abcd-ef1234567890',
    name: 'Cursor stream check',
    createdAt: Date.parse('2026-11-30T13:16:00Z'),
  });
  const list = lsJson(home);
  fs.rmSync(path.join(home, '.cache'), { recursive: true, force: true });
  const newest = new Map<string, number>();
  for (const s of list) newest.set(s.file, Math.max(newest.get(s.file) ?? 0, Date.parse(must(s.updated ?? s.started))));
  const files = [...newest.keys()].sort();
  const oldestPi = list.filter((s) => s.harness === 'pi').sort((a, b) => Date.parse(must(a.updated)) - Date.parse(must(b.updated)))[0].file;
  const top = Math.max(...newest.values()) + 3_600_000;
  files.forEach((f, i) => {
    const t = (f === oldestPi ? top : must(newest.get(f)) + ((i * 7919) % 13) * 60_000) / 1000;
    for (const p of [f, `${f}-wal`, `${f}-shm`]) if (fs.existsSync(p)) fs.utimesSync(p, t, t);
  });
  return { home, files };
}

const keys = (out: string) =>
  out
    .split('\n')
    .filter(Boolean)
    .map((l) => l.split('\t')[0]);
/** A row without its short id (a streamed short id is unique among the rows written so far) and age (time moves on). */
const noShort = (out: string) =>
  out
    .split('\n')
    .filter(Boolean)
    .map((l) =>
      l
        .split('\t')
        .filter((_, i) => i !== 1 && i !== 2)
        .join('\t'),
    );

describe('rows on a cold index', () => {
  it('streams exactly the finished list, in order, for every harness', () => {
    const { home } = mixedHome();
    const cold = run(home, ['rows', '-a']);
    expect(cold.code).toBe(0);
    const warm = run(home, ['rows', '-a']);
    expect(warm.code).toBe(0);
    const harnesses = new Set(keys(warm.stdout).map((k) => k.split(':')[0]));
    expect([...harnesses].sort()).toEqual([...HARNESSES].sort());
    expect(keys(cold.stdout)).toEqual(keys(warm.stdout));
    expect(noShort(cold.stdout)).toEqual(noShort(warm.stdout));
    // every streamed short id is a prefix of its id
    for (const l of cold.stdout.split('\n').filter(Boolean)) {
      const [key, short] = l.split('\t');
      expect(key.split(':')[1].startsWith(short)).toBe(true);
    }
  });

  it('`rows | head -1` is the newest session', () => {
    const { home } = mixedHome();
    const first = spawnSync('sh', ['-c', `"${BIN}" rows -a | head -1`], { env: envFor(home), encoding: 'utf8' });
    expect(first.status).toBe(0);
    expect(first.stderr).toBe('');
    const warm = run(home, ['rows', '-a']);
    expect(keys(first.stdout)).toEqual(keys(warm.stdout).slice(0, 1));
  });

  it('with filters, streams the filtered finished list', () => {
    const { home } = mixedHome();
    const cold = run(home, ['rows', '--harness', 'pi,opencode']);
    const warm = run(home, ['rows', '--harness', 'pi,opencode']);
    expect(cold.code).toBe(0);
    expect(keys(cold.stdout).length).toBeGreaterThan(0);
    expect(keys(cold.stdout)).toEqual(keys(warm.stdout));
  });
});

describe('the ordered stream of a full build', () => {
  it('hands sessions over while files are still being read, and its batches are the result', async () => {
    const { updateIndex } = await import('../lib/index/index.js');
    const { home } = mixedHome();
    const ctx = { env: envFor(home), home };
    const batches: { at: number; keys: string[] }[] = [];
    let filesDone = 0;
    let total = 0;
    const r = await updateIndex(ctx, {
      progress: (_d, _t, files, totalFiles) => {
        filesDone = files;
        total = totalFiles;
      },
      onSessions: (ss) => batches.push({ at: filesDone, keys: ss.map((s) => s.key) }),
    });
    expect(batches.flatMap((b) => b.keys)).toEqual(r.sessions.map((s) => s.key));
    // the newest pi session could be written before the last file was read
    expect(batches[0].at).toBeLessThan(total);
    // a rebuild streams the same list again
    const again: string[] = [];
    const r2 = await updateIndex(ctx, { rebuild: true, onSessions: (ss) => again.push(...ss.map((s) => s.key)) });
    expect(again).toEqual(r2.sessions.map((s) => s.key));
    expect(again).toEqual(r.sessions.map((s) => s.key));
  });

  it('holds a session back while an unread file could still hold a newer one', async () => {
    const { OrderedStream, planOrder } = await import('../lib/index/stream.js');
    const out: string[][] = [];
    const st = new OrderedStream((b) => out.push(b.map((s) => s.id)));
    const s = (id: string, updated: number) => ({ id, harness: 'pi', updated, started: updated }) as Session;
    st.add([s('a', 100)]);
    st.flush(150); // a file with bound 150 is still unread
    expect(out).toEqual([]);
    st.add([s('b', 140), s('a', 999)]); // a second 'a' is a duplicate: the first wins
    st.flush(100); // ties wait
    expect(out).toEqual([['b']]);
    st.flush(-Infinity);
    expect(out).toEqual([['b'], ['a']]);
    // the files of a finishing harness are read together, at the place of its newest file
    const jobs = [
      { src: { path: 'c1', harness: 'claude' as const } },
      { src: { path: 'p1', harness: 'pi' as const } },
      { src: { path: 'c2', harness: 'claude' as const } },
      { src: { path: 'p2', harness: 'pi' as const } },
    ];
    const bounds = new Map([
      ['c1', 10],
      ['p1', 20],
      ['c2', 30],
      ['p2', 5],
    ]);
    const found = jobs.map((j) => ({ src: j.src, bound: must(bounds.get(j.src.path)) }));
    const plan = planOrder(jobs, bounds, new Set(['claude' as const]), found);
    expect(plan.map((p) => [p.job.src.path, p.key])).toEqual([
      ['c2', 30],
      ['c1', 30],
      ['p1', 20],
      ['p2', 5],
    ]);
  });
});

const uu = (n: number) => `bbbbbbbb-0000-4000-8000-${n.toString(16).padStart(12, '0')}`;
const sid = (n: number) => `aaaaaaaa-0000-4000-8000-${n.toString(16).padStart(12, '0')}`;

/**
 * Claude Code sessions beside pi's real ones: two that stand alone, a parent with a fork and a fork
 * of the fork (the fork's records copy the parent's uuids: test/forks.test.ts), and one whose first
 * prompt is longer than the first lines the stream reads for link keys: those `names` names. Each
 * file's mtime is a minute after its last record, so the files are read in the order of their
 * newest sessions: long (08:00), alone1 (07:30), fork (07:00), parent, grand, alone2, then pi's.
 */
function claudeHome(names: string[]): string {
  const home = tempHome();
  homes.push(home);
  const pi = path.join(home, '.pi/agent/sessions');
  fs.cpSync(path.join(FIXTURES, 'real', 'pi-0.73.1', 'home'), home, { recursive: true });
  const old = Date.parse('2026-11-30T14:00:00Z') / 1000;
  for (const e of fs.readdirSync(pi, { recursive: true, withFileTypes: true }))
    if (e.isFile()) fs.utimesSync(path.join(e.parentPath, e.name), old, old);
  const at = (h: number) => `2026-12-01T${String(h).padStart(2, '0')}:00:00.000Z`;
  const history = (s: string) => [
    claudeTurn({ sid: s, uuid: uu(1), parent: null, text: 'parent first prompt', at: at(1) }),
    claudeTurn({ sid: s, role: 'assistant', uuid: uu(2), parent: uu(1), text: 'ok', at: at(1) }),
  ];
  const texts: Record<string, [number, unknown[]]> = {
    alone1: [
      1,
      [
        claudeTurn({ sid: sid(1), uuid: uu(101), parent: null, text: 'alone one', at: at(5) }),
        claudeTurn({ sid: sid(1), role: 'assistant', uuid: uu(102), parent: uu(101), text: 'ok', at: '2026-12-01T07:30:00.000Z' }),
      ],
    ],
    alone2: [2, [claudeTurn({ sid: sid(2), uuid: uu(201), parent: null, text: 'alone two', at: '2026-12-01T00:30:00.000Z' })]],
    parent: [3, [...history(sid(3)), claudeTurn({ sid: sid(3), uuid: uu(20), parent: uu(2), text: 'parent after the fork', at: at(4) })]],
    fork: [
      4,
      [
        ...history(sid(4)),
        claudeTurn({ sid: sid(4), uuid: uu(10), parent: uu(2), text: 'fork own prompt', at: at(2) }),
        claudeTurn({ sid: sid(4), uuid: uu(12), parent: uu(10), text: 'fork goes on', at: at(7) }),
      ],
    ],
    grand: [
      5,
      [
        ...history(sid(5)),
        claudeTurn({ sid: sid(5), uuid: uu(10), parent: uu(2), text: 'fork own prompt', at: at(2) }),
        claudeTurn({ sid: sid(5), uuid: uu(30), parent: uu(10), text: 'grandchild', at: at(2) }),
      ],
    ],
    long: [
      6,
      [claudeTurn({ sid: sid(6), uuid: uu(601), parent: null, text: `a long first prompt${' and more'.repeat(10_000)}`, at: at(8) })],
    ],
  };
  for (const name of names) {
    const [n, recs] = texts[name];
    // a long reply after the first record (the stream reads a linked harness's files one by one only
    // when their first lines are a small part of them)
    const first = recs[0] as { timestamp: string; uuid: string };
    const pad = claudeTurn({
      sid: sid(n),
      role: 'assistant',
      uuid: uu(900 + n),
      parent: first.uuid,
      text: 'long reply'.repeat(60_000),
      at: first.timestamp,
    });
    const file = write(home, `.claude/projects/-tmp/${sid(n)}.jsonl`, jsonl(recs[0], pad, ...recs.slice(1)));
    const t = Date.parse((recs.at(-1) as { timestamp: string }).timestamp) / 1000 + 60;
    fs.utimesSync(file, t, t);
  }
  return home;
}

describe('a linked harness in the stream (Claude Code: forks)', () => {
  /** The batches a cold build hands over, each with the number of files read before it, and the result. */
  async function streamed(home: string) {
    const { updateIndex } = await import('../lib/index/index.js');
    const batches: { at: number; keys: string[] }[] = [];
    let filesDone = 0;
    const r = await updateIndex(
      { env: envFor(home), home },
      {
        progress: (_d, _t, files) => (filesDone = files),
        onSessions: (ss) => batches.push({ at: filesDone, keys: ss.map((s) => s.key) }),
      },
    );
    return { batches, result: r.sessions.map((s) => s.key) };
  }

  it('hands over a session no other file is linked to before the other Claude files are read', async () => {
    const home = claudeHome(['alone1', 'alone2', 'parent', 'fork', 'grand']);
    const { batches, result } = await streamed(home);
    expect(batches.flatMap((b) => b.keys)).toEqual(result);
    // the newest file is read first and its session handed over at once, before any other file
    expect(batches[0]).toEqual({ at: 1, keys: [`claude:${sid(1)}`] });
    // the fork waits for the finish pass over the files it may be related to: until the last of
    // them (grand, the 4th file) is read, not the last Claude file (alone2, the 5th)
    expect(must(batches.find((b) => b.keys.includes(`claude:${sid(4)}`))).at).toBe(4);
    // and the rows a cold `rows` prints are those of the finished list
    fs.rmSync(path.join(home, '.cache'), { recursive: true, force: true });
    const cold = run(home, ['rows', '-a']);
    const warm = run(home, ['rows', '-a']);
    expect(noShort(cold.stdout)).toEqual(noShort(warm.stdout));
    expect(lsJson(home).find((s) => s.id === sid(4))).toMatchObject({ forkedFrom: sid(3), firstPrompt: 'fork own prompt' });
  });

  it("holds every Claude session when a file's first lines do not give its link key", async () => {
    const home = claudeHome(['alone1', 'alone2', 'parent', 'fork', 'grand', 'long']);
    const { batches, result } = await streamed(home);
    expect(batches.flatMap((b) => b.keys)).toEqual(result);
    // nothing before the last of the six Claude files is read
    expect(batches[0].at).toBe(6);
    fs.rmSync(path.join(home, '.cache'), { recursive: true, force: true });
    const cold = run(home, ['rows', '-a']);
    expect(noShort(cold.stdout)).toEqual(noShort(run(home, ['rows', '-a']).stdout));
  });
});

/** Lines with the ages masked and the padding collapsed (a minute may pass between two runs). */
const steady = (out: string) => out.split('\n').map((l) => l.replace(/\b\d+(mo|[smhdwy])\b/g, 'AGE').replace(/ +/g, ' '));
/**
 * What a picker list and `rows --status` share: the status line, then each row's key, in order (the
 * picker lays its columns out for the screen: fzf/layout.ts).
 */
const listed = (out: string) =>
  out
    .split('\n')
    .filter(Boolean)
    .map((l, i) => (i === 0 ? steady(l)[0] : l.split('\t')[0]));

describe('one listing for rows and the picker reloads', () => {
  it('__feed after a key lists what `rows --status` lists with the same filters, from the same stored listing', () => {
    const { home } = mixedHome();
    expect(run(home, ['index']).code).toBe(0);
    const pick = path.join(home, 'pick');
    fs.mkdirSync(pick);
    fs.writeFileSync(path.join(pick, 'state.json'), JSON.stringify({ all: false, harness: null, dir: null }));
    const fed = run(home, ['__feed', '--toggle-hidden'], { RESUME_PICK_DIR: pick });
    expect(fed.code).toBe(0);
    const rows = run(home, ['rows', '--align', '--status', '-a']);
    expect(listed(fed.stdout)).toEqual(listed(rows.stdout));
    expect(fed.stdout.split('\n')[0]).toMatch(/incl\. hidden/);
    // the next key: the first harness that has sessions, as `rows --harness` shows it
    const next = run(home, ['__feed', '--next-harness'], { RESUME_PICK_DIR: pick });
    expect(listed(next.stdout)).toEqual(listed(run(home, ['rows', '--align', '--status', '-a', '--harness', 'claude']).stdout));
  });

  it('a plain __feed (fzf load) lists in the state it finds and never writes it back', () => {
    const { home } = mixedHome();
    expect(run(home, ['index']).code).toBe(0);
    const pick = path.join(home, 'pick');
    fs.mkdirSync(pick);
    const state = path.join(pick, 'state.json');
    fs.writeFileSync(state, JSON.stringify({ all: true, harness: ['claude'], dir: null }));
    const before = fs.statSync(state);
    const fed = run(home, ['__feed'], { RESUME_PICK_DIR: pick });
    expect(fed.code).toBe(0);
    expect(listed(fed.stdout)).toEqual(listed(run(home, ['rows', '--align', '--status', '-a', '--harness', 'claude']).stdout));
    // a key's reload may have changed the state meanwhile: the same file, untouched
    const after = fs.statSync(state);
    expect([after.ino, after.mtimeMs]).toEqual([before.ino, before.mtimeMs]);
    // a key writes its change (a new file, renamed into place)
    run(home, ['__feed', '--toggle-hidden'], { RESUME_PICK_DIR: pick });
    expect(JSON.parse(fs.readFileSync(state, 'utf8'))).toMatchObject({ all: false, harness: ['claude'] });
  });
});
