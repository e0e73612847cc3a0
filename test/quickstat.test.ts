// quickStat: the numbers of a stat(2) without a Stats object, from Node's fs binding once it has
// proved itself against fs.statSync, else from fs.statSync. Either way the numbers must be exactly
// those fs.statSync gives (the listing compares them with numbers stored by earlier runs).

import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { DIR, FILE, NONE, OTHER, quickStat, quickStatBytes, quickStatFast, resetQuickStat, StatInDirs } from '../lib/util/quickstat.js';
import { run, tempHome } from './helpers.js';

function tree(): Record<string, string> {
  const d = fs.mkdtempSync(path.join(os.tmpdir(), 'resume-qs-'));
  const file = path.join(d, 'a file \u00e9 "q".jsonl');
  fs.writeFileSync(file, 'x'.repeat(1234));
  const sub = path.join(d, 'sub');
  fs.mkdirSync(sub);
  const fifo = path.join(d, 'fifo');
  const mk = spawnSync('mkfifo', [fifo]);
  const linkDir = path.join(d, 'link-to-sub');
  fs.symlinkSync(sub, linkDir);
  const dangling = path.join(d, 'dangling');
  fs.symlinkSync(path.join(d, 'nowhere'), dangling);
  return {
    file,
    sub,
    linkDir,
    dangling,
    missing: path.join(d, 'missing'),
    notDir: path.join(file, 'below-a-file'),
    ...(mk.status === 0 ? { fifo } : {}),
  };
}

/** What fs.statSync says of `p`, as quickStat gives it (NONE when it is missing or cannot be stat'ed). */
function expected(p: string): number[] {
  let st: fs.Stats | undefined;
  try {
    st = fs.statSync(p, { throwIfNoEntry: false });
  } catch {
    st = undefined;
  }
  if (!st) return [NONE];
  return [st.isFile() ? FILE : st.isDirectory() ? DIR : OTHER, st.size, st.mtimeMs, st.ctimeMs, st.ino];
}

function got(p: string): number[] {
  const s = quickStat(p);
  return s[0] === NONE ? [NONE] : Array.from(s);
}

describe('quickStat', () => {
  afterEach(() => resetQuickStat());

  it('gives exactly what fs.statSync gives: files, directories, symlinks, a fifo, missing and impossible paths', () => {
    const t = tree();
    resetQuickStat();
    for (const p of Object.values(t)) expect(got(p), p).toEqual(expected(p));
    // again, now that the first path that exists has been checked both ways
    for (const p of Object.values(t)) expect(got(p), p).toEqual(expected(p));
    // a file that changes between calls: the shared array holds the latest numbers
    fs.appendFileSync(t.file, 'more');
    expect(got(t.file)).toEqual(expected(t.file));
  });

  it('a path with a NUL in it is never a path cut at the NUL (fs.statSync refuses it)', () => {
    const t = tree();
    resetQuickStat();
    got(t.file);
    expect(quickStatFast()).toBe(true);
    expect(got(`${t.file}\0ignored`)).toEqual([NONE]);
    expect(got(`${t.sub}\0`)).toEqual([NONE]);
  });

  it('starting on a missing path proves nothing, and the next one that exists is checked', () => {
    const t = tree();
    resetQuickStat();
    expect(got(t.missing)).toEqual([NONE]);
    expect(got(t.notDir)).toEqual([NONE]);
    expect(got(t.file)).toEqual(expected(t.file));
    expect(got(t.sub)).toEqual(expected(t.sub));
  });

  it('on this Node the binding proves itself and is used (if it ever does not, the fallback below still holds)', () => {
    const t = tree();
    resetQuickStat();
    got(t.file);
    // Node 20 to 24 all hand back the raw numbers; a Node that does not only costs speed
    expect(quickStatFast()).toBe(true);
  });

  it('without the binding (fs.statSync only) the numbers are the same', () => {
    const t = tree();
    resetQuickStat(true);
    for (const p of Object.values(t)) expect(got(p), p).toEqual(expected(p));
    expect(quickStatFast()).toBe(false);
  });

  it('a deprecation warning while the binding is taken turns it off, and the warning is not passed on', async () => {
    const t = tree();
    const p = process as unknown as { binding: (name: string) => unknown };
    const real = p.binding;
    const seen: unknown[] = [];
    const onWarning = (w: unknown) => seen.push(w);
    process.on('warning', onWarning);
    p.binding = function (this: unknown, name: string) {
      process.emitWarning('process.binding() is deprecated', 'DeprecationWarning', 'DEP0111');
      return real.call(this, name);
    };
    try {
      resetQuickStat();
      expect(got(t.file)).toEqual(expected(t.file));
      expect(got(t.sub)).toEqual(expected(t.sub));
      expect(quickStatFast()).toBe(false);
      // warnings go out on the next tick: none came
      await new Promise((r) => setTimeout(r, 20));
      expect(seen).toEqual([]);
    } finally {
      p.binding = real;
      process.off('warning', onWarning);
    }
  });

  it('--pending-deprecation (process.binding would warn) turns it off: a listing writes nothing to stderr', () => {
    const home = tempHome();
    fs.mkdirSync(path.join(home, '.claude', 'projects', '-tmp-x'), { recursive: true });
    fs.writeFileSync(
      path.join(home, '.claude', 'projects', '-tmp-x', '11111111-2222-4333-8444-555555555555.jsonl'),
      `${JSON.stringify({
        type: 'user',
        sessionId: '11111111-2222-4333-8444-555555555555',
        cwd: '/tmp/x',
        timestamp: '2026-01-01T00:00:00.000Z',
        message: { role: 'user', content: 'hello there' },
      })}\n`,
    );
    for (const extra of [{ NODE_OPTIONS: '--pending-deprecation' }, { NODE_PENDING_DEPRECATION: '1' }]) {
      for (let i = 0; i < 2; i++) {
        const r = run(home, ['rows'], extra);
        expect(r.code).toBe(0);
        expect(r.stderr).toBe('');
        expect(r.stdout).toContain('hello there');
      }
    }
  });
});

