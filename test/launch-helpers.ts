// Helpers for test/launch.test.ts and test/resolve.test.ts: sessions in chosen directories for
// Claude Code, pi and Codex, and a stand-in harness on PATH that records its name, cwd and argv.
import fs from 'node:fs';
import path from 'node:path';
import { jsonl, write } from './helpers.js';

export interface ClaudeOpts {
  id: string;
  cwd: string;
  prompt?: string;
  /** ISO time of the lines */
  at?: string;
  /** `sdk-cli` makes a hidden SDK session */
  entrypoint?: string;
  branch?: string;
}

/**
 * One line of a Claude Code transcript as the CLI writes it (session `id` in `cwd`); `extra` (the
 * message, say) comes last and may override any field.
 */
export function claudeLine(
  o: { id: string; cwd: string; type: string; uuid: string; at: string; branch?: string; entrypoint?: string },
  extra: object = {},
): object {
  return {
    parentUuid: null,
    isSidechain: false,
    userType: 'external',
    cwd: o.cwd,
    sessionId: o.id,
    version: '2.1.0',
    gitBranch: o.branch ?? 'main',
    type: o.type,
    uuid: o.uuid,
    timestamp: o.at,
    entrypoint: o.entrypoint ?? 'cli',
    ...extra,
  };
}

/** A Claude Code transcript `~/.claude/projects/<slug>/<id>.jsonl`; returns its path. */
export function claudeSession(home: string, o: ClaudeOpts): string {
  const at = o.at ?? '2026-01-01T00:00:00.000Z';
  const line = (type: string, extra: object) => claudeLine({ ...o, type, uuid: `${o.id}-${type}`, at }, extra);
  return write(
    home,
    `.claude/projects/-p-${o.id.slice(0, 8)}/${o.id}.jsonl`,
    jsonl(
      line('user', { message: { role: 'user', content: o.prompt ?? `prompt of ${o.id}` } }),
      line('assistant', { message: { role: 'assistant', content: [{ type: 'text', text: 'ok' }] } }),
    ),
  );
}

/**
 * A pi session with two prompts typed in the TUI (the first seconds after the header: a prompt sent
 * at once is a print run, hidden as headless); returns its path.
 */
export function piSession(home: string, o: { id: string; cwd: string; prompts?: string[]; at?: string }): string {
  const at = o.at ?? '2026-01-01T00:00:00.000Z';
  const before = (s: number) => new Date(Date.parse(at) - s * 1000).toISOString();
  const prompts = o.prompts ?? ['first', 'second'];
  // the last reply is at `at` (the session's last activity); the header 100 s before
  const msgs = prompts.flatMap((p, i) => [
    {
      type: 'message',
      id: `u${i}`,
      parentId: null,
      timestamp: before(2 * (prompts.length - 1 - i) + 1),
      message: { role: 'user', content: [{ type: 'text', text: p }], timestamp: 0 },
    },
    {
      type: 'message',
      id: `a${i}`,
      parentId: `u${i}`,
      timestamp: before(2 * (prompts.length - 1 - i)),
      message: { role: 'assistant', content: [{ type: 'text', text: 'ok' }], model: 'm' },
    },
  ]);
  return write(
    home,
    `.pi/agent/sessions/--p--/2026-01-01T00-00-00-000Z_${o.id}.jsonl`,
    jsonl({ type: 'session', version: 3, id: o.id, timestamp: before(100), cwd: o.cwd }, ...msgs),
  );
}

/** A Codex rollout under `~/.codex/sessions`; returns its path. */
export function codexSession(home: string, o: { id: string; cwd: string; prompt?: string }): string {
  const at = '2026-01-02T03:04:05.000Z';
  return write(
    home,
    `.codex/sessions/2026/01/02/rollout-2026-01-02T03-04-05-${o.id}.jsonl`,
    jsonl(
      {
        timestamp: at,
        type: 'session_meta',
        payload: { id: o.id, timestamp: at, cwd: o.cwd, originator: 'codex_cli_rs', cli_version: '0.0.0', source: 'cli' },
      },
      { timestamp: at, type: 'event_msg', payload: { type: 'user_message', message: o.prompt ?? 'a codex prompt' } },
    ),
  );
}

