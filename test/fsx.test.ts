// Writing the index's files (lib/util/fsx.ts): a reader sees the old file or the new one whole, and a
// write that fails leaves the old one and no temp file.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { writeAtomic, writeCacheFile } from '../lib/util/fsx.js';

let dir: string;
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'resume-fsx-'));
});
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

describe.each([
  ['writeAtomic', (f: string, d: Iterable<string | Uint8Array>) => writeAtomic(f, d)],
  ['writeCacheFile', writeCacheFile],
])('%s', (_, write) => {
  it('replaces the file with the chunks in order, 0600, in a directory it makes', () => {
    const file = path.join(dir, 'sub', 'rows.bin');
    write(file, ['old']);
    write(file, [Buffer.from('ab'), 'cd', new Uint8Array([0x65])]);
    expect(fs.readFileSync(file, 'utf8')).toBe('abcde');
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    expect(fs.readdirSync(path.dirname(file))).toEqual(['rows.bin']);
  });

  it('leaves the old file, and no temp file, when making the new one fails', () => {
    const file = path.join(dir, 'check.bin');
    write(file, ['old']);
    const failing = (function* () {
      yield 'new';
      throw new Error('disk full');
    })();
    expect(() => write(file, failing)).toThrow('disk full');
    expect(fs.readFileSync(file, 'utf8')).toBe('old');
    expect(fs.readdirSync(dir)).toEqual(['check.bin']);
  });
});
