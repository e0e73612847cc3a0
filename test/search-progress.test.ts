// A search's progress on a terminal: the scan's callback (lib/search/pool.ts `progress`) and the bar
// it drives (lib/util/progress.ts), the bar on a stand-in terminal stream with the clock set by the test.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { scanParallel } from '../lib/search/pool.js';
import { parseQuery } from '../lib/search/query.js';
import { loadExtractors } from '../lib/search/registry.js';
import { newGroup } from '../lib/search/search.js';
import type { Session } from '../lib/types.js';
import { progressBar, progressLine } from '../lib/util/progress.js';
import { must, ROOT } from './helpers.js';

let dir: string;
beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'resume-progress-'));
  await loadExtractors();
});
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));
afterEach(() => vi.useRealTimers());

/** a pi session file with one prompt of `n` words, and its session */
function pi(name: string, words: number): Session {
  const file = path.join(dir, `${name}.jsonl`);
  const lines = [
    { type: 'session', version: 3, id: name, timestamp: '2026-03-05T10:00:00.000Z', cwd: '/w/proj' },
    {
      type: 'message',
      id: 'u0',
      parentId: null,
      timestamp: '2026-03-05T10:00:01.000Z',
      message: { role: 'user', content: [{ type: 'text', text: 'the pangolin '.repeat(words) }] },
    },
  ];
  fs.writeFileSync(file, `${lines.map((l) => JSON.stringify(l)).join('\n')}\n`);
  return {
    harness: 'pi',
    id: name,
    key: `pi:${name}`,
    file,
    cwd: '/w/proj',
    title: null,
    firstPrompt: null,
    branch: null,
    forkedFrom: null,
  } as unknown as Session;
}

type Call = [done: number, total: number, groups: number, totalGroups: number];

function checkCalls(calls: Call[], sessions: Session[]): void {
  const bytes = sessions.reduce((n, s) => n + fs.statSync(s.file).size, 0);
  expect(calls.length).toBeGreaterThan(0);
  for (const [i, c] of calls.entries()) {
    expect(c[1]).toBe(bytes);
    expect(c[3]).toBe(sessions.length);
    expect(c[0]).toBeLessThanOrEqual(c[1]);
    expect(c[2]).toBeLessThanOrEqual(c[3]);
    if (i > 0) {
      expect(c[0]).toBeGreaterThanOrEqual(calls[i - 1][0]);
      expect(c[2]).toBeGreaterThanOrEqual(calls[i - 1][2]);
    }
  }
  // the last call: every group taken, every byte counted
  expect(calls.at(-1)).toEqual([bytes, bytes, sessions.length, sessions.length]);
}

describe("the scan's progress", () => {
  it('on one thread: after each group, the bytes and groups scanned of all to scan', async () => {
    const sessions = [pi('a', 10), pi('b', 2000), pi('c', 300)];
    const calls: Call[] = [];
    const out = await scanParallel(
      sessions.map((s) => newGroup(s, [s])),
      parseQuery(['pangolin']),
      new Set(),
      { threads: 1, progress: (...c) => calls.push(c) },
    );
    expect(out.groups).toHaveLength(3);
    expect(calls).toHaveLength(3);
    checkCalls(calls, sessions);
  });

  it('on worker threads: the groups every thread has taken, largest first, told by this thread', async () => {
    const workerFile = path.join(ROOT, 'dist', 'search-worker.cjs');
    if (!fs.existsSync(workerFile)) throw new Error('dist/search-worker.cjs is missing: npm run build');
    const sessions = Array.from({ length: 12 }, (_, i) => pi(`w${i}`, 200 * (i + 1)));
    const calls: Call[] = [];
    const saved = process.env.RESUME_PARALLEL_MIN_BYTES;
    process.env.RESUME_PARALLEL_MIN_BYTES = '0';
    try {
      const out = await scanParallel(
        sessions.map((s) => newGroup(s, [s])),
        parseQuery(['pangolin']),
        new Set(),
        { workerFile, threads: 2, progress: (...c) => calls.push(c) },
      );
      expect(out.groups).toHaveLength(12);
    } finally {
      if (saved === undefined) delete process.env.RESUME_PARALLEL_MIN_BYTES;
      else process.env.RESUME_PARALLEL_MIN_BYTES = saved;
    }
    checkCalls(calls, sessions);
    // taken largest first: k groups taken are the k largest files
    const sizes = sessions.map((s) => fs.statSync(s.file).size).sort((a, b) => b - a);
    for (const [done, , k] of calls) expect(done).toBe(sizes.slice(0, k).reduce((n, x) => n + x, 0));
  });
});

