// Shared test helpers: temp HOMEs built from the fixtures, and running the real built CLI.

import { execFileSync, type SpawnSyncReturns, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, onTestFinished } from 'vitest';
import type { Listed } from './json.js';

export const ROOT = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
export const FIXTURES = path.join(ROOT, 'test', 'fixtures');
export const BIN = path.join(ROOT, 'bin', 'resume');

const made = new Set<string>();

function remove(dir: string): void {
  // retries: a process the test started (a stand-in, a tmux server) may still be writing there
  try {
    fs.rmSync(dir, { recursive: true, force: true, maxRetries: 5, retryDelay: 100 });
    made.delete(dir);
  } catch {
    // still in use (a shell writing its history as it exits): kept in the list, so the file's
    // afterAll removes it; a cleanup never fails a test
  }
}

/** Remove every temp dir made by tempDir/tempHome not yet removed (registered by test/setup.ts). */
export function removeTempDirs(): void {
  for (const d of [...made]) remove(d);
}

/**
 * A fresh empty directory under the OS temp dir, removed automatically: made inside a test (or its
 * beforeEach), when that test finishes (after its afterEach hooks); made while collecting a file or
 * in beforeAll, after the file's last test (test/setup.ts registers the afterAll).
 */
export function tempDir(prefix = 'resume-test-'): string {
  const dir = sharedTempHome(prefix);
  try {
    onTestFinished(() => remove(dir));
  } catch {
    // not inside a test: the file's afterAll removes it
  }
  return dir;
}

/** A temp dir that several tests share even when a test makes it: removed after the file's last test. */
export function sharedTempHome(prefix = 'resume-test-'): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  made.add(dir);
  return dir;
}

/**
 * A recorded set's home copied into a temp HOME, with the directories its sessions ran in made
 * (`/tmp/resume-real/<client>/proj-…`, as the recording made them): a harness that resumes only in
 * the session's own directory is refused when that is gone.
 */
export function recordedHome(set: string, manifest: { sessions: Array<{ cwd: string }> }): string {
  const h = tempHome();
  fs.cpSync(path.join(set, 'home'), h, { recursive: true });
  for (const s of manifest.sessions) if (s.cwd) fs.mkdirSync(s.cwd, { recursive: true });
  return h;
}

/** A fresh empty HOME (and cache) under the OS temp dir, removed automatically (see tempDir). */
export function tempHome(prefix = 'resume-test-'): string {
  return tempDir(prefix);
}

/** A temp HOME with every real client's recorded sessions, as their homes had them (test/fixtures/real). */
export function realClientsHome(prefix = 'resume-real-home-'): string {
  const h = tempHome(prefix);
  const real = path.join(FIXTURES, 'real');
  for (const d of fs.readdirSync(real)) {
    const src = path.join(real, d, 'home');
    if (fs.existsSync(src)) fs.cpSync(src, h, { recursive: true, force: false, errorOnExist: false });
  }
  return h;
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
  return `${objs.map((o) => JSON.stringify(o)).join('\n')}\n`;
}

/**
 * A prompt as Claude Code 2.1 writes it, one JSONL record (before a reply: no parent). `extra`
 * replaces or adds fields (its `uuid` keeps its place among the keys).
 */
export function claudePrompt(
  id: string,
  cwd: string,
  text: string,
  at: string,
  extra: Record<string, unknown> = {},
): Record<string, unknown> {
  return {
    parentUuid: null,
    isSidechain: false,
    userType: 'external',
    cwd,
    sessionId: id,
    version: '2.1.207',
    gitBranch: 'main',
    type: 'user',
    message: { role: 'user', content: text },
    uuid: `u-${id}-${at}`,
    timestamp: at,
    entrypoint: 'cli',
    ...extra,
  };
}

/** A Claude Code record of a prompt (`user`, the default) or a reply, in session `sid`, linked to its parent by uuid (cwd /tmp). */
export interface ClaudeTurn {
  sid: string;
  role?: 'user' | 'assistant';
  uuid: string;
  parent: string | null;
  text: string;
  at: string;
}

