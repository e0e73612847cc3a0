// `resume doctor`: one screen a user can paste into a bug report. Per harness: the roots looked at
// (and what chose each), files and sessions found, hidden counts, what was skipped and why, record
// types the parsers do not know, the newest session, the harness binary and its version. Also the
// index files, fzf, the shell and the SQLite module. Always exits 0.

import fs from 'node:fs';
import path from 'node:path';
import type { App } from '../app.js';
import { ADAPTERS, rootsOf } from '../harness/registry.js';
import { sqliteStatus } from '../harness/sqlite.js';
import { newerThan } from '../harness/tested.js';
import type { IndexResult } from '../index/index.js';
import { indexFiles } from '../index/index.js';
import { noEngine } from '../index/store.js';
import { probeVersionAsync, versionIn } from '../os/version.js';
import type { Counters, Harness, Root, Session } from '../types.js';
import { stdoutColumns } from '../util/lazy.js';
import { configFile, tildify } from '../util/paths.js';
import { shown } from '../util/quote.js';
import { clip, cut, oneLine, width } from '../util/text.js';
import { age, iso } from '../util/time.js';
import { onPath } from '../util/which.js';
import { out } from './common.js';
import { type Call, VERSION } from './table.js';

const TOP_UNKNOWN = 5;

export interface Program {
  name: string;
  path: string;
  version: string | null;
}

export interface HarnessReport {
  name: Harness;
  label: string;
  roots: Root[];
  files: number;
  filesByKind: Record<string, number>;
  sessions: number;
  hidden: Record<string, number>;
  skipped: { badLines: number; hugeLines: number; reasons: Record<string, number>; failedFiles: number; failed: string | null };
  unknownTypes: { type: string; count: number }[];
  newest: { id: string; updated: string | null; cwd: string | null; title: string | null } | null;
  /**
   * Format drift the listing can see: sessions with replies but no prompt found (the prompt moved
   * to a shape the parser does not read), up to 3 of their files; and the newest client version the
   * adapter was checked against (its `testedVersion`).
   */
  noPrompt: { count: number; files: string[] };
  tested: string | null;
  binary: Program | null;
  /** the binary on PATH is newer than `tested` */
  newerThanTested: boolean;
}

/** What `doctor --json` prints. */
export interface Report {
  version: string;
  demo: boolean;
  /** the config file and what became of it: read, absent, unreadable (the defaults are used) or bad (commands that use it stop) */
  config: { file: string; state: 'read' | 'absent' | 'unreadable' | 'bad'; error: string | null };
  /** error: why the directory cannot be used (its errno code), null when it can or is not made yet */
  index: { dir: string; error: string | null; files: { path: string; size: number; files: number; modified: string }[] };
  fzf: Program | null;
  shell: string | null;
  sqlite: { ok: boolean; engine: 'node:sqlite' | 'better-sqlite3' | null; version: string | null; error: string | null };
  skipped: { notRegular: number; unreadable: number };
  harnesses: HarnessReport[];
  /** Claude Code rescue (snapshot/restore): live sessions, snapshot records, warnings */
  claudeCare: { live: number; snapshots: number; store: string; warnings: string[] };
  /** update hooks (resume hooks): configured hooks, the watcher, pending work, the last run, warnings */
  hooks: {
    configured: number;
    installed: boolean;
    loaded: boolean | null;
    loadedDetail: string;
    recorded: string | null;
    pending: string[];
    lastRun: { time: string; event: string; hook: number | null; result: string } | null;
    warnings: string[];
  };
}

async function program(names: string[], envPath: string): Promise<Program | null> {
  for (const n of names) {
    const p = onPath(n, envPath);
    if (p) return { name: n, path: p, version: (await probeVersionAsync(p)).line };
  }
  return null;
}

/** The files' parse counters summed: lines skipped and why, record types not known, files that failed. */
function countEntries(mine: NonNullable<IndexResult['entries']>[string][]) {
  const filesByKind: Record<string, number> = {};
  const reasons: Record<string, number> = {};
  const unknown: Record<string, number> = {};
  const n = { badLines: 0, hugeLines: 0, failedFiles: 0 };
  for (const e of mine) {
    filesByKind[e.src.kind] = (filesByKind[e.src.kind] ?? 0) + 1;
    if (e.error) n.failedFiles++;
    const c = (e.state as { counters?: Counters } | undefined)?.counters;
    if (!c) continue;
    n.badLines += c.badLines ?? 0;
    n.hugeLines += c.hugeLines ?? 0;
    for (const [k, v] of Object.entries(c.unknownTypes ?? {})) unknown[k] = (unknown[k] ?? 0) + v;
    for (const [k, v] of Object.entries(c.skipped ?? {})) reasons[k] = (reasons[k] ?? 0) + v;
  }
  return { filesByKind, reasons, unknown, ...n };
}

