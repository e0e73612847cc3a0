// Is a session running right now? Two processes appending to one transcript corrupt it, so a live
// session is never started twice: it is reached in its tmux pane (lib/launch/reach.ts), or refused
// (`--fork` is the way in).
//
// A session is live when a harness process (its program or script is one of the harness's binaries
// or the configured command):
//   - names the session's id or transcript file on its command line (not as the source of a fork), or
//   - holds the transcript open (Linux: /proc/<pid>/fd; macOS: lsof, only when checking one session),
// or when the harness's own registry says so (Claude Code: `<config dir>/sessions/<pid>.json`, whose
// pid must still be running: same start time when the file records one, else a Claude process).
//
// Cost: one pass over the process table (Linux: /proc/<pid>/cmdline; macOS: one `ps`), the open
// files of harness processes only, and one directory listing per Claude root. Other platforms: none.

import fs from 'node:fs';
import path from 'node:path';
import { readRegistry, rootOfTranscript } from '../harness/claude/care/registry.js';
import { alive } from '../os/proc.js';
import { runSync } from '../os/run.js';
import type { Harness, Session } from '../types.js';
import { addTo } from '../util/multimap.js';
import { escapeRe } from '../util/text.js';

export interface LiveHit {
  pid: number;
  via: 'registry' | 'argv' | 'open';
}

interface Proc {
  pid: number;
  argv: string[];
  /** harnesses this process runs (by its program or script name) */
  harnesses: Set<Harness>;
}

export interface LiveOptions {
  /** program names per harness: the adapter's binaries and the configured command */
  names: Map<Harness, string[]>;
  /** also the slow checks (macOS lsof); for the one session about to be resumed */
  thorough?: boolean;
  /** the process table and /proc root, for tests */
  platform?: NodeJS.Platform;
  proc?: string;
}

const INTERPRETER = /^(node|nodejs|bun|deno|sh|bash|dash|zsh|ksh|python[0-9.]*|ruby|perl)$/;
const FORK_FLAGS = new Set(['--fork-session', '--fork', 'fork']);

function base(p: string): string {
  return p.slice(p.lastIndexOf('/') + 1);
}

/** The harnesses whose program this command line runs (`claude …`, `node …/claude …`, `sh …/claude`). */
function harnessesOf(argv: string[], comm: string | null, names: Map<Harness, string[]>): Set<Harness> {
  const progs = new Set<string>();
  if (argv[0]) progs.add(base(argv[0]));
  if (comm) progs.add(comm);
  if (argv[0] && INTERPRETER.test(base(argv[0]))) {
    const script = argv.slice(1).find((a) => !a.startsWith('-'));
    if (script) progs.add(base(script));
  }
  const out = new Set<Harness>();
  for (const [h, ns] of names) if (ns.some((n) => progs.has(base(n)))) out.add(h);
  return out;
}

function readText(p: string): string | null {
  try {
    return fs.readFileSync(p, 'utf8');
  } catch {
    return null;
  }
}

function linuxProcs(root: string, names: Map<Harness, string[]>): Proc[] {
  let entries: string[];
  try {
    entries = fs.readdirSync(root);
  } catch {
    return [];
  }
  const out: Proc[] = [];
  for (const e of entries) {
    if (!/^\d+$/.test(e)) continue;
    const pid = Number(e);
    if (pid === process.pid) continue;
    const raw = readText(path.join(root, e, 'cmdline'));
    if (!raw) continue;
    const argv = raw.split('\0');
    if (argv[argv.length - 1] === '') argv.pop();
    let harnesses = harnessesOf(argv, null, names);
    // The kernel's name for it (a renamed process) only when the command line says nothing.
    if (!harnesses.size) harnesses = harnessesOf([], readText(path.join(root, e, 'comm'))?.trim() ?? null, names);
    if (harnesses.size) out.push({ pid, argv, harnesses });
  }
  return out.sort((a, b) => a.pid - b.pid);
}

function linuxOpenFiles(root: string, pid: number): string[] {
  const dir = path.join(root, String(pid), 'fd');
  let fds: string[];
  try {
    fds = fs.readdirSync(dir);
  } catch {
    return [];
  }
  const out: string[] = [];
  for (const fd of fds) {
    try {
      out.push(fs.readlinkSync(path.join(dir, fd)));
    } catch {
      /* closed meanwhile */
    }
  }
  return out;
}

function macProcs(names: Map<Harness, string[]>): Proc[] {
  const r = runSync('ps', ['-axww', '-o', 'pid=,args=']);
  if (!r.ok || !r.stdout) return [];
  const out: Proc[] = [];
  for (const line of r.stdout.split('\n')) {
    const m = /^\s*(\d+)\s+(.*)$/.exec(line);
    if (!m) continue;
    const [, pidText, cmd = ''] = m;
    const pid = Number(pidText);
    if (pid === process.pid) continue;
    // ps joins argv with spaces: words are a best effort (paths with spaces are matched whole below).
    const argv = cmd.split(/\s+/).filter(Boolean);
    const harnesses = harnessesOf(argv, null, names);
    if (harnesses.size) out.push({ pid, argv: [cmd, ...argv], harnesses });
  }
  return out.sort((a, b) => a.pid - b.pid);
}

