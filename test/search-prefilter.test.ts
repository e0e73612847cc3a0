// The search's prefilter (lib/search/prefilter.ts): the files a worker thread marks, before the scan,
// as holding no needle, and the scan passing over them as a read with no hit. Real pi transcripts
// in a temp directory; the scan is the one the search runs (scanGroups).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Folder, Needle } from '../lib/search/fold.js';
import { scanParallel } from '../lib/search/pool.js';
import { cleanBytes, Prefilter } from '../lib/search/prefilter.js';
import { allNeedles, parseQuery } from '../lib/search/query.js';
import { loadExtractors } from '../lib/search/registry.js';
import { metadataText, newGroup, scanGroups } from '../lib/search/search.js';
import type { Session } from '../lib/types.js';
import { CHUNK } from '../lib/util/fsx.js';
import { must, ROOT } from './helpers.js';

let dir: string;
beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'resume-prefilter-'));
  await loadExtractors();
});
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

const header = (id: string) => JSON.stringify({ type: 'session', version: 3, id, timestamp: '2026-03-05T10:00:00.000Z', cwd: '/w/proj' });
const entry = (id: string, parent: string | null, role: 'user' | 'assistant', text: string) =>
  JSON.stringify({
    type: 'message',
    id,
    parentId: parent,
    timestamp: '2026-03-05T10:00:01.000Z',
    message: { role, content: [{ type: 'text', text }] },
  });

/** a pi session file with these prompts (each answered) */
function piFile(name: string, prompts: string[]): string {
  const lines = [header(name)];
  let parent: string | null = null;
  prompts.forEach((p, i) => {
    lines.push(entry(`u${i}`, parent, 'user', p), entry(`a${i}`, `u${i}`, 'assistant', `done: ${i}`));
    parent = `a${i}`;
  });
  const file = path.join(dir, `${name}.jsonl`);
  fs.writeFileSync(file, `${lines.join('\n')}\n`);
  return file;
}

const session = (file: string): Session =>
  ({
    harness: 'pi',
    id: path.basename(file, '.jsonl'),
    key: `pi:${path.basename(file, '.jsonl')}`,
    file,
    cwd: '/w/proj',
    title: null,
    firstPrompt: null,
    branch: null,
    forkedFrom: null,
  }) as unknown as Session;

function check(file: string, word: string): number {
  const folded = allNeedles(parseQuery([word])).map((n) => new Needle(n));
  return cleanBytes(file, folded, Math.max(...folded.map((n) => n.length)) - 1, new Folder());
}