describe('the progress bar', () => {
  const term = (isTTY: boolean, columns = 100) => {
    const written: string[] = [];
    return { written, stream: { isTTY, columns, write: (s: string) => written.push(s) } as unknown as NodeJS.WriteStream };
  };
  const withoutCI = (f: () => void) => {
    const saved = process.env.CI;
    delete process.env.CI;
    try {
      f();
    } finally {
      if (saved !== undefined) process.env.CI = saved;
    }
  };

  it('shows on a terminal once the work has taken a quarter of a second, at most every 80 ms, and is cleared at the end', () => {
    withoutCI(() => {
      vi.useFakeTimers();
      vi.setSystemTime(1_000_000);
      const { written, stream } = term(true);
      const bar = progressBar('searching', stream, 'sessions');
      bar.update(1 << 20, 4 << 20, 3, 10);
      expect(written).toEqual([]);
      vi.setSystemTime(1_000_300);
      bar.update(2 << 20, 4 << 20, 5, 10);
      expect(written).toHaveLength(1);
      expect(written[0]).toMatch(/^\r\x1b\[Ksearching \[#+\.+\] 5\/10 sessions 2\/4 MiB$/);
      vi.setSystemTime(1_000_350);
      bar.update(3 << 20, 4 << 20, 8, 10);
      expect(written).toHaveLength(1);
      vi.setSystemTime(1_000_400);
      bar.update(4 << 20, 4 << 20, 10, 10);
      expect(written[1]).toMatch(/ 10\/10 sessions 4\/4 MiB$/);
      bar.end();
      expect(written.at(-1)).toBe('\r\x1b[K');
    });
  });

  it('without the bytes (a total of 0), fills by files and shows no MiB', () => {
    withoutCI(() => {
      vi.useFakeTimers();
      vi.setSystemTime(2_000_000);
      const { written, stream } = term(true);
      const bar = progressBar('signatures', stream);
      vi.setSystemTime(2_000_300);
      bar.update(0, 0, 3, 4);
      expect(written).toHaveLength(1);
      const m = must(/^\r\x1b\[Ksignatures \[(#+)(\.+)\] 3\/4 files$/.exec(written[0]));
      // three quarters of the bar filled
      expect(Math.round((m[1].length / (m[1].length + m[2].length)) * 4)).toBe(3);
      bar.end();
    });
  });

  it('writes nothing when the stream is not a terminal, nor when the work was quick', () => {
    withoutCI(() => {
      vi.useFakeTimers();
      vi.setSystemTime(2_000_000);
      const pipe = term(false);
      const a = progressBar('searching', pipe.stream, 'sessions');
      vi.setSystemTime(2_001_000);
      a.update(1, 2, 1, 2);
      a.end();
      expect(pipe.written).toEqual([]);
      const quick = term(true);
      const b = progressBar('searching', quick.stream, 'sessions');
      b.update(1, 2, 1, 2);
      b.end();
      expect(quick.written).toEqual([]);
    });
  });

  it('fits on one row of the terminal (a wrapped line is left behind at each redraw), its bar as wide at the end as at the start', () => {
    withoutCI(() => {
      vi.useFakeTimers();
      vi.setSystemTime(3_000_000);
      // 22,000 sessions, 1,363 MiB at 80 columns: the bar once took 40 of them whatever the counts took
      const { written, stream } = term(true, 80);
      const bar = progressBar('searching', stream, 'sessions');
      const total = 1363 << 20;
      for (const [i, files] of [1, 225, 9999, 22000].entries()) {
        vi.setSystemTime(3_000_300 + i * 100);
        bar.update(Math.round((total * files) / 22000), total, files, 22000);
      }
      expect(written).toHaveLength(4);
      const bars = written.map((w) => {
        const line = w.replace('\r\x1b[K', '');
        expect(line.length).toBeLessThanOrEqual(79);
        return must(/^searching \[([#.]+)\] \d+\/22000 sessions \d+\/1363 MiB$/.exec(line))[1];
      });
      expect(new Set(bars.map((b) => b.length)).size).toBe(1);
      expect(bars[0].length).toBeGreaterThanOrEqual(10);
      expect(bars[3]).toMatch(/^#+$/);
    });
  });

  it('leaves the bar out where the counts leave it too little room, and cuts the line to the terminal', () => {
    const at = { done: 700 << 20, total: 1363 << 20, files: 11000, totalFiles: 22000 };
    expect(progressLine('searching', 'sessions', at, 45)).toBe('searching 11000/22000 sessions 700/1363 MiB');
    // (narrower: the bytes go first, then the line is cut)
    expect(progressLine('searching', 'sessions', at, 39)).toBe('searching 11000/22000 sessions');
    expect(progressLine('indexing', 'files', { ...at, total: 0 }, 30)).toBe('indexing 11000/22000 files');
    expect(progressLine('searching', 'sessions', at, 11)).toBe('searching 1');
    // wide: the bar stops at 60 columns
    const wide = progressLine('searching', 'sessions', at, 199);
    expect(must(/\[([#.]+)\]/.exec(wide))[1]).toHaveLength(60);
  });
});
