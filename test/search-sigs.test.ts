// Signatures (lib/search/sigs.ts): a search that passes over the files their trigrams rule out
// finds exactly what reading every file finds. The filter itself on random bytes (every substring
// of a file passes, in a file made whole, extended by appends, rewritten, compressed), then the CLI
// on the real clients' transcripts: the same results with signatures as with none, after an append,
// and after a rewrite.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { makeApp } from '../lib/app.js';
import { openWrite } from '../lib/index/store.js';
import { foldNeedle } from '../lib/search/fold.js';
import { blankPiece, piecesHolding, type Within } from '../lib/search/pieces.js';
import { parseQuery } from '../lib/search/query.js';
import { EXTRACTORS, loadExtractors } from '../lib/search/registry.js';
import { runSearch } from '../lib/search/run.js';
import { pieceKey } from '../lib/search/score.js';
import { searchedFiles } from '../lib/search/sigfill.js';
import { sigHasher } from '../lib/search/sighash.js';
import { SigPool } from '../lib/search/sigpool.js';
import { addBytes, addWords, fillSigs, fillSigsOn, Signatures } from '../lib/search/sigs.js';
import { ROLES } from '../lib/search/types.js';
import type { Harness } from '../lib/types.js';
import { envFor, must, ROOT, realClientsHome, run, tempDir, until } from './helpers.js';
import type { Found } from './json.js';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});
function dir(): string {
  const d = tempDir('resume-sigs-');
  dirs.push(d);
  return d;
}

/** `fn` with the index database open for writing, closed after. */
function inDb<T>(dbFile: string, fn: (db: ReturnType<typeof openWrite>) => T): T {
  const db = openWrite(dbFile);
  try {
    return fn(db);
  } finally {
    db.close();
  }
}

/** A deterministic generator (xorshift), so a failure can be replayed. */
function rng(seed: number): () => number {
  let x = seed >>> 0 || 1;
  return () => {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    return (x >>> 0) / 2 ** 32;
  };
}

/** Bytes like a transcript's: JSON punctuation, words in either case, digits, escapes, UTF-8. */
function transcriptBytes(r: () => number, n: number): Buffer {
  const parts = [
    '{"type":"message","text":"',
    'Webhook',
    'retrier',
    ' ',
    '\\n',
    '\\"',
    'Ünïcode ☕ ',
    'API-24',
    '0123',
    '"}\n',
    'src/cli.ts',
  ];
  const out: Buffer[] = [];
  let len = 0;
  while (len < n) {
    const b = r() < 0.6 ? Buffer.from(parts[Math.floor(r() * parts.length)] ?? '') : Buffer.from([Math.floor(r() * 256)]);
    out.push(b);
    len += b.length;
  }
  return Buffer.concat(out).subarray(0, n);
}

/** The file's signature as a search loads it, asked about one needle (a byte key, as query.ts makes them). */
function mayHold(dbFile: string, file: string, key: string): boolean {
  return inDb(dbFile, (db) => Signatures.load(db, [[key]]).mask(file) === 1);
}

/** Every substring (3 to 12 bytes) at `tries` random places of `bytes` must pass: a Bloom filter has no false negatives. */
function everySubstringPasses(dbFile: string, file: string, bytes: Buffer, r: () => number, tries = 300): void {
  const db = openWrite(dbFile);
  try {
    for (let i = 0; i < tries; i++) {
      const at = Math.floor(r() * (bytes.length - 12));
      const len = 3 + Math.floor(r() * 10);
      const key = bytes
        .subarray(at, at + len)
        .toString('latin1')
        .toLowerCase();
      const s = Signatures.load(db, [[key]]);
      expect(s.mask(file), `bytes ${at}+${len} of ${path.basename(file)}`).toBe(1);
    }
  } finally {
    db.close();
  }
}