function harnessReport(
  a: (typeof ADAPTERS)[number],
  r: IndexResult,
  sessions: Session[],
): Omit<HarnessReport, 'binary' | 'newerThanTested'> {
  const mine = Object.values(r.entries ?? {}).filter((e) => e.src?.harness === a.name);
  const { filesByKind, reasons, unknown, badLines, hugeLines, failedFiles } = countEntries(mine);
  const ss = sessions.filter((s) => s.harness === a.name);
  const hidden: Record<string, number> = {};
  for (const s of ss) if (s.hidden) hidden[s.hiddenReason ?? 'other'] = (hidden[s.hiddenReason ?? 'other'] ?? 0) + 1;
  const newest = ss[0] ?? null; // the index sorts newest first
  // Replies with no prompt: what Codex 0.171 looked like to a reader of user_message events only.
  const noPrompt = ss.filter((s) => s.prompts === 0 && s.lastReply != null && !s.forkedFrom && s.hiddenReason !== 'subagent');
  return {
    name: a.name,
    label: a.label,
    roots: r.roots.get(a.name) ?? [],
    files: mine.length,
    filesByKind,
    sessions: ss.length,
    hidden,
    skipped: { badLines, hugeLines, reasons, failedFiles, failed: r.skipped.failed[a.name] ?? null },
    unknownTypes: Object.entries(unknown)
      .sort((x, y) => y[1] - x[1] || (x[0] < y[0] ? -1 : 1))
      .slice(0, TOP_UNKNOWN)
      .map(([type, count]) => ({ type: oneLine(type), count })),
    noPrompt: { count: noPrompt.length, files: noPrompt.slice(0, 3).map((s) => s.file) },
    tested: a.testedVersion,
    newest: newest
      ? {
          id: newest.id,
          updated: iso(newest.updated ?? newest.started),
          cwd: newest.cwd,
          title: (newest.title ?? newest.firstPrompt) ? clip(oneLine(newest.title ?? newest.firstPrompt ?? ''), 400) : null,
        }
      : null,
  };
}

/** Size, file count and newest change of everything under a path (a file, or a directory such as the code cache). */
function usage(p: string, depth = 3): { size: number; files: number; modified: number } | null {
  let st: fs.Stats;
  try {
    st = fs.statSync(p);
  } catch {
    return null;
  }
  if (st.isFile()) return { size: st.size, files: 1, modified: st.mtimeMs };
  if (!st.isDirectory() || depth <= 0) return null;
  const acc = { size: 0, files: 0, modified: 0 };
  let names: string[] = [];
  try {
    names = fs.readdirSync(p);
  } catch {
    return acc;
  }
  for (const n of names) {
    const u = usage(path.join(p, n), depth - 1);
    if (!u) continue;
    acc.size += u.size;
    acc.files += u.files;
    acc.modified = Math.max(acc.modified, u.modified);
  }
  return acc;
}

function indexReport(app: App): Report['index'] {
  const { dir } = indexFiles(app.ctx);
  const files: Report['index']['files'] = [];
  let names: string[] = [];
  let error: string | null = null;
  try {
    names = fs.readdirSync(dir).sort();
  } catch (err) {
    // (missing: not built yet; anything else, such as a path through a plain file, is worth saying)
    const code = (err as NodeJS.ErrnoException).code ?? 'error';
    if (code !== 'ENOENT') error = code;
  }
  for (const n of names) {
    // (the HOME made beside the index, the demo's: links to the bundled stores, not part of the index)
    if (path.join(dir, n) === app.ctx.home) continue;
    const u = usage(path.join(dir, n));
    if (u && u.files > 0)
      files.push({ path: path.join(dir, n), size: u.size, files: u.files, modified: new Date(u.modified).toISOString() });
  }
  return { dir, error, files };
}

function size(n: number): string {
  if (n < 1024) return `${n} B`;
  if (n < 1 << 20) return `${(n / 1024).toFixed(1)} KiB`;
  return `${(n / 1048576).toFixed(1)} MiB`;
}

