// Issue 15: rows.out, the rows the last no-change `resume rows` printed, printed again while the
// listing, the home, the snapshot names and every age but the ones it renews stand. It must never
// print a stale listing, a stale age, or anything from a damaged file.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { printAligned, printRowBin, readRowBin, rowBinChunks } from '../lib/index/rowbin.js';
import { HORIZON_MS, namesSig, printRowsOut, type RowsOutKey, RowsTape } from '../lib/index/rowsout.js';
import { ageCode, nextAgeChange } from '../lib/util/time.js';
import { jsonl, must, run, tempDir, tempHome, write } from './helpers.js';

describe('nextAgeChange', () => {
  const S = 1000;
  const M = 60 * S;
  const H = 60 * M;
  const D = 24 * H;
  // the true change is a millisecond after what it gives: the same age up to it, another one after
  const check = (ms: number, now: number) => {
    const next = nextAgeChange(ms, now);
    const code = ageCode(ms, now);
    expect(next).toBeGreaterThan(now - 1);
    expect(ageCode(ms, next), `${ms} ${now}`).toBe(code);
    expect(ageCode(ms, next + 1), `${ms} ${now}`).not.toBe(code);
    // and nowhere in between (sampled)
    for (let k = 1; k < 16; k++) expect(ageCode(ms, now + Math.floor(((next - now) * k) / 16))).toBe(code);
  };

  it('finds the next step of every unit, and the step into the next unit', () => {
    const t = Date.UTC(2026, 0, 1);
    const ages = [
      0,
      499,
      500,
      1 * S,
      59 * S + 499,
      59 * S + 500,
      61 * S,
      59 * M + 30 * S,
      2 * H + 5,
      23 * H + 59 * M + 59 * S + 499,
      1 * D,
      13 * D + 5,
      14 * D,
      20 * D,
      55 * D,
      59 * D + 23 * H,
      60 * D,
      89 * D,
      360 * D,
      364 * D + 23 * H,
      365 * D,
      800 * D,
      2000 * D + 17,
    ];
    for (const a of ages) check(t, t + a);
  });

  it('agrees with ageCode over many random times, future ones included', () => {
    let seed = 42;
    const rnd = () => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed / 2 ** 31;
    };
    for (let i = 0; i < 3000; i++) {
      const now = 1_790_000_000_000 + Math.floor(rnd() * 1e9);
      // ages from a second to a few years, spread over the units; a few in the future
      const ms = now - Math.floor(Math.exp(rnd() * Math.log(4e11))) + (i % 50 === 0 ? 3e6 : 0);
      check(ms, now);
    }
  });

  it('an unknown time never changes', () => {
    expect(nextAgeChange(null, Date.now())).toBe(Infinity);
  });
});

/** rows.bin of these sessions (the listing a build writes), read back. */
function listing(id: string, home: string, times: number[]) {
  const sessions = times.map((t, i) => ({
    s: {
      key: `pi:id-${i}`,
      id: `id-${i}`,
      harness: 'pi' as const,
      cwd: `${home}/p${i}`,
      title: `session ${i}`,
      firstPrompt: 'first ask',
      branch: 'main',
      started: t,
      updated: t,
      hidden: i === 2,
      hiddenReason: i === 2 ? 'subagent' : null,
      prompts: 1,
    },
    short: `id-${i}`,
  }));
  return must(readRowBin(Buffer.concat(must(rowBinChunks(id, home, sessions)))));
}

const printed = (f: (w: (b: Uint8Array) => void) => unknown) => {
  const out: Buffer[] = [];
  const r = f((b) => out.push(Buffer.from(b)));
  return { r, text: Buffer.concat(out).toString() };
};