export interface StandIn {
  /** PATH with the stand-in first */
  PATH: string;
  bin: string;
  log: string;
}

/**
 * Stand-in harness executables (`claude`, `pi`, `codex`, … one Node script under several names)
 * that append `{name, cwd, argv, pid, env}` to a log (`env`: the variables that point a harness at
 * its store, when set). Behaviour by environment:
 * STANDIN_EXIT=n exit n; STANDIN_SELFKILL=SIG kill itself; STANDIN_WAIT=1 stay running;
 * STANDIN_TRAP=n on SIGTERM/SIGINT/SIGHUP log `{signal}` and exit n; STANDIN_OPEN=file hold it open.
 */
export function standIn(home: string, names = ['claude', 'pi', 'codex', 'viewer']): StandIn {
  const bin = path.join(home, 'bin');
  const log = standInLog(home);
  fs.mkdirSync(bin, { recursive: true });
  const script = `#!${process.execPath}
const fs = require('fs');
const log = ${JSON.stringify(log)};
const name = require('path').basename(process.argv[1]);
const e = process.env;
if (e.STANDIN_OPEN) globalThis.held = fs.openSync(e.STANDIN_OPEN, 'r');
if (e.STANDIN_TRAP) for (const sig of ['SIGTERM', 'SIGINT', 'SIGHUP']) process.on(sig, () => {
  fs.appendFileSync(log, JSON.stringify({ name, signal: sig }) + '\\n');
  process.exit(Number(e.STANDIN_TRAP));
});
const STORE = ['CLAUDE_CONFIG_DIR', 'CODEX_HOME', 'GEMINI_CLI_HOME', 'OPENCODE_DB', 'XDG_DATA_HOME', 'CURSOR_CONFIG_DIR', 'CURSOR_DATA_DIR'];
const env = Object.fromEntries(STORE.filter((k) => e[k] != null).map((k) => [k, e[k]]));
fs.appendFileSync(log, JSON.stringify({ name, cwd: process.cwd(), argv: process.argv.slice(2), pid: process.pid, env }) + '\\n');
if (e.STANDIN_SELFKILL) process.kill(process.pid, e.STANDIN_SELFKILL);
else if (e.STANDIN_WAIT) setInterval(() => {}, 1 << 30);
else process.exit(Number(e.STANDIN_EXIT || 0));
`;
  for (const n of names) fs.writeFileSync(path.join(bin, n), script, { mode: 0o755 });
  return { PATH: `${bin}:${process.env.PATH}`, bin, log };
}

/** The log the stand-ins in HOME/bin append to. */
export function standInLog(home: string): string {
  return path.join(home, 'standin.jsonl');
}

/** A line of the stand-in's log: what it was run with, or (STANDIN_TRAP) the signal it got. */
export interface Ran {
  name: string;
  cwd?: string;
  argv?: string[];
  pid?: number;
  env?: Record<string, string>;
  signal?: string;
}

export function records(log: string): Ran[] {
  if (!fs.existsSync(log)) return [];
  return fs
    .readFileSync(log, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l));
}

/** Wait (without a deadline of its own: the test's timeout bounds it) until the log has n records. */
export async function waitRecords(log: string, n: number): Promise<Ran[]> {
  for (;;) {
    const r = records(log);
    if (r.length >= n) return r;
    await new Promise((res) => setTimeout(res, 20));
  }
}

/** UUID-shaped id number i (distinct in its last group). */
export function uuid(i: number, head = '00000000-0000-4000-8000'): string {
  return `${head}-${i.toString(16).padStart(12, '0')}`;
}

/**
 * A last uuid group of this test process's own, for ids written as `${prefix}-4e5f-4061-8071-${TAIL}`:
 * the live check reads every process on the machine, so a stand-in run by a concurrent test run
 * (another checkout, another file) naming the same id would make a session look live.
 */
export const TAIL = process.pid.toString(16).padStart(12, '0').slice(-12);
