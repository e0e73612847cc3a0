// lib/util/gc.ts: a full collection on demand for long builds, without leaving --expose-gc on.
import vm from 'node:vm';
import { describe, expect, it } from 'vitest';
import { fullCollector, heapGrowthFlag, heapUsed } from '../lib/util/gc.js';
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

describe('heapGrowthFlag', () => {
  it('is set only on the V8 releases known to have its flag (V8 prints an error for one it does not know)', () => {
    for (const v of ['11.3.244.8-node.38', '12.4.254.21-node.57', '14.6.202.34-node.40'])
      expect(heapGrowthFlag(v)).toBe('--heap-growing-percent=60');
    for (const v of ['10.2.154.26-node.26', '15.0.1', '', 'x']) expect(heapGrowthFlag(v)).toBeNull();
    // this Node's has it (test/codecache.test.ts: a search sets it and puts it back)
    expect(heapGrowthFlag()).not.toBeNull();
  });
});