describe('rows.out, as a file', () => {
  const now = Date.UTC(2026, 10, 30, 12, 0, 0);
  const times = [now - 30_000, now - 20 * 60_000, now - 5 * 3_600_000, now - 3 * 86_400_000 - 7 * 60_000, now - 200 * 86_400_000];
  const key: RowsOutKey = { id: 'build-1', home: '/home/u', names: 'abc:-' };

  function saved(all = false) {
    const dir = tempDir();
    const file = path.join(dir, 'rows.out');
    const bin = listing(key.id, key.home, times);
    const tape = new RowsTape(now);
    const first = printed((w) => printRowBin(bin, { all }, { readNames: () => ({}), now, write: w, tape })).text;
    tape.save(file, key);
    return { file, bin, first };
  }

  it('prints what was printed, and later the ages of rows.bin at that time: the recent ones renewed, the rest until one would change', () => {
    const { file, bin, first } = saved();
    expect(first.split('\n').filter(Boolean)).toHaveLength(4); // the hidden one left out
    expect(printed((w) => printRowsOut(file, key, now, w))).toEqual({ r: true, text: first });
    // minutes and hours later: the seconds, minutes and hours ages move, the days and months stay
    for (const later of [now + 1_000, now + 61_000, now + 30 * 60_000, now + 59 * 60_000]) {
      const want = printed((w) => printRowBin(bin, {}, { readNames: () => ({}), now: later, write: w })).text;
      expect(printed((w) => printRowsOut(file, key, later, w))).toEqual({ r: true, text: want });
    }
    // 3d 0h 7m ago turns 4d in under 24 h: past that rows.out is not used
    const head = fs.readFileSync(file).toString('latin1').split('\n')[0].split(' ');
    const until = Number(head[3]);
    expect(until - now).toBeGreaterThan(HORIZON_MS);
    expect(until - now).toBeLessThan(86_400_000);
    expect(printed((w) => printRowsOut(file, key, until - 1, w))).toEqual({
      r: true,
      text: printed((w) => printRowBin(bin, {}, { readNames: () => ({}), now: until - 1, write: w })).text,
    });
    expect(printed((w) => printRowsOut(file, key, until, w))).toEqual({ r: false, text: '' });
    // a clock that went back
    expect(printRowsOut(file, key, now - 1, () => {})).toBe(false);
  });

  it('copies a large file out a window at a time, with renewed ages past the first window too', () => {
    // 12,000 rows (~600 KB), the recent ones at the top, in the middle and at the end
    const ts = Array.from({ length: 12000 }, (_, i) =>
      i % 4500 === 7 || i === 11999 ? now - (i % 50) * 60_000 - 1000 : now - 40 * 86_400_000 - i * 1000,
    );
    const dir = tempDir();
    const file = path.join(dir, 'rows.out');
    const bin = listing(key.id, key.home, ts);
    const tape = new RowsTape(now);
    const first = printed((w) => printRowBin(bin, { all: true }, { readNames: () => ({}), now, write: w, tape })).text;
    tape.save(file, key);
    expect(first.length).toBeGreaterThan(512 << 10);
    for (const later of [now, now + 90_000, now + 30 * 60_000]) {
      const want = printed((w) => printRowBin(bin, { all: true }, { readNames: () => ({}), now: later, write: w })).text;
      expect(printed((w) => printRowsOut(file, key, later, w))).toEqual({ r: true, text: want });
    }
  });

  it('is of one listing, home and names file; --all has its own', () => {
    const { file } = saved();
    for (const other of [
      { ...key, id: 'build-2' },
      { ...key, home: '/home/v' },
      { ...key, names: 'abc:1.2.3.4' },
    ]) {
      expect(printRowsOut(file, other, now, () => {})).toBe(false);
    }
    const all = saved(true);
    expect(all.first.split('\n').filter(Boolean)).toHaveLength(5);
    expect(printed((w) => printRowsOut(all.file, key, now, w)).text).toBe(all.first);
  });

  it('is not used when it is damaged, cut short, grown or of another version (nothing is printed)', () => {
    const { file } = saved();
    const good = fs.readFileSync(file);
    const nl = good.indexOf(10);
    const bad: Buffer[] = [
      good.subarray(0, good.length - 1),
      Buffer.concat([good, Buffer.from('x')]),
      Buffer.from('garbage'),
      Buffer.alloc(0),
      Buffer.from(good.toString('latin1').replace(/^o\d+ /, 'o999 '), 'latin1'),
      // an age column wider than its cap, or an age wider than its column
      Buffer.from(good.toString('latin1').replace(/ 0 0 0 /, ' 9 0 0 '), 'latin1'),
      Buffer.from(good.toString('latin1').replace(/ 0 0 0 /, ' 2 0 3 '), 'latin1'),
    ];
    // a dynamic row's place past the body, and out of order
    const far = Buffer.from(good);
    far.writeUInt32LE(0xffffff, nl + 1 + 4);
    const back = Buffer.from(good);
    back.writeUInt32LE(back.readUInt32LE(nl + 1 + 16), nl + 1 + 16 + 4);
    back.writeUInt32LE(0, nl + 1 + 16);
    bad.push(far, back);
    for (const b of bad) {
      fs.writeFileSync(file, b);
      expect(printed((w) => printRowsOut(file, key, now, w))).toEqual({ r: false, text: '' });
    }
    fs.rmSync(file);
    expect(printRowsOut(file, key, now, () => {})).toBe(false);
  });

  it('namesSig changes with the names file and its path', () => {
    const dir = tempDir();
    const f = path.join(dir, 'names.json');
    const none = namesSig(f);
    fs.writeFileSync(f, '{}');
    const one = namesSig(f);
    expect(one).not.toBe(none);
    fs.writeFileSync(f, '{"a":"b"}');
    expect(namesSig(f)).not.toBe(one);
    expect(namesSig(path.join(dir, 'other.json'))).not.toBe(none);
  });
});

