// `resume rows` and `resume preview` load their bundle with V8's code cache (lib/util/codecache.ts)
// and write rows with write(2) (lib/util/stdout.ts). The cache must never change what is printed:
// made once, reused, damaged ones replaced, an unwritable cache directory harmless. Rows written
// straight to the descriptor must arrive whole on a pipe made non-blocking, and a closed reader
// is a quiet exit 0.

import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { cacheFileFor, loadCached, WRAP_HEAD, WRAP_TAIL } from '../lib/util/codecache.js';
import { BIN, envFor, must, needs, ROOT, run, tempHome } from './helpers.js';
import { claudeSession, TAIL } from './launch-helpers.js';
import { claudeHome } from './shell-helpers.js';

/** Many sessions (more rows than a pipe holds), with a cache directory of their own. */
function home(n: number): string {
  const h = tempHome('resume-codecache-');
  const dir = path.join(h, 'src', 'proj');
  fs.mkdirSync(dir, { recursive: true });
  claudeHome(
    Array.from({ length: n }, (_, i) => ({
      id: `${(0xc0de0000 + i).toString(16)}-4e5f-4061-8071-${TAIL}`,
      cwd: dir,
      prompt: `task ${i} ${'with a long prompt to fill the row '.repeat(4)}`,
      at: new Date(Date.UTC(2025, 0, 1) + i * 60_000).toISOString(),
    })),
    h,
  );
  return h;
}

const codeDir = (h: string) => path.join(h, '.cache', 'resume', 'code');
/** The index built (by `resume index`, the CLI's bundle): the next `rows` is a plain run, which writes its cache. */
const indexed = (h: string) => expect(run(h, ['index']).code).toBe(0);
const caches = (h: string) => (fs.existsSync(codeDir(h)) ? fs.readdirSync(codeDir(h)).filter((f) => f.endsWith('.v8')) : []);