describe('signatures', () => {
  it('let every substring of a file through, made whole and extended by appends, and rule out words not there', () => {
    const d = dir();
    const dbFile = path.join(d, 'index.db');
    const f = path.join(d, 'a.jsonl');
    const r = rng(7);
    let bytes = transcriptBytes(r, 200_000);
    fs.writeFileSync(f, bytes);
    const db = openWrite(dbFile);
    try {
      expect(fillSigs(db, [f])).toMatchObject({ made: 1, extended: 0 });
      // unchanged: nothing read
      expect(fillSigs(db, [f])).toMatchObject({ made: 0, extended: 0, bytes: 0 });
    } finally {
      db.close();
    }
    everySubstringPasses(dbFile, f, bytes, r);
    expect(mayHold(dbFile, f, 'zanzibarquux')).toBe(false);
    // a needle longer than the positions a search tests of it (a pasted token): there, or not
    const long = bytes.subarray(5000, 5300).toString('latin1').toLowerCase();
    expect(mayHold(dbFile, f, long)).toBe(true);
    expect(mayHold(dbFile, f, `zanzibarquux${long}`)).toBe(false);
    // appends, one cutting a word in two across the old end
    for (const more of ['zanzi', 'barquux and more text', transcriptBytes(r, 50_000).toString('latin1')]) {
      fs.appendFileSync(f, Buffer.from(more, 'latin1'));
      bytes = fs.readFileSync(f);
      const w = openWrite(dbFile);
      try {
        expect(fillSigs(w, [f])).toMatchObject({ made: 0, extended: 1 });
      } finally {
        w.close();
      }
    }
    expect(mayHold(dbFile, f, 'zanzibarquux')).toBe(true);
    everySubstringPasses(dbFile, f, bytes, r);
  });

  /** Bytes to hash (transcript-like, with every byte value too, cased and not), a filter width up to 256 << `widths`, the two bytes before them. */
  const hashCase = (r: () => number, widths: number) => {
    const buf = Buffer.from(transcriptBytes(r, 1 + Math.floor(r() * 5000)));
    for (let i = 0; i < buf.length; i += 1 + Math.floor(r() * 40)) buf[i] = Math.floor(r() * 256);
    return { buf, width: 256 << Math.floor(r() * widths), t: Math.floor(r() * 0xffff) };
  };

  it('set the same bits word by word as byte by byte, whatever the width and however the bytes come in reads', () => {
    const r = rng(11);
    for (let round = 0; round < 40; round++) {
      const { buf, width, t } = hashCase(r, 6);
      const bytes = new Uint8Array(width);
      const words = new Uint8Array(width);
      const w32 = new Uint32Array(words.buffer);
      let a = t;
      let b = a;
      for (let at = 0; at < buf.length; ) {
        const n = Math.min(buf.length - at, 1 + Math.floor(r() * 700));
        const part = buf.subarray(at, at + n);
        a = addBytes(bytes, part, 0, n, a);
        b = addWords(w32, part, 0, n, b);
        expect(b).toBe(a);
        at += n;
      }
      expect(Buffer.from(words).equals(Buffer.from(bytes))).toBe(true);
      expect(bytes.some((x) => x !== 0)).toBe(buf.length > 0);
    }
  });

  it('set and count the same bits in WebAssembly (sighash.ts) as byte by byte, wherever the bytes lie in its memory and however many', () => {
    const h = sigHasher();
    // (Node always has WebAssembly: a null here would leave the fast path untested)
    expect(h).not.toBeNull();
    if (!h) return;
    const r = rng(12);
    for (let round = 0; round < 60; round++) {
      const { buf, width, t } = hashCase(r, 10);
      const bytes = new Uint8Array(width);
      const bits = h.filter.subarray(0, width);
      bits.fill(0);
      let a = t;
      let b = a;
      for (let at = 0; at < buf.length; ) {
        const n = Math.min(buf.length - at, 1 + Math.floor(r() * 700));
        // (at any offset of the read's room, eight-byte aligned or not)
        const off = Math.floor(r() * 64);
        buf.copy(h.data, off, at, at + n);
        const part = h.data.subarray(off, off + n);
        a = addBytes(bytes, buf.subarray(at, at + n), 0, n, a);
        const got = h.fill(bits, part, 0, n, b);
        // (whole eights there, the rest here)
        expect(got.i % 8).toBe(0);
        expect(n - got.i).toBeLessThan(8);
        b = addBytes(bits, part, got.i, n, got.t);
        expect(b).toBe(a);
        at += n;
      }
      expect(Buffer.from(bits).equals(Buffer.from(bytes))).toBe(true);
      // and it counts them as they are counted one by one
      let set = 0;
      for (const x of bytes) for (let k = 0; k < 8; k++) set += (x >> k) & 1;
      expect(h.share(bits)).toBe(set / (width * 8));
    }
  });

  it('are made again for a file rewritten (same size, other bytes), cut short or gone, and for a .zst its decoded bytes', () => {
    const d = dir();
    const dbFile = path.join(d, 'index.db');
    const f = path.join(d, 'b.jsonl');
    const r = rng(11);
    fs.writeFileSync(f, transcriptBytes(r, 30_000));
    const fill = (files: string[]) => {
      const db = openWrite(dbFile);
      try {
        return fillSigs(db, files, { prune: true });
      } finally {
        db.close();
      }
    };
    fill([f]);
    // the same size, another start: not an append
    const other = Buffer.concat([Buffer.from('{"rewritten":"quetzalcoatl"}\n'), transcriptBytes(r, 30_000)]).subarray(0, 30_000);
    fs.writeFileSync(f, other);
    expect(fill([f])).toMatchObject({ made: 1, extended: 0 });
    expect(mayHold(dbFile, f, 'quetzalcoatl')).toBe(true);
    // cut short
    fs.writeFileSync(f, '{"short":"ocelot"}\n');
    expect(fill([f])).toMatchObject({ made: 1 });
    expect(mayHold(dbFile, f, 'ocelot')).toBe(true);
    expect(mayHold(dbFile, f, 'quetzalcoatl')).toBe(false);
    // a compressed file: its decoded bytes (zstd, as Codex keeps cold rollouts)
    const z = path.join(d, 'c.jsonl');
    const plain = transcriptBytes(r, 40_000);
    fs.writeFileSync(z, plain);
    const zr = spawnSync('zstd', ['-q', '--rm', z]);
    if (zr.status === 0) {
      expect(fill([f, `${z}.zst`])).toMatchObject({ made: 1 });
      everySubstringPasses(dbFile, `${z}.zst`, plain, r, 100);
    } else if (process.env.CI === 'true') throw new Error('zstd is missing');
    // gone: its row is dropped, and a file no search reads is pruned
    fs.rmSync(f);
    const t = fill([f]);
    expect(t.made + t.extended).toBe(0);
    expect(mayHold(dbFile, f, 'ocelot')).toBe(true); // no signature: may hold anything (it is read)
  });

  it('a damaged signature (empty, or of a width this index never writes) rules nothing out', () => {
    const d = dir();
    const dbFile = path.join(d, 'index.db');
    const f = path.join(d, 'a.jsonl');
    fs.writeFileSync(f, transcriptBytes(rng(5), 20_000));
    inDb(dbFile, (db) => fillSigs(db, [f]));
    expect(mayHold(dbFile, f, 'zanzibarquux')).toBe(false);
    for (const bloom of [Buffer.alloc(0), Buffer.alloc(100), Buffer.alloc(300)]) {
      inDb(dbFile, (db) => db.prepare('UPDATE sigs SET bloom = ? WHERE path = ?').run(bloom, f));
      expect(mayHold(dbFile, f, 'zanzibarquux'), `a filter of ${bloom.length} bytes`).toBe(true);
    }
    // and the next fill makes it again, though the file is as it was
    expect(inDb(dbFile, (db) => fillSigs(db, [f]))).toMatchObject({ made: 1, extended: 0 });
    expect(mayHold(dbFile, f, 'zanzibarquux')).toBe(false);
  });

  it('a needle under three bytes is never ruled out', () => {
    const d = dir();
    const dbFile = path.join(d, 'index.db');
    const f = path.join(d, 'c.jsonl');
    fs.writeFileSync(f, '{"text":"nothing here"}\n');
    inDb(dbFile, (db) => fillSigs(db, [f]));
    expect(mayHold(dbFile, f, 'qz')).toBe(true);
    expect(mayHold(dbFile, f, foldNeedle('QZX').toString('latin1'))).toBe(false);
  });
});

