// Claude Code's live-process registry: `<config dir>/sessions/<pid>.json`, written by every running
// interactive claude (2.1.139 and later) and removed when it exits. Fields read here: pid, sessionId,
// cwd, version, status (`idle`, `busy`, `waiting`, `shell`, …), name with nameSource (`user` for a
// /rename; 2.1.332 also shows a `derived` name such as `proj-b-7c`, which is not kept), procStart (Linux: field 22 of /proc/<pid>/stat, the pid-reuse guard), startedAt, updatedAt.
// Older builds wrote `pid-<n>.json` with `session_id`; those are orphans and are not read.
import fs from 'node:fs';
import path from 'node:path';
import { alive } from '../../../os/proc.js';
import { procTable, procEnviron as readEnviron } from '../../../panes/proc.js';
import type { Ctx } from '../../../types.js';
import { sleepSync } from '../../../util/time.js';
import { claude } from '../index.js';

export interface RegEntry {
  /** the registry file */
  file: string;
  /** the Claude config directory it belongs to (its parent's parent) */
  root: string;
  pid: number;
  sessionId: string;
  cwd: string | null;
  version: string | null;
  status: string | null;
  /** the /rename name; null for a name Claude derived itself (nameSource "derived": the directory plus a suffix) */
  name: string | null;
  procStart: string | null;
  startedAt: number | null;
  updatedAt: number | null;
}

/** Claude config directories that exist (CLAUDE_CONFIG_DIR or ~/.claude, RESUME_CLAUDE_DIRS, XDG). */
export function claudeRoots(ctx: Ctx): string[] {
  return claude
    .roots(ctx)
    .filter((r) => r.exists)
    .map((r) => r.path);
}

/** The config directory a transcript `<root>/projects/<slug>/<id>.jsonl` lives under, or null. */
export function rootOfTranscript(file: string): string | null {
  const projects = path.dirname(path.dirname(file));
  return path.basename(projects) === 'projects' ? path.dirname(projects) : null;
}

const str = (v: unknown): string | null => (typeof v === 'string' && v ? v : null);
const num = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : null);

/**
 * A registry file's JSON. Claude updates its file while it runs (status, updatedAt); a writer that
 * rewrites in place can be read empty or half-written, so such a read is retried twice, 25 ms apart,
 * before the file is passed over. undefined when it is gone or never parses.
 */
function readJson(file: string): unknown {
  for (let attempt = 0; ; attempt++) {
    let text: string;
    try {
      text = fs.readFileSync(file, 'utf8');
    } catch {
      return undefined;
    }
    try {
      return JSON.parse(text);
    } catch {
      if (attempt >= 2) return undefined;
      sleepSync(25);
    }
  }
}

/** Every well-formed registry file under one config directory (live or not). */
export function readRegistry(root: string): RegEntry[] {
  const dir = path.join(root, 'sessions');
  let names: string[];
  try {
    names = fs.readdirSync(dir);
  } catch {
    return [];
  }
  const out: RegEntry[] = [];
  for (const n of names.sort()) {
    if (!/^\d+\.json$/.test(n)) continue;
    const file = path.join(dir, n);
    const raw = readJson(file);
    if (raw === undefined) continue; // gone, foreign, or still half-written after the re-reads
    if (!raw || typeof raw !== 'object') continue;
    const o = raw as Record<string, unknown>;
    const pid = Number(o.pid ?? n.slice(0, -5));
    const sessionId = str(o.sessionId);
    if (!Number.isInteger(pid) || pid <= 0 || !sessionId) continue;
    out.push({
      file,
      root,
      pid,
      sessionId,
      cwd: str(o.cwd),
      version: o.version != null ? String(o.version) : null,
      status: str(o.status),
      name: o.nameSource == null || o.nameSource === 'user' ? str(o.name) : null,
      procStart: o.procStart != null ? String(o.procStart) : null,
      startedAt: num(o.startedAt),
      updatedAt: num(o.updatedAt),
    });
  }
  return out;
}

/** Registry entries whose process runs, across every Claude config directory. */
export function liveEntries(ctx: Ctx): RegEntry[] {
  const out: RegEntry[] = [];
  for (const root of claudeRoots(ctx)) for (const e of readRegistry(root)) if (alive(e.pid, e.procStart)) out.push(e);
  return out;
}

/** A process's environment: /proc/<pid>/environ on Linux, `ps eww` elsewhere (lib/panes/proc.ts); null when unreadable. */
export function procEnviron(pid: number, procRoot = '/proc'): Record<string, string> | null {
  return procRoot === '/proc' ? procTable().environ(pid) : readEnviron(pid, procRoot);
}

/** The transcript of a session under one config directory: `projects/<any>/<id>.jsonl`, or null. */
export function findTranscript(root: string, id: string): string | null {
  const projects = path.join(root, 'projects');
  let dirs: string[];
  try {
    dirs = fs.readdirSync(projects);
  } catch {
    return null;
  }
  for (const d of dirs) {
    const f = path.join(projects, d, `${id}.jsonl`);
    try {
      if (fs.statSync(f).isFile()) return f;
    } catch {
      /* not here */
    }
  }
  return null;
}