describe("rows.out's aligned kind (the picker's padded lines)", () => {
  const now = Date.UTC(2026, 10, 30, 12, 0, 0);
  const key: RowsOutKey = { id: 'build-1', home: '/home/u', names: 'abc:-' };
  /** rows with these times and labels (a label or directory out of ASCII is laid out by alignLine) */
  function bin(rows: { t: number; label?: string; cwd?: string; hidden?: boolean }[]) {
    const sessions = rows.map((x, i) => ({
      s: {
        key: `pi:id-${i}`,
        id: `id-${i}`,
        harness: (i % 2 ? 'claude' : 'pi') as 'pi',
        cwd: x.cwd ?? `/home/u/p${i}`,
        title: x.label ?? `session ${i}`,
        firstPrompt: 'ask',
        branch: i % 3 ? 'main' : null,
        started: x.t,
        updated: x.t,
        hidden: !!x.hidden,
        hiddenReason: x.hidden ? 'subagent' : null,
        prompts: 1,
      },
      short: `id-${i}`,
    }));
    return must(readRowBin(Buffer.concat(must(rowBinChunks(key.id, key.home, sessions)))));
  }
  const lines = (r: ReturnType<typeof bin>, at: number, color: boolean, all: boolean, tape?: RowsTape) =>
    printed((w) =>
      printAligned(
        r,
        { all },
        { readNames: () => ({}), now: at, color, head: (shown, hidden) => `\tstatus ${shown} ${hidden}\n`, write: w, tape },
      ),
    ).text;

  it("renews the ages of recent lines, coloured or not, through alignLine's lines too, while the age column keeps its width", () => {
    const r = bin([
      { t: now - 40_000 },
      { t: now - 9 * 60_000, label: 'répertoire ünïcode' },
      { t: now - 3 * 3_600_000, cwd: '/home/u/日本語' },
      { t: now - 2 * 86_400_000, hidden: true },
      { t: now - 100 * 86_400_000 },
    ]);
    for (const color of [false, true]) {
      for (const all of [false, true]) {
        const file = path.join(tempDir(), 'rows-align.out');
        const tape = new RowsTape(now, { color });
        const first = lines(r, now, color, all, tape);
        tape.save(file, key);
        expect(printed((w) => printRowsOut(file, key, now, w))).toEqual({ r: true, text: first });
        for (const later of [now + 25_000, now + 70_000, now + 50 * 60_000]) {
          expect(
            printed((w) => printRowsOut(file, key, later, w)),
            `${color} ${all} ${later - now}`,
          ).toEqual({ r: true, text: lines(r, later, color, all) });
        }
      }
    }
  });

  it('is not used when a renewed age would make the age column wider or narrower', () => {
    // every line's age is 2 wide but the recent one's (10m): the column is 3 wide, until it reads 1h
    const r = bin([{ t: now - 10 * 60_000 }, { t: now - 3 * 86_400_000 }, { t: now - 5 * 86_400_000 }]);
    const file = path.join(tempDir(), 'rows-align.out');
    const tape = new RowsTape(now, { color: false });
    const first = lines(r, now, false, false, tape);
    tape.save(file, key);
    expect(first.split('\n')[1]).toMatch(/\t\S+ {2}10m {2}pi/);
    expect(printed((w) => printRowsOut(file, key, now + 30 * 60_000, w))).toEqual({
      r: true,
      text: lines(r, now + 30 * 60_000, false, false),
    });
    // at 1h the column is 2 wide: every line changes
    const later = lines(r, now + 50 * 60_000 + 1000, false, false);
    expect(later.split('\n')[2]).toMatch(/\t\S+ {2}3d {2}claude/);
    expect(printRowsOut(file, key, now + 50 * 60_000 + 1000, () => {})).toBe(false);
    // an aligned file whose lines hold no age column (every age wider than the column's cap) is not written
    const none = new RowsTape(now, { color: false });
    none.ageWidth(0);
    none.save(path.join(path.dirname(file), 'none.out'), key);
    expect(fs.existsSync(path.join(path.dirname(file), 'none.out'))).toBe(false);
  });
});