describe('pieces', () => {
  /** The stored pieces of a file, in order. */
  function stored(dbFile: string, file: string): { role: number; key: number; text: string }[] {
    const db = openWrite(dbFile);
    try {
      return db
        .prepare('SELECT p.role, p.key, p.text FROM pieces p JOIN sigs s ON s.id = p.id >> 24 WHERE s.path = ? ORDER BY p.id')
        .all(file) as {
        role: number;
        key: number;
        text: string;
      }[];
    } finally {
      db.close();
    }
  }
  /** What the search's own extractor gives of the file's lines, but tool output. */
  function extracted(file: string): string[] {
    const st = { first: true, st: {} as Record<string, unknown> };
    const out: string[] = [];
    for (const [i, line] of fs.readFileSync(file, 'utf8').split('\n').entries()) {
      if (!line) continue;
      st.first = i === 0;
      for (const p of EXTRACTORS.claude(JSON.parse(line), st)) if (p.role !== 'tool-output') out.push(p.text);
    }
    return out;
  }
  const fill = (dbFile: string, file: string) => {
    const db = openWrite(dbFile);
    try {
      return fillSigs(db, [file], { harnessOf: () => 'claude' });
    } finally {
      db.close();
    }
  };

  it("are a transcript's text but tool output, extended by an append once its line is whole, replaced on a rewrite", async () => {
    await loadExtractors();
    const d = dir();
    const dbFile = path.join(d, 'index.db');
    const src = must(
      fs
        .readdirSync(path.join(REAL, 'claude-2.1.332/home/.claude/projects'), { recursive: true, encoding: 'utf8' })
        .find((f) => f.endsWith('.jsonl')),
    );
    const file = path.join(d, 'session.jsonl');
    fs.copyFileSync(path.join(REAL, 'claude-2.1.332/home/.claude/projects', src), file);
    fill(dbFile, file);
    const before = extracted(file);
    expect(before.length).toBeGreaterThan(0);
    expect(stored(dbFile, file).map((p) => p.text)).toEqual(before);
    // half a line (a harness writing it): not yet; the rest of it: one more piece, none twice
    const rec = JSON.parse(must(fs.readFileSync(file, 'utf8').trimEnd().split('\n')[0]));
    const line = JSON.stringify({ ...rec, type: 'user', uuid: 'u-new', message: { role: 'user', content: 'add the capybara importer' } });
    fs.appendFileSync(file, line.slice(0, 40));
    expect(fill(dbFile, file)).toMatchObject({ extended: 1 });
    expect(stored(dbFile, file).map((p) => p.text)).toEqual(before);
    fs.appendFileSync(file, `${line.slice(40)}\n`);
    expect(fill(dbFile, file)).toMatchObject({ extended: 1 });
    expect(stored(dbFile, file).map((p) => p.text)).toEqual(extracted(file));
    expect(stored(dbFile, file).at(-1)?.text).toBe('add the capybara importer');
    // each piece keeps the key a search tells repeats by, as made from its text
    for (const p of stored(dbFile, file)) expect(p.key).toBe(pieceKey({ role: must(ROLES[p.role]), text: p.text }));
    // the full-text table finds it; for plain words it tells which each piece holds, and only a
    // prompt's text is read (for the first request); any other term is checked against the text
    const db = openWrite(dbFile);
    try {
      const held = (words: string[], within: Within = {}) => {
        const fp = piecesHolding(db, parseQuery(words, true), within).get(file);
        return fp ? Array.from({ length: fp.length }, (_, i) => fp.at(i, blankPiece())) : [];
      };
      expect([...piecesHolding(db, parseQuery(['capybara'])).keys()]).toEqual([file]);
      expect(held(['capybara importer']).map((p) => [p.text, p.mask])).toEqual([['add the capybara importer', 0b11]]);
      expect(held(['capyb']).map((p) => p.mask)).toEqual([1]);
      expect(held(['"capybara importer"']).map((p) => [p.text, p.mask])).toEqual([['add the capybara importer', undefined]]);
      const replies = held(['the']).filter((p) => p.role !== 'user');
      expect(replies.length).toBeGreaterThan(0);
      for (const p of replies) expect(p.text).toBe('');
      // told the file's first prompt, a prompt is told first or not as it comes, its text not kept
      const first = (prompt: string) => held(['capybara'], { firsts: new Map([[file, prompt]]) }).map((p) => [p.text, p.first]);
      expect(first('add the capybara importer')).toEqual([['', true]]);
      expect(first('something else first')).toEqual([['', false]]);
      expect(held(['capybara']).map((p) => [p.text, p.first])).toEqual([['add the capybara importer', undefined]]);
      // (a phrase is checked against the text, which is kept)
      expect(held(['"capybara importer"'], { firsts: new Map([[file, 'x']]) }).map((p) => p.text)).toEqual(['add the capybara importer']);
    } finally {
      db.close();
    }
    // rewritten: the pieces of what it holds now, and the table forgets the old ones
    fs.writeFileSync(file, `${line.replace('capybara', 'pangolin')}\n`);
    expect(fill(dbFile, file)).toMatchObject({ made: 1 });
    expect(stored(dbFile, file).map((p) => p.text)).toEqual(['add the pangolin importer']);
    const again = openWrite(dbFile);
    try {
      expect(piecesHolding(again, parseQuery(['capybara'])).size).toBe(0);
      expect(again.prepare("SELECT count(*) FROM words WHERE words MATCH 'capybara'").pluck().get()).toBe(0);
    } finally {
      again.close();
    }
    // another file's pieces are its own (a piece's file is told by its id); the first gone, its
    // pieces go with it and the other's stay, in the table too
    const other = path.join(d, 'other.jsonl');
    fs.copyFileSync(path.join(REAL, 'claude-2.1.332/home/.claude/projects', src), other);
    fill(dbFile, other);
    expect(stored(dbFile, other).map((p) => p.text)).toEqual(before);
    expect(stored(dbFile, file).map((p) => p.text)).toEqual(['add the pangolin importer']);
    fs.rmSync(file);
    fill(dbFile, file);
    expect(stored(dbFile, file)).toEqual([]);
    expect(stored(dbFile, other).map((p) => p.text)).toEqual(before);
    const last = openWrite(dbFile);
    try {
      expect(last.prepare("SELECT count(*) FROM words WHERE words MATCH 'pangolin'").pluck().get()).toBe(0);
      expect([...piecesHolding(last, parseQuery(['the'])).keys()]).toEqual([other]);
    } finally {
      last.close();
    }
  });
});