export function claudeTurn({ sid, role = 'user', uuid, parent, text, at }: ClaudeTurn) {
  const message = role === 'user' ? { role, content: text } : { role, model: 'claude-test', content: [{ type: 'text', text }] };
  return { type: role, sessionId: sid, uuid, parentUuid: parent, cwd: '/tmp', timestamp: at, entrypoint: 'cli', message };
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
export function run(
  home: string,
  args: string[],
  extra: Record<string, string | undefined> = {},
  opts: { cwd?: string; input?: string } = {},
): Run {
  const r: SpawnSyncReturns<string> = spawnSync(process.execPath, [BIN, ...args], {
    env: envFor(home, extra),
    cwd: opts.cwd ?? home,
    input: opts.input ?? '',
    encoding: 'utf8',
    maxBuffer: 64 << 20,
  });
  return { code: r.status ?? (r.signal ? 128 : 1), stdout: r.stdout, stderr: r.stderr };
}

export function lsJson(home: string, extra: Record<string, string | undefined> = {}, args: string[] = ['-a']): Listed[] {
  const r = run(home, ['ls', '--json', ...args], extra);
  if (r.code !== 0) throw new Error(`ls --json failed (${r.code}): ${r.stderr}`);
  return JSON.parse(r.stdout);
}

export const CI = process.env.CI === 'true' || process.env.CI === '1';

function onPath(prog: string): boolean {
  try {
    execFileSync('sh', ['-c', 'command -v "$1"', 'sh', prog], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

/**
 * The skip condition of a test that drives these programs: `it.skipIf(needs('zsh', 'tmux'))(…)`.
 * True (skip) on a machine lacking one of them; under CI=true a missing program is not a skip: this
 * throws, failing the file, naming the program.
 */
export function needs(...progs: string[]): boolean {
  const missing = progs.filter((p) => !onPath(p));
  if (missing.length && CI) throw new Error(`${missing.join(', ')} required under CI but not installed`);
  return missing.length > 0;
}

/** A file the tests need (a plugin, say), with needs()' rule: skip when missing, fail under CI. */
export function needsFile(file: string, what: string): boolean {
  if (fs.existsSync(file)) return false;
  if (CI) throw new Error(`${what} (${file}) is required under CI but is not installed`);
  return true;
}

/**
 * The skip condition of a test of Linux-only machinery (/proc, the process table as Linux shows
 * it): true elsewhere. Not a missing program, so no failure under CI on another platform.
 */
export const notLinux = process.platform !== 'linux';

/**
 * The value a test's own data must hold (a match, a find, a spawned pid, a parsed file): a failed
 * test naming what it got when it is null or undefined, where `x!` would only fail later, elsewhere.
 */
export function must<T>(x: T | null | undefined, what = 'a value'): T {
  if (x === null || x === undefined) throw new Error(`expected ${what}, got ${x}`);
  return x;
}

/** Set a file's mtime (seconds since epoch). */
export function touch(file: string, sec: number): void {
  fs.utimesSync(file, sec, sec);
}

/** The session with this id in an ls --json list (a failed expectation when missing). */
export function byId(list: Listed[], id: string): Listed {
  const s = list.find((x) => x.id === id);
  expect(s, `session ${id}`).toBeTruthy();
  return must(s);
}

/** `resume index` must succeed; its stderr (the counts). */
export function indexStderr(home: string, env: Record<string, string> = {}): string {
  const r = run(home, ['index'], env);
  expect(r.code).toBe(0);
  return r.stderr;
}

export function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}

/** Poll (every 100 ms, with no deadline of its own: the test's timeout bounds it) until `f` gives a truthy value. */
export async function until<T>(f: () => T | null | undefined | false): Promise<T> {
  for (;;) {
    const v = f();
    if (v) return v;
    await sleep(100);
  }
}