/** What the text report's parts write with: its lines, a `key  value` line, a path as shown, the time now. */
interface TextOut {
  lines: string[];
  kv: (k: string, v: string) => void;
  p: (s: string | null) => string;
  now: number;
  /** the terminal's width (null: not a terminal) */
  cols: number | null;
}

function text(r: Report, home: string, now: number, cols: number | null): string {
  const lines: string[] = [];
  const o: TextOut = {
    lines,
    kv: (k, v) => lines.push(`  ${k.padEnd(10)}${v}`),
    p: (s) => oneLine(tildify(s, home) || ''),
    now,
    cols,
  };
  generalText(r, o);
  for (const h of r.harnesses) harnessText(h, o);
  careText(r.claudeCare, o);
  hooksText(r.hooks, o);
  return `${lines.join('\n')}\n`;
}

/** resume itself: the index, the config, fzf, the shell, SQLite, what was skipped. */
function generalText(r: Report, { lines, kv, p, now }: TextOut): void {
  lines.push(`resume ${r.version}${r.demo ? ' (demo HOME)' : ''}`);
  kv('index', p(r.index.dir) + (r.index.error ? ` (cannot be used: ${r.index.error})` : r.index.files.length ? '' : ' (not built yet)'));
  for (const f of r.index.files) {
    const n = f.files > 1 ? `/ (${f.files} files)` : '';
    kv('', `${oneLine(path.basename(f.path))}${n}  ${size(f.size)}, ${age(Date.parse(f.modified), now)} old`);
  }
  const cf = r.config;
  const cfState = {
    read: 'read',
    absent: 'none (the defaults)',
    unreadable: `cannot read it (${cf.error}): the defaults are used`,
    bad: `${cf.error} (commands that use it stop with exit 2)`,
  }[cf.state];
  kv('config', `${p(cf.file)}  ${oneLine(cfState)}`);
  kv('fzf', r.fzf ? `${p(r.fzf.path)}${r.fzf.version ? ` (${r.fzf.version})` : ''}` : 'not on PATH (the picker needs it)');
  kv('shell', r.shell ? oneLine(r.shell) : '$SHELL is not set');
  kv('sqlite', r.sqlite.ok ? `${r.sqlite.engine}, SQLite ${r.sqlite.version}` : oneLine(noEngine(r.sqlite.error ?? '')));
  if (r.skipped.notRegular || r.skipped.unreadable) {
    kv('skipped', `${r.skipped.notRegular} not regular files, ${r.skipped.unreadable} unreadable (all harnesses)`);
  }
}

/**
 * A harness's newest session: id, age, directory, and the title in what that leaves of a terminal
 * (12: the key's columns, 2: the gap), where the terminal wrapped it inside a word; none in fewer
 * than 10 columns. Not on a terminal: the title to 60 characters.
 */
function newestLine(n: NonNullable<HarnessReport['newest']>, { p, now, cols }: TextOut): string {
  const ms = n.updated ? Date.parse(n.updated) : null;
  const line = `${oneLine(n.id)}  ${age(ms, now)} ago  ${p(n.cwd) || '?'}`;
  const room = cols === null ? 60 : Math.min(60, cols - 12 - width(line) - 2);
  const title = n.title ? oneLine(n.title) : '';
  const t = !title || room < 10 ? '' : cols === null ? clip(title, 60) : cut(title, room);
  return `${line}${t ? `  ${t}` : ''}`;
}

/** One harness: roots, files, sessions, skipped lines, the newest session, the binary and drift. */
function harnessText(h: HarnessReport, o: TextOut): void {
  const { lines, kv, p } = o;
  lines.push('');
  lines.push(`${h.name} (${h.label})`);
  h.roots.forEach((root, i) => {
    const what = [root.via, root.role, root.exists ? 'exists' : 'missing'].filter(Boolean).join(', ');
    kv(i === 0 ? 'roots' : '', `${p(root.path)}  (${what})`);
  });
  if (!h.roots.length) kv('roots', 'none');
  const kinds = Object.entries(h.filesByKind)
    .map(([k, n]) => `${n} ${k}`)
    .join(', ');
  kv('files', `${h.files}${kinds ? ` (${kinds})` : ''}`);
  const hid = Object.entries(h.hidden)
    .sort((a, b) => b[1] - a[1])
    .map(([k, n]) => `${n} ${k}`)
    .join(', ');
  const nHidden = Object.values(h.hidden).reduce((a, b) => a + b, 0);
  kv('sessions', `${h.sessions}${nHidden ? `, ${nHidden} hidden: ${hid}` : ''}`);
  const sk: string[] = [];
  if (h.skipped.badLines) sk.push(`${h.skipped.badLines} lines that are not JSON objects`);
  if (h.skipped.hugeLines) sk.push(`${h.skipped.hugeLines} oversized lines not decoded`);
  for (const [k, n] of Object.entries(h.skipped.reasons)) sk.push(`${n} ${oneLine(k)}`);
  if (h.skipped.failedFiles) sk.push(`${h.skipped.failedFiles} files failed`);
  if (sk.length) kv('skipped', sk.join('; '));
  if (h.skipped.failed) kv('error', oneLine(h.skipped.failed));
  if (h.unknownTypes.length) kv('unknown', h.unknownTypes.map((u) => `${u.type} ×${u.count}`).join(', '));
  if (h.newest) kv('newest', newestLine(h.newest, o));
  binaryText(h, o);
}

