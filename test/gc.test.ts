// lib/util/gc.ts: a full collection on demand for long builds, without leaving --expose-gc on.
import vm from 'node:vm';
import { describe, expect, it } from 'vitest';
import { fullCollector, heapUsed } from '../lib/util/gc.js';
import { must } from './helpers.js';

describe('fullCollector', () => {
  it('gives V8 full collection on this Node, collects, and leaves the flag off (no context made later sees gc)', () => {
    const gc = fullCollector();
    expect(typeof gc).toBe('function');
    // the same function every time
    expect(fullCollector()).toBe(gc);
    let junk: unknown[] | null = Array.from({ length: 200_000 }, (_, i) => ({ i, s: `garbage ${i}` }));
    const before = process.memoryUsage().heapUsed;
    junk = null;
    must(gc)();
    expect(junk).toBeNull();
    expect(process.memoryUsage().heapUsed).toBeLessThan(before - 5_000_000);
    // what a long build looks at to decide on one
    const used = heapUsed();
    expect(used).toBeGreaterThan(1_000_000);
    expect(used).toBeLessThan(before);
    expect(vm.runInNewContext('typeof gc')).toBe('undefined');
    expect(typeof (globalThis as { gc?: unknown }).gc).toBe('undefined');
  });
});