// ---- the CLI: the same results with and without signatures -------------------------------------

const REAL = path.join(ROOT, 'test/fixtures/real');

/** A home with every real client's recorded sessions (the same layout their homes had). */
function realHome(): string {
  const h = realClientsHome('resume-sigs-home-');
  dirs.push(h);
  return h;
}

function searchJson(h: string, words: string[]): Found[] {
  const r = run(h, ['search', '-a', '--json', ...words]);
  expect([0, 1], r.stderr).toContain(r.code);
  return r.code === 0 ? JSON.parse(r.stdout) : [];
}

/** The results when no file has a signature and none can be made (another process holds the lock): every file is read. */
function searchReadingAll(h: string, words: string[], said?: (stderr: string) => void): Found[] {
  const cache = path.join(h, '.cache/resume');
  const db = openWrite(path.join(cache, 'index.db'));
  try {
    db.exec('DELETE FROM sigs');
  } finally {
    db.close();
  }
  // a lock held by a live process (this one): the search does not make them
  fs.writeFileSync(path.join(cache, 'sigs.lock'), JSON.stringify({ pid: process.pid, host: os.hostname(), started: Date.now() }));
  try {
    if (said) said(run(h, ['search', '-a', '--json', ...words]).stderr);
    return searchJson(h, words);
  } finally {
    fs.rmSync(path.join(cache, 'sigs.lock'), { force: true });
  }
}

