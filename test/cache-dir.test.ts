// A cache directory that cannot be made (RESUME_CACHE_DIR under a plain file, or under /proc, where
// Node's recursive mkdir retried for ever): the listing commands still answer, from an index kept in
// memory; `resume index`, whose job is to keep one, says why it cannot; doctor names the error.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { makeDir } from '../lib/util/fsx.js';
import { put, run, tempDir, tempHome } from './helpers.js';

function homeWithSessions(): string {
  const home = tempHome();
  put(home, 'pi/sessions', '.pi/agent/sessions');
  return home;
}

const unusable = (home: string): Array<[string, string]> => {
  const file = path.join(home, 'plain-file');
  fs.writeFileSync(file, 'not a directory\n');
  const dirs: Array<[string, string]> = [[path.join(file, 'cache'), 'ENOTDIR']];
  if (fs.existsSync('/proc/self')) dirs.push(['/proc/resume-no-such-dir', 'ENOENT']);
  return dirs;
};

describe('a cache directory that cannot be made', () => {
  it('lists, searches and previews from an index in memory', () => {
    const home = homeWithSessions();
    const good = run(home, ['ls', '--json', '-a']);
    expect(good.code).toBe(0);
    const ids = JSON.parse(good.stdout).map((s: { id: string }) => s.id);
    expect(ids.length).toBeGreaterThan(0);
    for (const [dir] of unusable(home)) {
      const env = { RESUME_CACHE_DIR: dir };
      const ls = run(home, ['ls', '--json', '-a'], env);
      expect(ls.stderr).toBe('');
      expect(ls.code).toBe(0);
      expect(JSON.parse(ls.stdout).map((s: { id: string }) => s.id)).toEqual(ids);
      const rows = run(home, ['rows', '-a'], env);
      expect(rows.code).toBe(0);
      expect(rows.stdout.trim().split('\n')).toHaveLength(ids.length);
      const found = run(home, ['search', '-a', '--json', 'hello'], env);
      expect(found.code).toBe(0);
      expect(JSON.parse(found.stdout).length).toBeGreaterThan(0);
      const pv = run(home, ['preview', ids[0]], env);
      expect(pv.code).toBe(0);
      expect(pv.stdout).not.toBe('');
    }
  });

  it('`resume index` exits 2 with one line naming the directory and the error', () => {
    const home = homeWithSessions();
    for (const [dir, code] of unusable(home)) {
      const r = run(home, ['index'], { RESUME_CACHE_DIR: dir });
      expect(r.code).toBe(2);
      expect(r.stdout).toBe('');
      expect(r.stderr).toBe(`resume: cannot keep an index in ${dir}: ${code} (RESUME_CACHE_DIR)\n`);
    }
  });

  it('doctor says why it cannot be used', () => {
    const home = homeWithSessions();
    const [[dir]] = unusable(home);
    const r = run(home, ['doctor', '--json'], { RESUME_CACHE_DIR: dir });
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout).index).toEqual({ dir, error: 'ENOTDIR', files: [] });
    expect(run(home, ['doctor'], { RESUME_CACHE_DIR: dir }).stdout).toContain('(cannot be used: ENOTDIR)');
  });
});

describe('makeDir', () => {
  it('makes every missing level with the mode asked, and leaves an existing one', () => {
    const root = tempDir();
    const deep = path.join(root, 'a', 'b', 'c');
    makeDir(deep);
    makeDir(deep);
    for (const d of ['a', 'a/b', 'a/b/c']) expect(fs.statSync(path.join(root, d)).mode & 0o777).toBe(0o700);
  });

  it('throws the error of the level it cannot make', () => {
    const root = tempDir();
    fs.writeFileSync(path.join(root, 'f'), '');
    expect(() => makeDir(path.join(root, 'f', 'x'))).toThrow(expect.objectContaining({ code: 'ENOTDIR' }));
    if (fs.existsSync('/proc/self'))
      expect(() => makeDir('/proc/resume-no-such-dir/x')).toThrow(expect.objectContaining({ code: 'ENOENT' }));
  });
});