/** The harness binary, and signs that its files changed shape. */
function binaryText(h: HarnessReport, { kv, p }: TextOut): void {
  kv(
    'binary',
    h.binary
      ? `${p(h.binary.path)}${h.binary.version ? ` (${h.binary.version})` : ' (no version)'}`
      : `not on PATH (${ADAPTERS.find((a) => a.name === h.name)?.binaries.join(' or ') ?? h.name})`,
  );
  if (h.newerThanTested)
    kv(
      'drift',
      `${oneLine(h.binary?.version ?? '')} is newer than ${h.tested}, the newest version resume was checked against: its files may have changed shape`,
    );
  if (h.noPrompt.count)
    kv(
      'drift',
      `${h.noPrompt.count} sessions with replies but no prompt found (a prompt shape resume does not read?), e.g. ${p(h.noPrompt.files[0] ?? '')}`,
    );
}

/** Claude's rescue records (resume snapshot). */
function careText(c: Report['claudeCare'], { lines, kv, p }: TextOut): void {
  lines.push('');
  lines.push('claude rescue (resume snapshot)');
  kv('store', `${p(c.store)}  (${c.snapshots} record(s); ${c.live} live Claude session(s))`);
  for (const w of c.warnings) kv('warning', oneLine(w));
}

/** The update hooks and their watcher (resume hooks). */
function hooksText(hk: Report['hooks'], { lines, kv }: TextOut): void {
  lines.push('');
  lines.push('update hooks (resume hooks)');
  kv('hooks', hk.configured ? `${hk.configured} configured` : 'none configured ([[resume.on_update]])');
  kv(
    'watcher',
    `${hk.installed ? 'installed' : 'not installed'}${hk.loaded == null ? '' : hk.loaded ? ', loaded' : ', not loaded'} (${oneLine(hk.loadedDetail)})`,
  );
  kv('claude', hk.recorded ? `recorded ${oneLine(hk.recorded)}` : 'no version recorded yet');
  for (const x of hk.pending) kv('pending', oneLine(x));
  if (hk.lastRun)
    kv('last run', `${hk.lastRun.time}  ${hk.lastRun.hook != null ? `hook ${hk.lastRun.hook} ` : ''}${oneLine(hk.lastRun.result)}`);
  for (const w of hk.warnings) kv('warning', oneLine(w));
}

/** The config as commands see it, without the warning loadConfig writes (the report says it). */
async function configReport(app: App): Promise<Report['config']> {
  const file = configFile(app.ctx);
  const { readConfig } = await import('../launch/config.js');
  try {
    const r = readConfig(app.ctx);
    if ('unreadable' in r) return { file, state: 'unreadable', error: r.unreadable };
    return { file, state: r.config.file ? 'read' : 'absent', error: null };
  } catch (err) {
    // (the file is on the report's line already)
    const msg = err instanceof Error ? err.message : String(err);
    const named = `config ${shown(file)}: `;
    return { file, state: 'bad', error: msg.startsWith(named) ? msg.slice(named.length) : msg };
  }
}

/** A part of the report that could not be made: its error, as one line, instead of the whole report. */
function failed(err: unknown): string {
  return `could not read: ${oneLine(err instanceof Error ? err.message : String(err))}`;
}