/** the paths as check.bin holds them: UTF-8, NUL between; with where each lies */
function packed(paths: string[]): { buf: Buffer; at: Array<[number, number]> } {
  const parts = paths.map((p) => Buffer.from(p, 'utf8'));
  const at: Array<[number, number]> = [];
  let o = 0;
  for (const b of parts) {
    at.push([o, o + b.length]);
    o += b.length + 1;
  }
  // inside a larger buffer, as a read file's bytes are (a view's offset must be honoured)
  const whole = Buffer.concat([Buffer.from('pad'), ...parts.flatMap((b) => [b, Buffer.from([0])])]);
  return { buf: whole.subarray(3), at };
}

const arr = (s: Float64Array) => (s[0] === NONE ? [NONE] : Array.from(s));
/** the numbers but the ctime (statIn leaves it out) */
const noCtime = (a: number[]) => a.map((x, i) => (i === 3 ? 0 : x));

/**
 * Stat packed absolute paths through a walk as the listing does: each path's directory told by
 * where the first path of a run in that directory has it, and whether the next path is in it too.
 */
function walkAll(walk: StatInDirs, buf: Buffer, at: Array<[number, number]>, each?: (i: number) => void): number[][] {
  const out: number[][] = [];
  let dir = -1;
  let dirLen = 0;
  const dirOf = (i: number) => {
    const [s, e] = at[i];
    // (as the listing does: only an absolute path is stat'ed from its directory)
    const sl = buf[s] === 0x2f ? buf.lastIndexOf(0x2f, e - 1) : -1;
    return sl >= s && sl < e - 1 ? { s, len: sl - s } : null;
  };
  const same = (a: { s: number; len: number } | null, b: { s: number; len: number } | null) =>
    !!a && !!b && a.len === b.len && buf.compare(buf, a.s, a.s + a.len, b.s, b.s + b.len) === 0;
  for (let i = 0; i < at.length; i++) {
    each?.(i);
    const [s, e] = at[i];
    const d = dirOf(i);
    if (!d) {
      out.push(noCtime(arr(walk.statWhole(buf, s, e))));
      dir = -1;
      continue;
    }
    if (!(dir >= 0 && same({ s: dir, len: dirLen }, d))) {
      dir = d.s;
      dirLen = d.len;
    }
    const more = i + 1 < at.length && same(d, dirOf(i + 1));
    const name = s + d.len + 1;
    out.push(noCtime(arr(more ? walk.statEntering(buf, dir, dirLen, name, e) : walk.statIn(buf, dir, dirLen, name, e))));
  }
  return out;
}

