// `rows` on a cold index streams the finished list, in order, for every harness (issue 12): files
// are read newest first and a session is written once no unread file can hold a newer one.
import fs from 'node:fs';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { afterEach, describe, expect, it } from 'vitest';
import { BIN, FIXTURES, envFor, lsJson, run, tempHome } from './helpers.js';
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
    agentId: 'a1b2c3d4-e5f6-7890-abcd-ef1234567890', name: 'Cursor stream check', createdAt: Date.parse('2026-11-30T13:16:00Z'),
  });
  const list = lsJson(home);
  fs.rmSync(path.join(home, '.cache'), { recursive: true, force: true });
  const newest = new Map<string, number>();
  for (const s of list) newest.set(s.file, Math.max(newest.get(s.file) ?? 0, Date.parse(s.updated ?? s.started)));
  const files = [...newest.keys()].sort();
  const oldestPi = list.filter((s) => s.harness === 'pi').sort((a, b) => Date.parse(a.updated) - Date.parse(b.updated))[0].file;
  const top = Math.max(...newest.values()) + 3_600_000;
  files.forEach((f, i) => {
    const t = (f === oldestPi ? top : newest.get(f)! + ((i * 7919) % 13) * 60_000) / 1000;
    for (const p of [f, `${f}-wal`, `${f}-shm`]) if (fs.existsSync(p)) fs.utimesSync(p, t, t);
  });
  return { home, files };
}

const keys = (out: string) => out.split('\n').filter(Boolean).map((l) => l.split('\t')[0]);
/** A row without its short id (a streamed short id is unique among the rows written so far) and age (time moves on). */
const noShort = (out: string) => out.split('\n').filter(Boolean).map((l) => l.split('\t').filter((_, i) => i !== 1 && i !== 2).join('\t'));

describe('rows on a cold index', () => {
  it('streams exactly the finished list, in order, for every harness', () => {
    const { home } = mixedHome();
    const cold = run(home, ['rows', '-a']);
    expect(cold.code).toBe(0);
    const warm = run(home, ['rows', '-a']);
    expect(warm.code).toBe(0);
    const harnesses = new Set(keys(warm.stdout).map((k) => k.split(':')[0]));
    expect([...harnesses].sort()).toEqual(['claude', 'codex', 'cursor', 'gemini', 'opencode', 'pi']);
    expect(keys(cold.stdout)).toEqual(keys(warm.stdout));
    expect(noShort(cold.stdout)).toEqual(noShort(warm.stdout));
    // every streamed short id is a prefix of its id
    for (const l of cold.stdout.split('\n').filter(Boolean)) {
      const [key, short] = l.split('\t');
      expect(key!.split(':')[1]!.startsWith(short!)).toBe(true);
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
    expect(batches[0]!.at).toBeLessThan(total);
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
    const s = (id: string, updated: number) => ({ id, harness: 'pi', updated, started: updated }) as any;
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
    const bounds = new Map([['c1', 10], ['p1', 20], ['c2', 30], ['p2', 5]]);
    const found = jobs.map((j) => ({ src: j.src, bound: bounds.get(j.src.path)! }));
    const plan = planOrder(jobs, bounds, new Set(['claude' as const]), found);
    expect(plan.map((p) => [p.job.src.path, p.key])).toEqual([['c2', 30], ['c1', 30], ['p1', 20], ['p2', 5]]);
  });
});

/** Lines with the ages masked and the padding collapsed (a minute may pass between two runs). */
const steady = (out: string) => out.split('\n').map((l) => l.replace(/\b\d+(mo|[smhdwy])\b/g, 'AGE').replace(/ +/g, ' '));

describe('one listing for rows and the picker reloads', () => {
  it('__feed after a key is `rows --align --status` with the same filters, from the same stored listing', () => {
    const { home } = mixedHome();
    expect(run(home, ['index']).code).toBe(0);
    const pick = path.join(home, 'pick');
    fs.mkdirSync(pick);
    fs.writeFileSync(path.join(pick, 'state.json'), JSON.stringify({ all: false, harness: null, dir: null }));
    const fed = run(home, ['__feed', '--toggle-hidden'], { RESUME_PICK_DIR: pick });
    expect(fed.code).toBe(0);
    const rows = run(home, ['rows', '--align', '--status', '-a']);
    expect(steady(fed.stdout)).toEqual(steady(rows.stdout));
    expect(fed.stdout.split('\n')[0]).toMatch(/incl\. hidden/);
    // the next key: the first harness that has sessions, as `rows --harness` shows it
    const next = run(home, ['__feed', '--next-harness'], { RESUME_PICK_DIR: pick });
    expect(steady(next.stdout)).toEqual(steady(run(home, ['rows', '--align', '--status', '-a', '--harness', 'claude']).stdout));
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
    expect(steady(fed.stdout)).toEqual(steady(run(home, ['rows', '--align', '--status', '-a', '--harness', 'claude']).stdout));
    // a key's reload may have changed the state meanwhile: the same file, untouched
    const after = fs.statSync(state);
    expect([after.ino, after.mtimeMs]).toEqual([before.ino, before.mtimeMs]);
    // a key writes its change (a new file, renamed into place)
    run(home, ['__feed', '--toggle-hidden'], { RESUME_PICK_DIR: pick });
    expect(JSON.parse(fs.readFileSync(state, 'utf8'))).toMatchObject({ all: false, harness: ['claude'] });
  });
});