const QUERIES = [['hello'], ['the'], ['zanzibarquux'], ['json'], ['"read the"'], ['a'], ['file', 'the'], ['résumé'], ['src/'], ['<']];

describe('signatures made on worker threads (resume index)', () => {
  /** Every row of sigs and every piece, by file: what a fill leaves in the database. */
  function contents(dbFile: string): unknown[] {
    const db = openWrite(dbFile);
    try {
      const sigs = db
        .prepare('SELECT path, size, mtime, ino, hex(head), hex(tail), hex(bloom), poff, pst FROM sigs ORDER BY path')
        .raw()
        .all();
      const pieces = db
        .prepare('SELECT s.path, p.role, p.flags, p.text FROM pieces p JOIN sigs s ON s.id = p.id >> 24 ORDER BY s.path, p.id')
        .raw()
        .all();
      return [sigs, pieces];
    } finally {
      db.close();
    }
  }

  /** Every transcript of the real clients' homes, with its harness (as `resume index` hands them over). */
  async function realFiles(): Promise<Map<string, Harness>> {
    const h = realHome();
    expect(run(h, ['rows']).code).toBe(0);
    await loadExtractors();
    const app = makeApp({ env: envFor(h), distDir: path.join(ROOT, 'dist') });
    return searchedFiles(await app.sessions());
  }

  const fillHere = (dbFile: string, byFile: Map<string, Harness>) => {
    const db = openWrite(dbFile);
    try {
      return fillSigs(db, [...byFile.keys()], { prune: true, harnessOf: (f) => byFile.get(f) });
    } finally {
      db.close();
    }
  };
  const fillOn = async (dbFile: string, byFile: Map<string, Harness>, workerFile: string) => {
    const pool = new SigPool(workerFile, 2);
    const db = openWrite(dbFile);
    try {
      // (every file handed over, however small)
      return await fillSigsOn(db, [...byFile.keys()], { prune: true, harnessOf: (f) => byFile.get(f) }, pool, 0);
    } finally {
      db.close();
      pool.stop();
    }
  };

  it('leave the same rows and pieces as this thread does, for every real client', async () => {
    const byFile = await realFiles();
    expect(byFile.size).toBeGreaterThan(20);
    const d = dir();
    const here = fillHere(path.join(d, 'here.db'), byFile);
    const there = await fillOn(path.join(d, 'there.db'), byFile, path.join(ROOT, 'dist', 'search-worker.cjs'));
    expect(there).toEqual(here);
    expect(here.made).toBe(byFile.size);
    expect(contents(path.join(d, 'there.db'))).toEqual(contents(path.join(d, 'here.db')));
  });

  it('are made here when no thread can be had (a worker file that is not there), or a thread ends on its file', async () => {
    const byFile = await realFiles();
    const d = dir();
    fillHere(path.join(d, 'here.db'), byFile);
    const missing = await fillOn(path.join(d, 'missing.db'), byFile, path.join(d, 'no-such-worker.cjs'));
    expect(missing.made).toBe(byFile.size);
    expect(contents(path.join(d, 'missing.db'))).toEqual(contents(path.join(d, 'here.db')));
    // a thread that quits on the first file it is given (as one out of memory does)
    const quits = path.join(d, 'quits.cjs');
    fs.writeFileSync(quits, "require('node:worker_threads').parentPort.on('message', () => process.exit(3));\n");
    const ended = await fillOn(path.join(d, 'ended.db'), byFile, quits);
    expect(ended.made).toBe(byFile.size);
    expect(contents(path.join(d, 'ended.db'))).toEqual(contents(path.join(d, 'here.db')));
  });
});