describe('search prefilter', () => {
  it('finds a needle in any case, across the seam of two reads, deep in a long line; counts a clean file', () => {
    const hit = piFile('hit', ['where is the PANGOLIN config?']);
    const none = piFile('none', ['where is the badger config?']);
    expect(check(hit, 'pangolin')).toBe(-1);
    expect(check(none, 'pangolin')).toBe(fs.statSync(none).size);
    // the word across the end of the first read: only the bytes kept from it find it
    const seam = path.join(dir, 'seam.jsonl');
    const pad = 'x'.repeat(CHUNK - 4 - header('seam').length - 1);
    fs.writeFileSync(seam, `${header('seam')}\n${pad}pangolin${'y'.repeat(CHUNK)}\n`);
    expect(fs.readFileSync(seam).indexOf('pangolin')).toBe(CHUNK - 4);
    expect(check(seam, 'pangolin')).toBe(-1);
    expect(check(seam, 'badger')).toBe(fs.statSync(seam).size);
    // a word several reads into a line of 3 MB
    const deep = path.join(dir, 'deep.jsonl');
    fs.writeFileSync(deep, `${header('deep')}\n${entry('u0', null, 'user', `${'z '.repeat(1_500_000)}Pangolin`)}\n`);
    expect(check(deep, 'pangolin')).toBe(-1);
    const empty = path.join(dir, 'empty.jsonl');
    fs.writeFileSync(empty, '');
    expect(check(empty, 'pangolin')).toBe(0);
    // a file that cannot be read is not marked: the scan reads it and counts it
    expect(check(path.join(dir, 'missing.jsonl'), 'pangolin')).toBe(-1);
  });

  it('marks each file once, shared by every thread; marks nothing once told to stop', () => {
    const files = ['p1', 'p2', 'p3', 'p4'].map((n, i) => piFile(n, [i % 2 ? 'a pangolin here' : 'nothing here']));
    const needles = allNeedles(parseQuery(['pangolin']));
    const a = new Prefilter(files, needles);
    // a second thread's view of the same marks
    const b = Prefilter.of(a.msg());
    b.run();
    a.run();
    expect(files.map((f) => a.clean(f))).toEqual([fs.statSync(files[0]).size, undefined, fs.statSync(files[2]).size, undefined]);
    expect(files.map((f) => b.clean(f))).toEqual(files.map((f) => a.clean(f)));
    expect(a.clean(path.join(dir, 'other.jsonl'))).toBeUndefined();
    const stopped = new Prefilter(files, needles);
    stopped.stop();
    stopped.run();
    expect(files.map((f) => stopped.clean(f))).toEqual([undefined, undefined, undefined, undefined]);
  });

  it('this thread marks what is left while most files hold no needle, and gives up once most do', () => {
    const needles = allNeedles(parseQuery(['pangolin']));
    const clean = Array.from({ length: 20 }, (_, i) => piFile(`c${i}`, ['nothing here']));
    const dirty = Array.from({ length: 20 }, (_, i) => piFile(`d${i}`, ['a pangolin here']));
    // a word in a few files: every file is read, every clean one marked
    const few = [...clean.slice(0, 10), dirty[0], ...clean.slice(10)];
    const a = new Prefilter(few, needles);
    a.finishHere();
    expect(few.map((f) => a.clean(f) !== undefined)).toEqual(few.map((f) => f !== dirty[0]));
    // a word in most files: it stops once 16 files are taken and fewer than half were marked; the
    // clean files after that are left to the scan
    const most = [...dirty.slice(0, 10), clean[0], ...dirty.slice(10), clean[1]];
    const b = new Prefilter(most, needles);
    b.finishHere();
    expect(most.map((f) => b.clean(f) !== undefined)).toEqual(most.map((f) => f === clean[0]));
    // told to stop (the scan has begun): nothing more is marked
    const c = new Prefilter(clean, needles);
    c.stop();
    c.finishHere();
    expect(clean.filter((f) => c.clean(f) !== undefined)).toEqual([]);
  });

  it('gives up sooner when the files holding the word are large and hold it late: 64 MiB read for nothing', () => {
    const needles = allNeedles(parseQuery(['pangolin']));
    // three files of 30 MB with the word at their very end, then small clean ones
    const late = ['l0', 'l1', 'l2'].map((n) => {
      const f = path.join(dir, `${n}.jsonl`);
      fs.writeFileSync(f, `${header(n)}\n${entry('u0', null, 'user', 'y'.repeat(30 << 20))}\n${entry('u1', 'u0', 'user', 'a pangolin')}\n`);
      return f;
    });
    const clean = Array.from({ length: 4 }, (_, i) => piFile(`lc${i}`, ['nothing here']));
    try {
      const files = [...late, ...clean];
      const pre = new Prefilter(files, needles);
      pre.finishHere();
      // (the shared memory's head: the stop flag, the next file, the files done, the files marked, the KiB read for nothing)
      const ctl = new Int32Array(pre.shared, 0, 5);
      // after three files (90 MB read, none marked) it stopped: the clean files are left to the scan
      expect(Atomics.load(ctl, 1)).toBe(3);
      expect(Atomics.load(ctl, 4)).toBeGreaterThanOrEqual(64 << 10);
      expect(files.filter((f) => pre.clean(f) !== undefined)).toEqual([]);
      // a worker (no giving up) reads them all
      const w = new Prefilter(files, needles);
      w.run();
      expect(files.filter((f) => w.clean(f) !== undefined)).toEqual(clean);
    } finally {
      for (const f of late) fs.rmSync(f);
    }
  });

  it('this thread waits for the file a worker thread is still reading before the scan', async () => {
    const workerFile = path.join(ROOT, 'dist', 'search-worker.cjs');
    if (!fs.existsSync(workerFile)) throw new Error('dist/search-worker.cjs is missing: npm run build');
    // the largest file first: the worker takes it, this thread the small ones after it
    const big = path.join(dir, 'big.jsonl');
    fs.writeFileSync(big, `${header('big')}\n${entry('u0', null, 'user', 'y'.repeat(96 << 20))}\n`);
    const files = [big, ...Array.from({ length: 8 }, (_, i) => piFile(`w${i}`, ['nothing here']))];
    const pre = new Prefilter(files, allNeedles(parseQuery(['pangolin'])));
    const w = new Worker(workerFile);
    try {
      w.postMessage({ prefilter: pre.msg() });
      // (the shared memory's head: the stop flag, the next file, the files done, the files marked)
      const ctl = new Int32Array(pre.shared, 0, 4);
      const until = Date.now() + 20_000;
      while (Atomics.load(ctl, 1) === 0 && Date.now() < until) await new Promise((r) => setTimeout(r, 2));
      expect(Atomics.load(ctl, 1)).toBeGreaterThan(0);
      pre.finishHere();
      expect(Atomics.load(ctl, 2)).toBe(files.length);
      expect(files.map((f) => pre.clean(f))).toEqual(files.map((f) => fs.statSync(f).size));
    } finally {
      await w.terminate();
      fs.rmSync(big);
    }
  });

  it('the scan gives with the marks what it gives without them, and does not read a marked file', () => {
    const files = [
      piFile('s1', ['set up the pangolin parser', 'and its tests']),
      piFile('s2', ['a badger', 'a fox']),
      piFile('s3', ['no animal', 'the PANGOLIN again, then the pangolin']),
      piFile('s4', ['nothing at all']),
    ];
    const terms = parseQuery(['pangolin']);
    const groups = () => files.map((f) => newGroup(session(f), [session(f)]));
    const plain = scanGroups(groups(), terms, new Set());
    const pre = new Prefilter(files, allNeedles(terms));
    pre.run();
    expect(files.map((f) => pre.clean(f) !== undefined)).toEqual([false, true, false, true]);
    const marked = scanGroups(groups(), terms, new Set(), { pre });
    expect(marked).toEqual(plain);
    expect(marked.stats.files).toBe(4);
    expect(marked.stats.bytes).toBe(files.reduce((n, f) => n + fs.statSync(f).size, 0));
    expect(marked.groups.map((g) => g.key)).toEqual(['pi:s1', 'pi:s3']);
    // a marked file is passed over, not read: the word written into it since is not seen (the search
    // is of the files as they were when read), while a scan without the marks sees it
    fs.writeFileSync(files[1], fs.readFileSync(files[0]));
    expect(scanGroups(groups(), terms, new Set(), { pre }).groups.map((g) => g.key)).toEqual(['pi:s1', 'pi:s3']);
    expect(scanGroups(groups(), terms, new Set()).groups.map((g) => g.key)).toEqual(['pi:s1', 'pi:s2', 'pi:s3']);
  });
});