async function hooksSummary(app: App): Promise<Report['hooks']> {
  const { hooksReport, hooksWarnings } = await import('../hooks/status.js');
  const r = hooksReport(app, 1);
  const last = r.runs[r.runs.length - 1];
  return {
    configured: r.hooks.length,
    installed: r.installed,
    loaded: r.loaded,
    loadedDetail: r.loaded_detail,
    recorded: r.claude.recorded,
    // "no baseline" is only news when a hook is configured
    pending: r.hooks.length ? r.pending : [],
    lastRun: last
      ? {
          time: last.time,
          event: last.event,
          hook: last.hook,
          result: last.event === 'hook' ? (last.stopped ?? `exit ${last.exit_code}`) : last.event,
        }
      : null,
    warnings: hooksWarnings(r),
  };
}

async function claudeCare(app: App, sessions: Session[]): Promise<Report['claudeCare']> {
  const { liveEntries, claudeRoots } = await import('../harness/claude/care/registry.js');
  const { listSnapshots, storeDir } = await import('../harness/claude/care/store.js');
  const store = storeDir(app.ctx);
  const live = liveEntries(app.ctx);
  const snapshots = listSnapshots(store).length;
  const warnings: string[] = [];
  if (live.length && !snapshots) {
    warnings.push(
      `${live.length} live Claude session(s) but the snapshot store is empty: the Stop hook is missing or in another settings file (resume init claude-hook --write)`,
    );
  }
  // Rescue finds a session's tasks in tasks/<session id>; Claude Code does not promise that naming.
  const known = new Set([...sessions.filter((s) => s.harness === 'claude').map((s) => s.id), ...live.map((e) => e.sessionId)]);
  for (const root of claudeRoots(app.ctx)) {
    const dir = path.join(root, 'tasks');
    let names: string[] = [];
    try {
      names = fs
        .readdirSync(dir, { withFileTypes: true })
        .filter((d) => d.isDirectory())
        .map((d) => d.name);
    } catch {
      continue;
    }
    const odd = names.filter((n) => !known.has(n));
    if (odd.length && odd.length * 2 > names.length) {
      warnings.push(
        `${odd.length} of ${names.length} task directories in ${tildify(dir, app.ctx.home)} are not named after a known session id: restoring tasks relies on that naming, which Claude Code does not guarantee`,
      );
    }
  }
  return { live: live.length, snapshots, store, warnings };
}

/** What doctor reports of the harnesses without an index: their roots, no sessions. */
function unindexed(app: App): IndexResult {
  const roots = new Map<Harness, Root[]>(ADAPTERS.map((a) => [a.name, rootsOf(a, app.ctx)]));
  const counts = { sources: 0, parsed: 0, appended: 0, reused: 0, dropped: 0, bytes: 0 };
  return { sessions: [], skipped: { notRegular: 0, unreadable: 0, failed: {} }, counts, roots, changed: false, entries: {} };
}

export async function run(app: App, call: Call): Promise<void> {
  const o = call.opts as { json?: boolean };
  // (no SQLite engine, so no index: the rest is still reported, and the sqlite line says what to do)
  const r = await app.index({ withEntries: true, quiet: true }).catch((err: unknown) => {
    if (!sqliteStatus().ok) return unindexed(app);
    throw err;
  });
  const envPath = app.ctx.env.PATH ?? '';
  const [fzf, ...bins] = await Promise.all([program(['fzf'], envPath), ...ADAPTERS.map((a) => program(a.binaries, envPath))]);
  const report: Report = {
    version: VERSION,
    demo: app.demo,
    index: indexReport(app),
    fzf: fzf ?? null,
    shell: app.ctx.env.SHELL || null,
    sqlite: sqliteStatus(),
    skipped: { notRegular: r.skipped.notRegular, unreadable: r.skipped.unreadable },
    harnesses: ADAPTERS.map((a, i) => {
      const h = harnessReport(a, r, r.sessions);
      const v = versionIn(bins[i]?.version ?? null);
      return { ...h, binary: bins[i] ?? null, newerThanTested: !!(v && h.tested && newerThan(v, h.tested)) };
    }),
    config: await configReport(app),
    // doctor reports what it could not read and goes on: it exits 0 whatever it finds
    claudeCare: await claudeCare(app, r.sessions).catch((err: unknown) => ({
      live: 0,
      snapshots: 0,
      store: '',
      warnings: [failed(err)],
    })),
    hooks: await hooksSummary(app).catch((err: unknown) => ({
      configured: 0,
      installed: false,
      loaded: null,
      loadedDetail: 'unknown',
      recorded: null,
      pending: [],
      lastRun: null,
      warnings: [failed(err)],
    })),
  };
  if (o.json) out(`${JSON.stringify(report, null, 2)}\n`);
  else out(text(report, app.ctx.home, Date.now(), stdoutColumns()));
}