/** The processes (Linux: /proc) whose environment holds `entry` exactly. */
function runningWith(entry: string): number[] {
  const out: number[] = [];
  for (const pid of fs.readdirSync('/proc').filter((n) => /^\d+$/.test(n))) {
    try {
      if (fs.readFileSync(`/proc/${pid}/environ`, 'latin1').split('\0').includes(entry)) out.push(Number(pid));
    } catch {
      /* gone, or not ours to read */
    }
  }
  return out;
}

describe('the picker opening on a home without a search index', () => {
  it('starts `resume index` in the background when there is more to read than a search would itself', async () => {
    const h = realHome();
    expect(run(h, ['rows']).code).toBe(0);
    const { prepareSearchIndex } = await import('../lib/search/sigfill.js');
    const app = makeApp({ env: envFor(h), distDir: path.join(ROOT, 'dist') });
    const db = path.join(h, '.cache/resume/index.db');
    const sigRows = () => {
      const d = openWrite(db);
      try {
        return d.prepare('SELECT count(*) FROM sigs').pluck().get() as number;
      } finally {
        d.close();
      }
    };
    // a small home: a search makes its own (nothing started)
    await prepareSearchIndex(app);
    await new Promise((r) => setTimeout(r, 1500));
    expect(sigRows()).toBe(0);
    // 70 MiB more: started, and it makes them
    const big = path.join(h, '.claude/projects/-w-big/0badcafe-0000-4000-8000-000000000001.jsonl');
    fs.mkdirSync(path.dirname(big), { recursive: true });
    const line = `${JSON.stringify({ type: 'user', sessionId: '0badcafe-0000-4000-8000-000000000001', cwd: '/w/big', timestamp: '2026-01-01T00:00:00Z', message: { role: 'user', content: 'x'.repeat(1 << 20) } })}\n`;
    fs.writeFileSync(big, line.repeat(70));
    expect(run(h, ['rows']).code).toBe(0);
    await prepareSearchIndex(app);
    await until(() => sigRows() > 0);
    // and it ends (its lock let go once its database is closed), and its process with it: nothing
    // writes here after the test (its threads stopped, its code cache written)
    await until(() => !fs.existsSync(path.join(h, '.cache/resume/sigs.lock')));
    await until(() => runningWith(`HOME=${h}`).length === 0);
    expect(sigRows()).toBeGreaterThan(0);
  }, 60_000);
});