describe('the code cache of rows and preview', () => {
  it('is made by the first plain run (not one that built the index), 0600, reused unchanged, and made again once by the first append', () => {
    const h = home(20);
    const first = run(h, ['rows']);
    expect(first.code).toBe(0);
    expect(first.stderr).toBe('');
    expect(first.stdout.split('\n')).toHaveLength(21);
    // the first run built the index: what it compiled (the parsers) is not what a listing runs
    expect(caches(h)).toHaveLength(0);
    expect(run(h, ['rows'])).toEqual(first);
    const made = caches(h);
    expect(made).toHaveLength(1);
    const file = path.join(codeDir(h), made[0]);
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    expect(fs.statSync(file).size).toBeGreaterThan(1000);
    const bytes = fs.readFileSync(file);
    const again = run(h, ['rows']);
    expect(again).toEqual(first);
    expect(fs.readFileSync(file).equals(bytes)).toBe(true);
    // preview goes through the same loader, with a cache of its own (each holds what its command compiled)
    const key = first.stdout.split('\t')[0];
    const p1 = run(h, ['preview', key]);
    expect(p1.code).toBe(0);
    expect(p1.stdout).toContain('task 19');
    expect(run(h, ['preview', key])).toEqual(p1);
    expect(caches(h)).toHaveLength(2);
    expect(fs.readFileSync(file).equals(bytes)).toBe(true);
    // the picker's list compiles what plain rows never runs: a cache of its own, and plain rows' stands
    const list = run(h, ['rows', '--align', '--status']);
    expect(list.code).toBe(0);
    expect(list.stdout.split('\n')).toHaveLength(22);
    expect(caches(h).filter((f) => f.endsWith('-rows-align.v8'))).toHaveLength(1);
    expect(run(h, ['rows', '--align', '--status'])).toEqual(list);
    expect(run(h, ['rows'])).toEqual(first);
    expect(fs.readFileSync(file).equals(bytes)).toBe(true);
    // an append (the index patched) recurs: the first one writes the cache again, holding its code
    // too (a flag in the header), and the runs after leave that one as it is
    const jsonl = must(
      fs
        .readdirSync(path.join(h, '.claude', 'projects'), { recursive: true })
        .map(String)
        .find((f) => f.endsWith('.jsonl')),
    );
    const f0 = path.join(h, '.claude', 'projects', jsonl);
    const grow = () => fs.appendFileSync(f0, `${fs.readFileSync(f0, 'utf8').split('\n')[0]}\n`);
    const holdsAppend = (b: Buffer) => b.readUInt32LE(8) === 1;
    expect(holdsAppend(bytes)).toBe(false);
    grow();
    const appended = run(h, ['rows']);
    expect(appended.code).toBe(0);
    expect(appended.stdout.split('\n')).toHaveLength(21);
    const withAppend = fs.readFileSync(file);
    expect(holdsAppend(withAppend)).toBe(true);
    expect(withAppend.length).toBeGreaterThan(bytes.length);
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    grow();
    const again2 = run(h, ['rows']);
    expect(again2.code).toBe(0);
    expect(fs.readFileSync(file).equals(withAppend)).toBe(true);
    expect(run(h, ['rows'])).toEqual(again2);
    expect(fs.readFileSync(file).equals(withAppend)).toBe(true);
    // with none, an append writes one that holds it
    fs.rmSync(file);
    grow();
    const plain = () => caches(h).filter((f) => f.endsWith('-rows.v8'));
    expect(run(h, ['rows']).code).toBe(0);
    expect(plain()).toHaveLength(1);
    expect(holdsAppend(fs.readFileSync(path.join(codeDir(h), plain()[0])))).toBe(true);
    // a build (a new session whose id begins as another's: the listing written whole) writes none
    fs.rmSync(path.join(codeDir(h), plain()[0]));
    claudeSession(h, {
      id: `c0de0001-ffff-4061-8071-${TAIL}`,
      cwd: path.join(h, 'src', 'proj'),
      prompt: 'a twin',
      at: new Date(Date.UTC(2025, 0, 2)).toISOString(),
    });
    expect(run(h, ['rows']).code).toBe(0);
    expect(plain()).toHaveLength(0);
    expect(run(h, ['rows']).code).toBe(0);
    expect(plain()).toHaveLength(1);
    expect(holdsAppend(fs.readFileSync(path.join(codeDir(h), plain()[0])))).toBe(false);
  });

  it('a build that collected garbage on demand (V8 flags changed for a moment) writes no cache; the next run writes one the runs after take', () => {
    const h = home(20);
    // RESUME_GC_EVERY=1 and RESUME_GC_GROWTH=1: a full collection after every file parsed that grew
    // the heap (lib/util/gc.ts turns --expose-gc on and off)
    const first = run(h, ['rows'], { RESUME_GC_EVERY: '1', RESUME_GC_GROWTH: '1', RESUME_DEBUG_GC: '1' });
    expect(first.code).toBe(0);
    // (RESUME_DEBUG_GC: a line for each collection, and nothing else)
    expect(first.stderr).toMatch(/^gc at \d+ bytes: [\d.]+ MiB after\n/);
    expect(first.stderr.replace(/^gc at \d+ bytes: [\d.]+ MiB after\n/gm, '')).toBe('');
    expect(caches(h)).toHaveLength(0);
    expect(run(h, ['rows'])).toEqual({ ...first, stderr: '' });
    const made = caches(h);
    expect(made).toHaveLength(1);
    const file = path.join(codeDir(h), made[0]);
    const bytes = fs.readFileSync(file);
    for (let i = 0; i < 2; i++) expect(run(h, ['rows'])).toEqual({ ...first, stderr: '' });
    expect(fs.readFileSync(file).equals(bytes)).toBe(true);
  });

  it('a search, which changes a V8 flag while it runs, leaves a cache the searches after it take unchanged', () => {
    const h = home(4);
    const first = run(h, ['search', '--json', 'prompt']);
    expect(first.code, first.stderr).toBe(0);
    // (a flag this V8 did not know would have printed an error line)
    expect(first.stderr).toBe('');
    const made = caches(h).filter((f) => f.endsWith('-cli-search.v8'));
    expect(made).toHaveLength(1);
    const file = path.join(codeDir(h), made[0]);
    const bytes = fs.readFileSync(file);
    const ino = fs.statSync(file).ino;
    // saved under the flags it was loaded under, so taken: not written again
    for (let i = 0; i < 2; i++) expect(run(h, ['search', '--json', 'prompt'])).toEqual(first);
    expect(fs.statSync(file).ino).toBe(ino);
    expect(fs.readFileSync(file).equals(bytes)).toBe(true);
  });

  it('the whole CLI keeps one per command, and every command prints the same with it as without', () => {
    const h = home(4);
    const cmds = [
      ['ls', '--json', '-n', '2'],
      ['--version'],
      ['resolve', 'c0de0001'],
      ['emit', '--shell', 'bash', 'c0de0001'],
      ['doctor', '--json'],
    ];
    const first = cmds.map((c) => run(h, c));
    expect(first.map((r) => r.code)).toEqual([0, 0, 0, 0, 0]);
    const names = caches(h).filter((f) => f.startsWith('cli.cjs-'));
    expect(names.map((f) => /-(cli-[\w-]+)\.v8$/.exec(f)?.[1]).sort()).toEqual([
      'cli-doctor',
      'cli-emit',
      'cli-ls',
      'cli-main',
      'cli-resolve',
    ]);
    // from the caches: the same output (doctor's timings aside)
    const again = cmds.map((c) => run(h, c));
    for (let i = 0; i < 4; i++) expect(again[i]).toEqual(first[i]);
    expect(again[4].code).toBe(0);
    // a query is no command: it shares the main cache
    expect(run(h, ['--dry-run', 'c0de0002']).code).toBe(0);
    expect(caches(h).filter((f) => f.startsWith('cli.cjs-'))).toHaveLength(5);
    // `ls` without --json runs from the rows bundle, with a cache of its own there
    const ls = run(h, ['ls', '-n', '2']);
    expect(ls.code).toBe(0);
    expect(run(h, ['ls', '-n', '2'])).toEqual(ls);
    expect(caches(h).filter((f) => f.startsWith('rows.cjs-') && f.endsWith('-ls.v8'))).toHaveLength(1);
    // TAB, on a session word or anywhere else, runs from the rows bundle too
    const tab = run(h, ['__complete', '--', 'c0de000']);
    expect(tab.code).toBe(0);
    expect(tab.stdout).toContain('c0de0001');
    expect(run(h, ['__complete', '--', 'show', 'c0de000']).stdout).toBe(tab.stdout);
    expect(run(h, ['__complete', '--', 'c0de000'])).toEqual(tab);
    expect(caches(h).filter((f) => f.startsWith('rows.cjs-') && f.endsWith('-__complete.v8'))).toHaveLength(1);
    expect(caches(h).filter((f) => f.startsWith('cli.cjs-'))).toHaveLength(5);
  });

  it('a damaged cache is rejected (never run), the output is the same, and a good one replaces it', () => {
    const h = home(20);
    indexed(h);
    const want = run(h, ['rows']);
    const file = path.join(codeDir(h), must(caches(h).find((f) => f.startsWith('rows.cjs'))));
    const good = fs.readFileSync(file);
    // empty, cut short, not a cache at all, a sound header over a damaged body, one bit flipped
    // (the last two crash a Node that does not check the checksum)
    const flipped = Buffer.from(good);
    flipped[flipped.length >> 1] ^= 0x40;
    const damaged = [
      Buffer.alloc(0),
      good.subarray(0, 16),
      Buffer.alloc(good.length, 0x5a),
      Buffer.concat([good.subarray(0, good.length >> 1), Buffer.alloc(good.length - (good.length >> 1), 7)]),
      flipped,
    ];
    for (const bad of damaged) {
      fs.writeFileSync(file, bad);
      const r = run(h, ['rows']);
      expect(r).toEqual(want);
      const now = fs.readFileSync(file);
      expect(now.equals(bad)).toBe(false);
      expect(now.length).toBeGreaterThan(1000);
    }
  });

  it('goes with the earlier builds of the same installation only', () => {
    const h = home(3);
    indexed(h);
    const mine = must(cacheFileFor(path.join(ROOT, 'dist', 'rows.cjs'), path.join(h, '.cache', 'resume'), 'rows'));
    const prefix = path.basename(mine).replace(/\d+-\d+-v[^-]+-[^-]+-rows\.v8$/, '');
    expect(prefix).toMatch(/^rows\.cjs-[0-9a-f]+-$/);
    fs.mkdirSync(codeDir(h), { recursive: true });
    const older = path.join(codeDir(h), `${prefix}1-2-v0.0.0-x64.v8`);
    const other = path.join(codeDir(h), 'rows.cjs-0-1-2-v0.0.0-x64.v8');
    fs.writeFileSync(older, 'old');
    fs.writeFileSync(other, 'other');
    expect(run(h, ['rows']).code).toBe(0);
    expect(fs.existsSync(older)).toBe(false);
    expect(fs.existsSync(other)).toBe(true);
    expect(fs.existsSync(mine)).toBe(true);
    // the same build's cache of another command stays
    expect(run(h, ['preview', run(h, ['rows']).stdout.split('\t')[0]]).code).toBe(0);
    expect(run(h, ['rows']).code).toBe(0);
    expect(fs.existsSync(mine)).toBe(true);
    expect(caches(h).filter((f) => f.startsWith(prefix))).toHaveLength(2);
  });

  it('loads a bundle written inside its CommonJS function (as the build writes rows.cjs and cli.cjs) and a plain one alike, with a cache or without', () => {
    for (const f of ['rows.cjs', 'cli.cjs']) {
      const text = fs.readFileSync(path.join(ROOT, 'dist', f), 'latin1');
      expect(text.startsWith(WRAP_HEAD) && text.endsWith(WRAP_TAIL), f).toBe(true);
    }
    const d = fs.mkdtempSync(path.join(os.tmpdir(), 'resume-wrap-'));
    const body =
      '"use strict";\nmodule.exports = { dir: __dirname, strict: (function () { return this === undefined; })(), req: typeof require };';
    for (const [name, text] of [
      ['plain.cjs', body],
      ['wrapped.cjs', `${WRAP_HEAD}${body}${WRAP_TAIL}`],
    ] as const) {
      const file = path.join(d, name);
      fs.writeFileSync(file, text);
      const cache = path.join(d, 'code', `${name}.v8`);
      for (let i = 0; i < 2; i++) {
        const m = loadCached<{ dir: string; strict: boolean; req: string }>(file, cache, require);
        expect(m.exports, `${name} run ${i}`).toEqual({ dir: d, strict: true, req: 'function' });
        m.save();
        expect(fs.existsSync(cache)).toBe(true);
      }
    }
  });

  it('a cache directory that cannot be written only means no cache', () => {
    const h = home(5);
    indexed(h);
    const want = run(h, ['rows']);
    fs.rmSync(codeDir(h), { recursive: true });
    fs.writeFileSync(codeDir(h), 'not a directory');
    const r = run(h, ['rows']);
    expect(r).toEqual(want);
    expect(fs.readFileSync(codeDir(h), 'utf8')).toBe('not a directory');
  });
});