describe('rows.out, as `resume rows` uses it', () => {
  const ago = (ms: number) => new Date(Date.now() - ms).toISOString();
  function piSession(h: string, n: number, cwd: string, text: string, ts: string): string {
    const id = `${String(n).padStart(8, '0')}-3333-4333-8333-333333333333`;
    // (the prompt typed seconds after the session began: one at once is a print run, hidden)
    const at = (s: number) => new Date(Date.parse(ts) + s * 1000).toISOString();
    write(
      h,
      `.pi/agent/sessions/-${cwd.replace(/\//g, '-')}--/2026-01-01T00-00-00-000Z_${id}.jsonl`,
      jsonl(
        { type: 'session', version: 3, id, timestamp: ts, cwd },
        {
          type: 'message',
          id: 'm1',
          parentId: null,
          timestamp: at(5),
          message: { role: 'user', content: [{ type: 'text', text }], timestamp: Date.parse(at(5)) },
        },
        {
          type: 'message',
          id: 'm2',
          parentId: 'm1',
          timestamp: at(9),
          message: { role: 'assistant', content: [{ type: 'text', text: 'done' }], timestamp: Date.parse(at(9)) },
        },
      ),
    );
    return id;
  }
  const cache = (h: string) => path.join(h, '.cache', 'resume');
  const rows = (h: string, args: string[] = []) => {
    const r = run(h, ['rows', ...args]);
    expect(r.code, r.stderr).toBe(0);
    return r.stdout;
  };
  const noAge = (out: string) =>
    out.split('\n').map((l) =>
      l
        .split('\t')
        .filter((_, i) => i !== 2)
        .join('\t'),
    );

  it('a no-change listing prints it without opening rows.bin; a change, a new names file or a filter does not use it', () => {
    const h = tempHome();
    const a = piSession(h, 1, '/tmp/a', 'alpha prompt', ago(90 * 86_400_000));
    piSession(h, 2, '/tmp/b', 'beta prompt', ago(20 * 60_000));
    const built = rows(h); // a build: rows.out is written by the next listing, which renders from rows.bin
    expect(built.split('\n').filter(Boolean)).toHaveLength(2);
    expect(fs.existsSync(path.join(cache(h), 'rows.out'))).toBe(false);
    expect(noAge(rows(h))).toEqual(noAge(built));
    const out = path.join(cache(h), 'rows.out');
    expect(fs.existsSync(out)).toBe(true);
    expect(fs.statSync(out).mode & 0o777).toBe(0o600);
    // rows.bin made unreadable as a listing: a run that prints rows.out never opens it
    const bin = path.join(cache(h), 'rows.bin');
    fs.writeFileSync(bin, 'garbage');
    expect(noAge(rows(h))).toEqual(noAge(built));
    expect(fs.readFileSync(bin, 'utf8')).toBe('garbage');
    // --all has a file of its own; a harness or directory filter reads and writes none
    rows(h, ['-a']);
    rows(h, ['-a']);
    expect(fs.existsSync(path.join(cache(h), 'rows-all.out'))).toBe(true);
    const stamp = fs.statSync(out).mtimeMs;
    expect(rows(h, ['--harness', 'pi']).split('\n').filter(Boolean)).toHaveLength(2);
    expect(rows(h, ['--dir', '/tmp/a']).split('\n').filter(Boolean)).toHaveLength(1);
    expect(fs.statSync(out).mtimeMs).toBe(stamp);
    // an append changes the listing: never the rows of before
    const file = fs
      .readdirSync(path.join(h, '.pi/agent/sessions/--tmp-a--'))
      .map((f) => path.join(h, '.pi/agent/sessions/--tmp-a--', f))[0];
    fs.appendFileSync(
      file,
      jsonl({
        type: 'message',
        id: 'm3',
        parentId: 'm2',
        timestamp: ago(0),
        message: { role: 'user', content: [{ type: 'text', text: 'a later ask' }], timestamp: Date.now() },
      }),
    );
    const after = rows(h);
    expect(after.split('\n')[0].startsWith(`pi:${a}\t`)).toBe(true);
    expect(after.split('\n')[0].split('\t')[2]).toMatch(/^\d+s$/);
    expect(noAge(rows(h))).toEqual(noAge(after));
  }, 30_000);

  it("the picker's padded list keeps its own, by its flags; a build removes them all", () => {
    const h = tempHome();
    piSession(h, 1, '/tmp/a', 'alpha prompt', ago(90 * 86_400_000));
    piSession(h, 2, '/tmp/b', 'beta prompt', ago(20 * 60_000));
    rows(h);
    const list = rows(h, ['--align', '--status']);
    const file = path.join(cache(h), 'rows-align-status.out');
    expect(fs.existsSync(file)).toBe(true);
    const bytes = fs.readFileSync(file);
    expect(noAge(rows(h, ['--align', '--status']))).toEqual(noAge(list));
    expect(fs.readFileSync(file).equals(bytes)).toBe(true);
    rows(h, ['--align', '--status', '--ansi', '-a']);
    expect(fs.existsSync(path.join(cache(h), 'rows-align-all-status-color.out'))).toBe(true);
    rows(h, ['--align', '--status', '--harness', 'pi']);
    expect(fs.readdirSync(cache(h)).filter((f) => f.startsWith('rows-align'))).toHaveLength(2);
    // a new session: the listing is built again (not patched: a new pi file), and every kept file goes
    expect(rows(h, ['--align', '--status']).split('\n')).toHaveLength(4);
    piSession(h, 3, '/tmp/c', 'gamma prompt', ago(5 * 86_400_000));
    expect(run(h, ['index', '--rebuild']).code).toBe(0);
    expect(fs.readdirSync(cache(h)).filter((f) => f.endsWith('.out'))).toEqual([]);
    expect(rows(h, ['--align', '--status']).split('\n')).toHaveLength(5);
  }, 30_000);

  it('TAB on an empty word keeps its candidates (complete.out), for the same listing only; a word or a filter neither reads nor writes it', () => {
    const h = tempHome();
    const a = piSession(h, 1, '/tmp/a', 'alpha prompt', ago(90 * 86_400_000));
    piSession(h, 2, '/tmp/b', 'beta prompt', ago(20 * 60_000));
    const tab = (words: string[]) => {
      const r = run(h, ['__complete', '--', ...words]);
      expect(r.code, r.stderr).toBe(0);
      return r.stdout;
    };
    const noAge = (out: string) => out.replace(/\t\S+ {2}/g, '\t');
    rows(h);
    const first = tab(['']);
    expect(first.split('\n').filter(Boolean)).toHaveLength(2);
    const out = path.join(cache(h), 'complete.out');
    expect(fs.existsSync(out)).toBe(true);
    expect(fs.statSync(out).mode & 0o777).toBe(0o600);
    // rows.bin made unreadable: the next TAB prints complete.out and never opens it
    const bin = path.join(cache(h), 'rows.bin');
    const good = fs.readFileSync(bin);
    fs.writeFileSync(bin, 'garbage');
    expect(noAge(tab(['']))).toBe(noAge(first));
    expect(fs.readFileSync(bin, 'utf8')).toBe('garbage');
    fs.writeFileSync(bin, good);
    const stamp = fs.statSync(out).mtimeMs;
    expect(tab(['0000000']).split('\n').filter(Boolean)).toHaveLength(2);
    expect(tab(['-a', '']).split('\n').filter(Boolean)).toHaveLength(2);
    expect(tab(['--harness', 'claude', ''])).toBe('');
    expect(fs.statSync(out).mtimeMs).toBe(stamp);
    // an append changes the listing: its session first, never the candidates of before
    const file = fs
      .readdirSync(path.join(h, '.pi/agent/sessions/--tmp-a--'))
      .map((f) => path.join(h, '.pi/agent/sessions/--tmp-a--', f))[0];
    fs.appendFileSync(
      file,
      jsonl({
        type: 'message',
        id: 'm3',
        parentId: 'm2',
        timestamp: ago(0),
        message: { role: 'user', content: [{ type: 'text', text: 'a later ask' }], timestamp: Date.now() },
      }),
    );
    const after = tab(['']);
    expect(after.split('\n')[0].startsWith(`${a.slice(0, 8)}\t`)).toBe(true);
    expect(noAge(tab(['']))).toBe(noAge(after));
  }, 30_000);

  it('`ls` into a pipe keeps what it printed and said (ls.out), for the same listing only', () => {
    const h = tempHome();
    piSession(h, 1, '/tmp/a', 'alpha prompt', ago(90 * 86_400_000));
    piSession(h, 2, '/tmp/b', 'beta prompt', ago(20 * 60_000));
    // a print run (its prompt at once): hidden, and counted on stderr
    const at = ago(30 * 86_400_000);
    const pid = '00000009-3333-4333-8333-333333333333';
    write(
      h,
      `.pi/agent/sessions/--tmp-p--/2026-01-01T00-00-00-000Z_${pid}.jsonl`,
      jsonl(
        { type: 'session', version: 3, id: pid, timestamp: at, cwd: '/tmp/p' },
        {
          type: 'message',
          id: 'm1',
          parentId: null,
          timestamp: at,
          message: { role: 'user', content: [{ type: 'text', text: 'print run' }], timestamp: Date.parse(at) },
        },
      ),
    );
    rows(h);
    const ls = (args: string[] = []) => {
      const r = run(h, ['ls', ...args]);
      expect(r.code, r.stderr).toBe(0);
      return r;
    };
    const first = ls();
    expect(first.stdout.split('\n').filter(Boolean)).toHaveLength(2);
    expect(first.stderr).toMatch(/^\+1 hidden/);
    const file = path.join(cache(h), 'ls.out');
    expect(fs.existsSync(file)).toBe(true);
    expect(ls()).toEqual(first);
    // what it holds is what is printed (here changed by hand to tell it was used)
    const kept = fs.readFileSync(file, 'utf8');
    fs.writeFileSync(file, kept.replace('alpha prompt', 'alpha from ls.out'));
    expect(ls().stdout).toContain('alpha from ls.out');
    // a damaged one is written again
    fs.writeFileSync(file, `{"v":1,${kept.slice(7, 40)}`);
    expect(ls()).toEqual(first);
    expect(fs.readFileSync(file, 'utf8')).toBe(kept);
    // --all has its own; -n, --harness and --dir write none
    ls(['-a']);
    expect(fs.existsSync(path.join(cache(h), 'ls-all.out'))).toBe(true);
    fs.rmSync(file);
    ls(['-n', '1']);
    ls(['--harness', 'pi']);
    ls(['--dir', '/tmp/a']);
    expect(fs.existsSync(file)).toBe(false);
    // another listing: an append shows at once
    const f = fs.readdirSync(path.join(h, '.pi/agent/sessions/--tmp-a--')).map((x) => path.join(h, '.pi/agent/sessions/--tmp-a--', x))[0];
    ls();
    fs.appendFileSync(
      f,
      jsonl({
        type: 'message',
        id: 'm3',
        parentId: 'm2',
        timestamp: ago(0),
        message: { role: 'user', content: [{ type: 'text', text: 'a later ask' }], timestamp: Date.now() },
      }),
    );
    expect(ls().stdout.split('\n')[0]).toMatch(/^00000001\t/);
  }, 30_000);

  it('a name given to an untitled Claude session (names.json) is shown at once', () => {
    const h = tempHome();
    const id = '00000007-2222-4222-8222-222222222222';
    write(
      h,
      `.claude/projects/-tmp-n/${id}.jsonl`,
      jsonl({
        parentUuid: null,
        isSidechain: false,
        userType: 'external',
        cwd: '/tmp/n',
        sessionId: id,
        version: '2.1.207',
        gitBranch: 'main',
        type: 'user',
        message: { role: 'user', content: 'untitled ask' },
        uuid: 'u1',
        timestamp: ago(40 * 86_400_000),
        entrypoint: 'cli',
      }),
    );
    rows(h);
    rows(h);
    expect(fs.existsSync(path.join(cache(h), 'rows.out'))).toBe(true);
    expect(rows(h)).toMatch(/\tuntitled ask\n$/);
    write(h, '.config/resume/sessions/names.json', JSON.stringify({ [id]: 'named later' }));
    expect(rows(h)).toMatch(/\tnamed later\n$/);
    expect(rows(h)).toMatch(/\tnamed later\n$/);
  }, 30_000);
});