describe('the picker opening on a home whose group map the last build left behind', () => {
  it('starts `resume index` in the background on a large home, which makes the map of the listing as it is now', async () => {
    const h = realHome();
    expect(run(h, ['index']).code).toBe(0);
    const { prepareSearchIndex } = await import('../lib/search/sigfill.js');
    const { mapHolds, stampOf } = await import('../lib/search/groupmap.js');
    const app = makeApp({ env: envFor(h), distDir: path.join(ROOT, 'dist') });
    const holds = () => {
      const d = openWrite(path.join(h, '.cache/resume/index.db'));
      try {
        return mapHolds(d, stampOf(app, d));
      } finally {
        d.close();
      }
    };
    expect(holds()).toBe(true);
    // a session deleted: the picker's list builds the listing again, which the map is not of (an
    // append would carry it over: search-groupmap.test.ts)
    const file = must(fs.readdirSync(path.join(h, '.claude/projects/-tmp-resume-real-claude-proj-b')).find((f) => f.endsWith('.jsonl')));
    fs.rmSync(path.join(h, '.claude/projects/-tmp-resume-real-claude-proj-b', file));
    expect(run(h, ['rows']).code).toBe(0);
    expect(holds()).toBe(false);
    // a small home: its first search makes the map itself (nothing started)
    await prepareSearchIndex(app);
    await new Promise((r) => setTimeout(r, 1500));
    expect(holds()).toBe(false);
    // large enough: started, and the map holds once it is done
    await prepareSearchIndex(app, 1);
    await until(() => holds());
    await until(() => runningWith(`HOME=${h}`).length === 0);
    expect(holds()).toBe(true);
  }, 60_000);
});

