// Shared test helpers: temp HOMEs built from the fixtures, and running the real built CLI.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execFileSync, spawnSync, type SpawnSyncReturns } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { expect } from 'vitest';

export const ROOT = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
export const FIXTURES = path.join(ROOT, 'test', 'fixtures');
export const BIN = path.join(ROOT, 'bin', 'resume');

/** A fresh empty HOME (and cache) under the OS temp dir; removed by the caller's afterEach if wanted. */
export function tempHome(prefix = 'resume-test-'): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), prefix));
}

/** Copy a fixture file or directory to a path under `home`. */
export function put(home: string, fixture: string, dest: string): string {
  const src = path.join(FIXTURES, fixture);
  const to = path.join(home, dest);
  fs.mkdirSync(path.dirname(to), { recursive: true });
  fs.cpSync(src, to, { recursive: true });
  return to;
}

/** Write text to a path under `home` (parents created). */
export function write(home: string, rel: string, text: string | Buffer): string {
  const to = path.isAbsolute(rel) ? rel : path.join(home, rel);
  fs.mkdirSync(path.dirname(to), { recursive: true });
  fs.writeFileSync(to, text);
  return to;
}

export function jsonl(...objs: unknown[]): string {
  return objs.map((o) => JSON.stringify(o)).join('\n') + '\n';
}

/** The environment a test run gets: only what it names, plus PATH and the temp HOME. */
export function envFor(home: string, extra: Record<string, string | undefined> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    HOME: home,
    LANG: 'C.UTF-8',
    TZ: 'UTC',
    NO_COLOR: '1',
    RESUME_CACHE_DIR: path.join(home, '.cache', 'resume'),
  };
  for (const [k, v] of Object.entries(extra)) {
    if (v === undefined) delete env[k];
    else env[k] = v;
  }
  return env;
}

export interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

/** Run the built CLI (bin/resume) with a temp HOME. */
export function run(home: string, args: string[], extra: Record<string, string | undefined> = {}, opts: { cwd?: string; input?: string } = {}): Run {
  const r: SpawnSyncReturns<string> = spawnSync(process.execPath, [BIN, ...args], {
    env: envFor(home, extra),
    cwd: opts.cwd ?? home,
    input: opts.input ?? '',
    encoding: 'utf8',
    maxBuffer: 64 << 20,
  });
  return { code: r.status ?? (r.signal ? 128 : 1), stdout: r.stdout, stderr: r.stderr };
}

export function lsJson(home: string, extra: Record<string, string | undefined> = {}, args: string[] = ['-a']): any[] {
  const r = run(home, ['ls', '--json', ...args], extra);
  if (r.code !== 0) throw new Error(`ls --json failed (${r.code}): ${r.stderr}`);
  return JSON.parse(r.stdout);
}

/** Is a program on PATH? Under CI a missing program is a failure, elsewhere the test skips. */
export function have(prog: string): boolean {
  try {
    execFileSync('sh', ['-c', `command -v ${prog}`], { stdio: 'ignore' });
    return true;
  } catch {
    if (process.env.CI === 'true' || process.env.CI === '1') throw new Error(`${prog} is required under CI but is not installed`);
    return false;
  }
}

/** Set a file's mtime (seconds since epoch). */
export function touch(file: string, sec: number): void {
  fs.utimesSync(file, sec, sec);
}

/** The session with this id in an ls --json list (a failed expectation when missing). */
export function byId(list: any[], id: string): any {
  const s = list.find((x) => x.id === id);
  expect(s, `session ${id}`).toBeTruthy();
  return s;
}

/** `resume index` must succeed; its stderr (the counts). */
export function indexStderr(home: string, env: Record<string, string> = {}): string {
  const r = run(home, ['index'], env);
  expect(r.code).toBe(0);
  return r.stderr;
}