describe('rows written with write(2)', () => {
  it('`rows | head -1` is a quiet exit 0 with more rows than a pipe holds', () => {
    const h = home(700);
    expect(run(h, ['rows']).code).toBe(0);
    const r = spawnSync('bash', ['-o', 'pipefail', '-c', `"${process.execPath}" "${BIN}" rows | head -1`], {
      env: envFor(h),
      encoding: 'utf8',
    });
    expect(r.status).toBe(0);
    expect(r.stderr).toBe('');
    expect(r.stdout.split('\t')[1]).toBe((0xc0de0000 + 699).toString(16));
  });

  it.skipIf(needs('python3'))('arrive whole through a pipe made non-blocking, read slowly', () => {
    const h = home(700);
    const want = run(h, ['rows']);
    expect(want.stdout.length).toBeGreaterThan(128 << 10);
    // the writer's end non-blocking (as a stream someone built on it leaves it): a full pipe answers EAGAIN
    const py = [
      'import os, subprocess, sys, time',
      'r, w = os.pipe()',
      'os.set_blocking(w, False)',
      'p = subprocess.Popen(sys.argv[1:], stdout=w)',
      'os.close(w)',
      'time.sleep(0.5)',
      'out = b""',
      'while True:',
      '    b = os.read(r, 4096)',
      '    if not b: break',
      '    out += b',
      '    time.sleep(0.0005)',
      'sys.stdout.buffer.write(out)',
      'sys.exit(p.wait())',
    ].join('\n');
    const r = spawnSync('python3', ['-c', py, process.execPath, BIN, 'rows'], { env: envFor(h), encoding: 'utf8', maxBuffer: 64 << 20 });
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    expect(r.stdout).toBe(want.stdout);
  });
});