describe('search with signatures', () => {
  it('reads no transcript for a word in none, and only those that may hold a word; a file changed since is read', async () => {
    const h = realHome();
    expect(run(h, ['index']).code).toBe(0);
    const app = makeApp({ env: envFor(h), distDir: path.join(ROOT, 'dist') });
    const all = await app.sessions();
    const absent = await runSearch(app, all, parseQuery(['zanzibarquux']), {});
    expect(absent.results).toEqual([]);
    // read: only the databases opencode and Kilo keep (queried, by their harness, in SQL) and
    // Claude's prompt history (shared by its sessions); no transcript
    const dbSessions = all.filter((s) => s.file.endsWith('.db')).length;
    const history = fs
      .readdirSync(h, { recursive: true, encoding: 'utf8' })
      .filter((f) => path.basename(f) === 'history.jsonl' && f.includes('.claude'));
    const historyBytes = history.reduce((n, f) => n + fs.statSync(path.join(h, f)).size, 0);
    expect(absent.stats).toMatchObject({ files: dbSessions + history.length, bytes: historyBytes, unindexed: 0 });
    expect(absent.stats.sessions).toBeGreaterThan(0);
    const some = await runSearch(app, all, parseQuery(['pulsar']), {});
    expect(some.results.length).toBeGreaterThan(0);
    expect(some.stats.files).toBeGreaterThan(0);
    expect(some.stats.files).toBeLessThan(all.length);
    // a transcript appended to since: read (its signature is made by the search, a small change)
    const file = some.results[0]?.session.file ?? '';
    fs.appendFileSync(file, '\n');
    const again = await runSearch(makeApp({ env: envFor(h), distDir: path.join(ROOT, 'dist') }), all, parseQuery(['pulsar']), {});
    expect(again.results.map((r) => r.session.key)).toEqual(some.results.map((r) => r.session.key));
    // none made yet and another process making them: every file read, and the search says so
    searchReadingAll(h, ['pulsar'], (stderr) => expect(stderr).toMatch(/^\d+ files not in the search index yet were read in full/m));
  });

  it("shows as its best N (-n N, a terminal's 20) the first N of the whole ranking of the real clients' sessions, reading fewer", () => {
    const h = realHome();
    expect(run(h, ['index']).code).toBe(0);
    const json = (args: string[]) => {
      const r = run(h, ['search', '--json', ...args]);
      expect([0, 1], r.stderr).toContain(r.code);
      return r.code === 0 ? (JSON.parse(r.stdout) as Found[]) : [];
    };
    let some = 0;
    // from the group map (no filter), and from the whole listing (a filter)
    for (const filter of [[], ['--harness', 'claude,pi,codex,gemini,opencode']]) {
      for (const q of [['the'], ['json'], ['a'], ['file', 'the'], ['hello'], ['src/'], ['echo'], ['run']]) {
        const whole = json([...filter, ...q]);
        if (whole.length > 3) some++;
        for (const n of [1, 2, 3, 5])
          expect(json([...filter, '-n', String(n), ...q]), `${q.join(' ')} -n ${n} ${filter.join(' ')}`).toEqual(whole.slice(0, n));
      }
    }
    expect(some).toBeGreaterThan(4);
    // on a terminal (20 unless -n says otherwise): every result counted, the best twenty shown, and
    // fewer files read than for all of them (-n 0)
    const onTty = (args: string) => {
      const r = spawnSync('script', ['-qec', `${process.execPath} ${path.join(ROOT, 'bin/resume')} search ${args}`, '/dev/null'], {
        env: { ...envFor(h), NO_COLOR: '1', COLUMNS: '120' },
        encoding: 'utf8',
      });
      const tally = r.stdout.match(/(\d+) sessions? mentions? .*?(\d+) files/);
      return { out: r.stdout, found: Number(must(tally)[1]), files: Number(must(tally)[2]) };
    };
    const all = json(['a']);
    expect(all.length).toBeGreaterThan(40);
    const best = onTty('a');
    const every = onTty('-n 0 a');
    expect(best.out).toContain(`+${all.length - 20} more`);
    expect([best.found, every.found]).toEqual([all.length, all.length]);
    expect(best.files).toBeLessThan(every.files);
  });

  it('finds what reading every file finds, for every real client, then after an append and a rewrite', () => {
    const h = realHome();
    const ix = run(h, ['index']);
    expect(ix.code, ix.stderr).toBe(0);
    expect(ix.stderr).toMatch(/signatures of \d+ files: [1-9]\d* made/);
    // nothing changed: nothing made again; `--rebuild` discards the search index with the rest
    expect(run(h, ['index']).stderr).toMatch(/signatures of \d+ files: 0 made, 0 extended/);
    expect(run(h, ['index', '--rebuild']).stderr).toMatch(/signatures of \d+ files: [1-9]\d* made/);
    const compare = () => {
      for (const q of QUERIES) {
        const withSigs = searchJson(h, q);
        expect(searchReadingAll(h, q), `search ${q.join(' ')}`).toEqual(withSigs);
        // (and the signatures are made again for the next query)
        run(h, ['index']);
      }
    };
    compare();
    // the words are found, and some ruled out
    expect(searchJson(h, ['pulsar', 'log']).length).toBeGreaterThan(0);
    // an append with a new word: the search's own fill extends that file's signature
    const list = JSON.parse(run(h, ['ls', '-a', '--json']).stdout) as { file: string; harness: string }[];
    const file = must(list.find((s) => s.harness === 'claude' && s.file.endsWith('.jsonl'))).file;
    const last = must(fs.readFileSync(file, 'utf8').trimEnd().split('\n').pop());
    const rec = JSON.parse(last);
    rec.uuid = '00000000-0000-4000-8000-00000000beef';
    rec.type = 'user';
    rec.message = { role: 'user', content: 'please port the zanzibarquux parser' };
    fs.appendFileSync(file, `${JSON.stringify(rec)}\n`);
    const found = searchJson(h, ['zanzibarquux']);
    expect(found.map((f) => f.file)).toContain(file);
    expect(searchReadingAll(h, ['zanzibarquux'])).toEqual(found);
    run(h, ['index']);
    // a rewrite that keeps the size: made again, not extended
    const text = fs.readFileSync(file, 'utf8');
    fs.writeFileSync(file, text.replace('zanzibarquux', 'quokkaquokka'));
    expect(searchJson(h, ['zanzibarquux'])).toEqual([]);
    expect(searchJson(h, ['quokkaquokka']).map((f) => f.file)).toContain(file);
  });
});