describe('groups passed over whole', () => {
  it('a group whose every file is marked is counted as read and not scanned; one with an unmarked child is scanned', async () => {
    const own = piFile('g1', ['a badger']);
    const child = piFile('g1-child', ['the pangolin task']);
    const files = [own, child, piFile('g2', ['set up the pangolin parser']), piFile('g3', ['a fox']), piFile('g4', ['a hen'])];
    const terms = parseQuery(['pangolin']);
    // g1 names a child transcript (the index's `children`) that holds the word; g4 shares g3's group
    const groups = () => {
      const s = files.map(session);
      s[0] = { ...s[0], children: [child] } as Session;
      return [newGroup(s[0], [s[0]]), newGroup(s[2], [s[2]]), newGroup(s[3], [s[3], s[4]])];
    };
    const plain = scanGroups(groups(), terms, new Set());
    const pre = new Prefilter(files, allNeedles(terms));
    pre.run();
    const passed = await scanParallel(groups(), terms, new Set(), {
      threads: 1,
      prestarted: { workers: Promise.resolve([]), prefilter: pre },
    });
    expect(passed).toEqual(plain);
    expect(passed.stats).toMatchObject({ sessions: 4, files: 5 });
    expect(passed.groups.map((g) => g.key)).toEqual(['pi:g1', 'pi:g2']);
    // g3's group was not scanned: a word written into its files since is not seen; g1's child was read
    fs.writeFileSync(files[3], fs.readFileSync(files[2]));
    const again = await scanParallel(groups(), terms, new Set(), {
      threads: 1,
      prestarted: { workers: Promise.resolve([]), prefilter: pre },
    });
    expect(again.groups.map((g) => g.key)).toEqual(['pi:g1', 'pi:g2']);
  });

  it('a group passed over still has its metadata weighed, as a scan of it would', async () => {
    const files = [piFile('m1', ['a badger']), piFile('m2', ['the otter parser'])];
    const terms = parseQuery(['otter']);
    // m1 was run in a directory named for the word; its transcript never says it
    const groups = () => {
      const s = files.map(session);
      s[0] = { ...s[0], cwd: '/w/otter-app', branch: 'otter' } as Session;
      return s.map((x) => newGroup(x, [x]));
    };
    const plain = scanGroups(groups(), terms, new Set());
    const pre = new Prefilter(files, allNeedles(terms));
    pre.run();
    expect(pre.clean(files[0])).toBeDefined();
    const gs = groups();
    const passed = await scanParallel(gs, terms, new Set(), { threads: 1, prestarted: { workers: Promise.resolve([]), prefilter: pre } });
    // (a group passed over is not among the scan's output: its hits are on the group itself)
    expect(passed.groups.map((g) => g.key)).toEqual(['pi:m2']);
    const m1 = must(plain.groups.find((g) => g.key === 'pi:m1'));
    expect(m1.hits.map((h) => h.role)).toEqual(['metadata']);
    expect(m1.hits[0].snippet?.text).toContain('otter-app');
    expect({ mask: gs[0].mask, nHits: gs[0].nHits, hits: gs[0].hits }).toEqual({ mask: m1.mask, nHits: m1.nHits, hits: m1.hits });
    expect(passed.groups[0]).toEqual(plain.groups.find((g) => g.key === 'pi:m2'));
  });
});