function macHolders(file: string): number[] {
  const r = runSync('lsof', ['-t', '--', file]);
  if (!r.stdout) return [];
  return r.stdout
    .split('\n')
    .filter((l) => /^\d+$/.test(l))
    .map(Number);
}

/** What one search for live sessions works on and finds. */
interface Scan {
  sessions: Session[];
  linux: boolean;
  procRoot: string;
  byId: Map<string, Session[]>;
  byFile: Map<string, Session[]>;
  procByPid: Map<number, Proc>;
  hits: Map<string, LiveHit>;
}

function mark(c: Scan, s: Session, pid: number, via: LiveHit['via']): void {
  if (!c.hits.has(s.key)) c.hits.set(s.key, { pid, via });
}

/** The one session of a transcript, if only one has it (a shared database says nothing). */
function only(ss: Session[] | undefined): Session | undefined {
  return ss?.length === 1 ? ss[0] : undefined;
}

/** The command line names the id or the file (a fork names its source: that one is not live). */
function byArgv(c: Scan, p: Proc): void {
  if (p.argv.some((a) => FORK_FLAGS.has(a))) return;
  for (const a of p.argv) {
    const eq = a.indexOf('=');
    for (const w of eq > 0 ? [a, a.slice(eq + 1)] : [a]) {
      for (const s of [...(c.byId.get(w) ?? []), ...(c.byFile.get(w) ?? [])]) if (p.harnesses.has(s.harness)) mark(c, s, p.pid, 'argv');
    }
  }
  if (!c.linux) byPsLine(c, p);
}

/** ps output is one string: look for the file path and the id as whole words in it. */
function byPsLine(c: Scan, p: Proc): void {
  const cmd = p.argv[0] ?? '';
  for (const s of c.sessions) {
    if (!p.harnesses.has(s.harness) || c.hits.has(s.key)) continue;
    if (cmd.includes(s.file) || new RegExp(`(^|[\\s=])${escapeRe(s.id)}($|\\s)`).test(cmd)) mark(c, s, p.pid, 'argv');
  }
}

/** The transcript is open in it (Linux). */
function byOpenFiles(c: Scan, p: Proc): void {
  for (const f of linuxOpenFiles(c.procRoot, p.pid)) {
    const s = only(c.byFile.get(f));
    if (s && p.harnesses.has(s.harness)) mark(c, s, p.pid, 'open');
  }
}

/** The transcript is open in a harness process (macOS, lsof: one call per file). */
function byHolders(c: Scan): void {
  for (const [file, ss] of c.byFile) {
    const s = only(ss);
    if (!s || c.hits.has(s.key)) continue;
    const pid = macHolders(file).find((x) => c.procByPid.get(x)?.harnesses.has(s.harness));
    if (pid != null) mark(c, s, pid, 'open');
  }
}

/** Claude Code's registry, once per config directory. */
function byRegistry(c: Scan): void {
  const regRoots = new Map<string, Session[]>();
  for (const s of c.sessions) {
    if (s.harness !== 'claude' || c.hits.has(s.key)) continue;
    const root = rootOfTranscript(s.file);
    if (root) addTo(regRoots, root, s);
  }
  for (const [root, ss] of regRoots) {
    const want = new Map(ss.map((s) => [s.id, s]));
    for (const e of readRegistry(root)) {
      const s = want.get(e.sessionId);
      if (!s || c.hits.has(s.key)) continue;
      const running =
        c.linux && e.procStart != null
          ? alive(e.pid, e.procStart, { procRoot: c.procRoot, platform: 'linux' })
          : !!c.procByPid.get(e.pid)?.harnesses.has('claude');
      if (running) mark(c, s, e.pid, 'registry');
    }
  }
}

/** Live sessions among `sessions`, by key. */
export function findLive(sessions: Session[], opts: LiveOptions): Map<string, LiveHit> {
  const platform = opts.platform ?? process.platform;
  const procRoot = opts.proc ?? '/proc';
  const hits = new Map<string, LiveHit>();
  if (sessions.length === 0 || (platform !== 'linux' && platform !== 'darwin')) return hits;
  const linux = platform === 'linux';

  const byId = new Map<string, Session[]>();
  const byFile = new Map<string, Session[]>();
  for (const s of sessions) {
    addTo(byId, s.id, s);
    addTo(byFile, s.file, s);
  }
  const procs = linux ? linuxProcs(procRoot, opts.names) : macProcs(opts.names);
  const c: Scan = { sessions, linux, procRoot, byId, byFile, procByPid: new Map(procs.map((p) => [p.pid, p])), hits };

  for (const p of procs) {
    byArgv(c, p);
    if (linux) byOpenFiles(c, p);
  }
  if (!linux && opts.thorough) byHolders(c);
  byRegistry(c);
  return hits;
}