describe('stat from bytes, and from inside each directory', () => {
  afterEach(() => resetQuickStat());

  it('quickStatBytes gives what quickStat gives for the same path, with or without the binding', () => {
    const t = tree();
    const paths = Object.values(t);
    const { buf, at } = packed(paths);
    for (const off of [false, true]) {
      resetQuickStat(off);
      for (const [i, p] of paths.entries()) expect(arr(quickStatBytes(buf, at[i][0], at[i][1])), p).toEqual(expected(p));
      // without the ctime: the rest the same, the ctime NaN once the binding is in use
      paths.forEach((p, i) => {
        const got = arr(quickStatBytes(buf, at[i][0], at[i][1], false));
        expect(noCtime(got), p).toEqual(noCtime(expected(p)));
        if (!off && got.length > 1) expect(got[3], p).toBeNaN();
      });
    }
  });

  it('quickStatBytes: paths of one length one after another (each its own), a shorter one after them, and a path longer than PATH_MAX', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'resume-qsb-'));
    fs.writeFileSync(path.join(dir, 'a1'), 'x');
    fs.writeFileSync(path.join(dir, 'a2'), 'xyz');
    fs.mkdirSync(path.join(dir, 'a3'));
    const long = path.join(dir, ...Array<string>(25).fill('n'.repeat(200)), 'f');
    const paths = [
      path.join(dir, 'a1'),
      path.join(dir, 'a2'),
      path.join(dir, 'a3'),
      path.join(dir, 'a4'),
      path.join(dir, 'a'),
      path.join(dir, 'a2'),
      long,
    ];
    const { buf, at } = packed(paths);
    for (const off of [false, true]) {
      resetQuickStat(off);
      for (const [i, p] of paths.entries()) expect(arr(quickStatBytes(buf, at[i][0], at[i][1])), p).toEqual(expected(p));
    }
    expect(arr(quickStatBytes(buf, at[1][0], at[1][1]))[1]).toBe(3);
  });

  it('StatInDirs: the same numbers for paths in many directories (odd names, missing ones, one removed under it), and the working directory back after', () => {
    const t = tree();
    const d = path.dirname(t.file);
    const odd = path.join(d, 'dir with \u00e9 $`\'"\n and\ttabs');
    fs.mkdirSync(odd);
    fs.writeFileSync(path.join(odd, 'f.jsonl'), 'abc');
    fs.writeFileSync(path.join(odd, 'g.jsonl'), 'abcdef');
    const gone = path.join(d, 'gone');
    const mkGone = () => {
      fs.mkdirSync(gone);
      fs.writeFileSync(path.join(gone, 'h.jsonl'), 'h');
      fs.writeFileSync(path.join(gone, 'i.jsonl'), 'i');
    };
    mkGone();
    const paths = [
      t.file,
      path.join(odd, 'f.jsonl'),
      path.join(odd, 'g.jsonl'),
      path.join(gone, 'h.jsonl'),
      path.join(gone, 'i.jsonl'),
      t.missing,
      t.notDir,
      path.join(odd, 'f.jsonl'),
      path.join(t.sub, 'nothing'),
      t.sub,
      '/',
    ];
    const { buf, at } = packed(paths);
    const cwd = process.cwd();
    for (const off of [false, true]) {
      resetQuickStat(off);
      const want = paths.map(expected);
      // the directory removed just before the walk enters it: entering fails, each path is stat'ed whole
      const got = walkAll(new StatInDirs(), buf, at, (i) => {
        if (i !== 3) return;
        fs.rmSync(gone, { recursive: true, force: true });
        want[3] = expected(paths[3]);
        want[4] = expected(paths[4]);
      });
      expect(want[4]).toEqual([NONE]);
      expect(got).toEqual(want.map(noCtime));
      expect(process.cwd()).toBe(cwd);
      mkGone();
    }
  });

  it('StatInDirs enters a directory only for a second name in it, returns for a relative path, and stats a name written apart from its directory', () => {
    const t = tree();
    const d = path.dirname(t.file);
    const names = ['a.jsonl', 'b.jsonl', 'c.jsonl'];
    for (const n of names) fs.writeFileSync(path.join(t.sub, n), n);
    const cwd = process.cwd();
    const chdir = process.chdir;
    const went: string[] = [];
    process.chdir = ((dir: string) => {
      went.push(dir);
      chdir(dir);
    }) as typeof process.chdir;
    try {
      // (a relative path right after a directory was entered: stat'ed from where the walk started)
      const rel = path.relative(cwd, path.join(t.sub, 'b.jsonl'));
      const paths = [...names.map((n) => path.join(t.sub, n)), rel, t.file, path.join(d, 'missing'), path.join(t.sub, 'a.jsonl')];
      const { buf, at } = packed(paths);
      // (what to expect taken first, from here: the walk may still be in a directory until done())
      const want = paths.map((p) => noCtime(expected(p)));
      const walk = new StatInDirs();
      const got = walkAll(walk, buf, at);
      walk.done();
      expect(got).toEqual(want);
      // the check that it can go back, the sub directory once for three files, back for the relative
      // path, the tree's own for two names; a lone path in a directory is stat'ed whole
      expect(went).toEqual([cwd, t.sub, cwd, d, cwd]);
      expect(process.cwd()).toBe(cwd);
      // a name whose directory's bytes lie elsewhere (a short name in check.bin), the directory not
      // entered (a worker thread would not): its path is put together
      const dirB = Buffer.from(t.sub);
      const nameB = Buffer.from('xx b.jsonl');
      const both = Buffer.concat([dirB, nameB]);
      expect(noCtime(arr(new StatInDirs().statIn(both, 0, dirB.length, dirB.length + 3, both.length)))).toEqual(
        noCtime(expected(path.join(t.sub, 'b.jsonl'))),
      );
      // the same for paths as strings (the remembered directories)
      went.length = 0;
      const dirs = [
        t.sub,
        path.join(d, 'missing'),
        path.join(t.sub, 'a.jsonl'),
        path.join(t.sub, 'b.jsonl'),
        path.relative(cwd, t.file),
        '/',
      ];
      const w2 = new StatInDirs();
      for (const [i, p] of dirs.entries()) expect(arr(w2.statPath(p, dirs[i + 1])), p).toEqual(expected(p));
      w2.done();
      expect(went).toEqual([cwd, d, t.sub, cwd]);
    } finally {
      process.chdir = chdir;
    }
  });
});