describe('a session as one searchable line of metadata', () => {
  const meta = (s: Partial<Session>, home = '') =>
    metadataText({ harness: 'pi', id: 'abc', title: null, firstPrompt: null, branch: null, cwd: null, ...s } as Session, home);
  it('names the title (not a copy of the first prompt), branch, directory and its last name, then the harness and id', () => {
    expect(meta({ title: 'Fix it', firstPrompt: 'fix the parser', branch: 'main', cwd: '/w/proj' })).toBe(
      'title: Fix it · branch: main · directory: /w/proj · repository: proj · pi abc',
    );
    expect(meta({ title: 'fix the parser', firstPrompt: 'fix the parser', cwd: '/w/proj/' })).toBe(
      'directory: /w/proj/ · repository: proj · pi abc',
    );
    expect(meta({ cwd: '/w//deep///' })).toBe('directory: /w//deep/// · repository: deep · pi abc');
    expect(meta({ cwd: '/' })).toBe('directory: / · pi abc');
    expect(meta({ cwd: 'rel' })).toBe('directory: rel · repository: rel · pi abc');
    expect(meta({})).toBe('pi abc');
  });

  it('names the directory from ~ when it is in the home directory, as listings show it', () => {
    expect(meta({ cwd: '/home/alice/src/proj' }, '/home/alice')).toBe('directory: ~/src/proj · repository: proj · pi abc');
    expect(meta({ cwd: '/home/alice' }, '/home/alice')).toBe('directory: ~ · pi abc');
    expect(meta({ cwd: '/home/alicia/x' }, '/home/alice')).toBe('directory: /home/alicia/x · repository: x · pi abc');
  });
});
