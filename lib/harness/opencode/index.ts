// opencode: one SQLite database per channel, `<data>/opencode*.db` (v1.2+), and the older JSON tree
// `<data>/storage/` that v1.2 imports and leaves behind (formats.md §5). Both are read; a session in
// both is listed once, from the database. Kilo CLI is a fork of opencode that keeps the same layout
// under its own names (`<data>/kilo*.db`, KILO_DB, the `kilo` binary): `opencodeStore` makes the
// adapter of either from a `Store`, and lib/harness/kilo/ is that one line.
import fs from 'node:fs';
import path from 'node:path';
import type { Adapter, Counters, Ctx, Harness, LineState, Root, SessionCore, Source } from '../../types.js';
import { direntIsDir, direntMaybeFile, entries, exists, isDir, uniqueReal } from '../../util/fsx.js';
import { createHash } from '../../util/lazy.js';
import { envDirs, expandHome, storeEnv } from '../../util/paths.js';
import { promptText } from '../../util/text.js';
import { toMs } from '../../util/time.js';
import { addPrompt as countPrompt, countUnknown, newCounters, obj, type Rec, rec, str } from '../jsonl.js';
import { columns, type Db, firstLine, openReadonly, walDeps, warnOnce } from '../sqlite.js';

interface OpencodeState extends LineState {
  sessions: SessionCore[];
  counters: Counters;
  /** per session: its prompts' hashes and first texts, to find the history a fork copied */
  forks?: Record<string, { ph: string[]; pt: string[]; boundary: boolean }>;
}

/** What one session's messages give, whichever store they come from. */
interface Talk {
  prompts: number;
  firstPrompt: string | null;
  lastPrompt: string | null;
  /** every prompt, clipped (SessionCore.allPrompts) */
  all?: string[];
  lastReply: string | null;
  model: string | null;
  /** prompt hashes and the first prompts (a fork's copied history is found by them) */
  ph: string[];
  pt: string[];
}

const MAX_PH = 2000;
const MAX_PT = 50;
const FORK_TITLE = /^(.*) \(fork #\d+\)$/;

const KNOWN_PARTS = new Set([
  'text',
  'reasoning',
  'tool',
  'file',
  'agent',
  'subtask',
  'compaction',
  'step-start',
  'step-finish',
  'patch',
  'snapshot',
  'retry',
]);
const KNOWN_ROLES = new Set(['user', 'assistant']);

/** opencode's placeholder titles until a session is auto-titled (OC `isDefaultTitle`). */
export function isPlaceholderTitle(t: string): boolean {
  return /^(New session|Child session) - \d{4}-\d\d-\d\dT/.test(t);
}

function skip(c: Counters, reason: string, n = 1): void {
  c.skipped ??= {};
  c.skipped[reason] = (c.skipped[reason] ?? 0) + n;
}

/** What differs between opencode and the clients that keep its layout under their own names. */
export interface Store<N extends string> {
  name: N;
  label: string;
  /** the client's executable, first; resume and fork run it */
  binaries: string[];
  /** the data directory's name under XDG_DATA_HOME (`~/.local/share/<app>`) */
  app: string;
  /** the variable naming the database the client opens (a relative one is under the data dir) */
  dbVar: string;
  /** RESUME_<NAME>_DIRS: more data directories to read */
  dirsVar: string;
  /** the database files of a data directory, one per channel */
  dbFile: RegExp;
  color: number;
  testedVersion: string | null;
}

function dataDir(ctx: Ctx, store: Store<string>): { path: string; via: string } {
  const x = ctx.env.XDG_DATA_HOME;
  if (x && path.isAbsolute(x)) return { path: path.join(x, store.app), via: 'XDG_DATA_HOME' };
  return { path: path.join(ctx.home, '.local', 'share', store.app), via: 'default' };
}

/** The database the client opens in this environment: its dbVar (relative: under the data dir), else <data>/<app>.db. */
function defaultDb(ctx: Ctx, store: Store<string>): string {
  const d = dataDir(ctx, store).path;
  const db = ctx.env[store.dbVar];
  if (db && db !== ':memory:') return path.isAbsolute(db) ? db : path.resolve(d, expandHome(db, ctx.home));
  return path.join(d, `${store.app}.db`);
}

function newTalk(): Talk {
  return { prompts: 0, firstPrompt: null, lastPrompt: null, lastReply: null, model: null, ph: [], pt: [] };
}

function addPrompt(t: Talk, text: string): void {
  const p = promptText(text);
  if (!p) return;
  countPrompt(t, p);
  if (t.ph.length < MAX_PH) t.ph.push(createHash('sha1').update(text.trim()).digest('base64').slice(0, 12));
  if (t.pt.length < MAX_PT) t.pt.push(p);
}

function modelName(provider: unknown, model: unknown): string | null {
  const m = str(model);
  if (!m) return null;
  const p = str(provider);
  return p ? `${p}/${m}` : m;
}

/**
 * Whether a session's own permission rules are the ones `opencode run` gives the session it creates
 * (1.18: question, plan_enter and plan_exit denied, as nobody is there to answer); the TUI gives
 * none. A session `run --fork` or `run --session` continues keeps what it had.
 */
export function isRunPermission(v: unknown): boolean {
  if (typeof v !== 'string' || !v.includes('"question"')) return false;
  let rules: unknown;
  try {
    rules = JSON.parse(v);
  } catch {
    return false;
  }
  if (!Array.isArray(rules)) return false;
  const denied = new Set(rules.filter((r) => r && r.action === 'deny' && r.pattern === '*').map((r) => r.permission));
  return denied.has('question') && denied.has('plan_enter') && denied.has('plan_exit');
}

function core(
  src: Source,
  o: {
    id: string;
    cwd: string | null;
    title: string | null;
    parent: string | null;
    archived: number | null;
    created: number | null;
    updated: number | null;
    forkedFrom: string | null;
    talk: Talk;
    run?: boolean;
  },
): SessionCore {
  const title = o.title && !isPlaceholderTitle(o.title.trim()) ? promptText(o.title) || null : null;
  let hiddenReason: string | null = null;
  if (o.parent) hiddenReason = 'subagent';
  else if (o.archived) hiddenReason = 'archived';
  else if (o.talk.prompts === 0 && !title) hiddenReason = 'empty';
  else if (o.run) hiddenReason = 'headless';
  return {
    harness: src.harness,
    id: o.id,
    cwd: o.cwd,
    title: title ?? o.talk.firstPrompt,
    firstPrompt: o.talk.firstPrompt,
    lastPrompt: o.talk.lastPrompt,
    allPrompts: o.talk.all,
    lastReply: o.talk.lastReply,
    prompts: o.talk.prompts,
    branch: null,
    model: o.talk.model,
    started: o.created,
    updated: o.updated ?? o.created,
    file: src.path,
    hidden: hiddenReason != null,
    hiddenReason,
    parent: o.parent,
    forkedFrom: o.forkedFrom,
  };
}

// ---------------------------------------------------------------------------------------------
// The database (v1.2+). Columns vary between versions: every query names only columns that exist.

const J = (col: string, p: string) => `(CASE WHEN json_valid(${col}) THEN json_extract(${col}, '${p}') END)`;

function readDb(src: Source): OpencodeState {
  const c = newCounters();
  const db = openReadonly(src.path);
  try {
    const forks: NonNullable<OpencodeState['forks']> = {};
    return { sessions: queryDb(db, src, c, forks), counters: c, forks };
  } finally {
    db.close();
  }
}

/** A session's talk, made when first asked for. */
function talkOf(talks: Map<string, Talk>, sid: string): Talk {
  let t = talks.get(sid);
  if (!t) {
    t = newTalk();
    talks.set(sid, t);
  }
  return t;
}

function queryDb(db: Db, src: Source, c: Counters, forks: NonNullable<OpencodeState['forks']> = {}): SessionCore[] {
  const rows = sessionRows(db, c);
  if (!rows) return [];
  const boundaries = new Map<string, number>();
  for (const r of rows) if (typeof r.id === 'string' && typeof r.fork_boundary === 'number') boundaries.set(r.id, r.fork_boundary);
  const worktree = projectWorktrees(db);
  const talks = new Map<string, Talk>();
  readMessages(db, c, talks);
  readSessionMessages(db, c, talks, boundaries);
  const out: SessionCore[] = [];
  for (const r of rows) {
    const id = str(r.id);
    if (!id) {
      skip(c, 'session rows without an id');
      continue;
    }
    const t = talks.get(id) ?? newTalk();
    if (!t.model && typeof r.model === 'string') {
      try {
        const m = obj(JSON.parse(r.model));
        t.model = modelName(m?.providerID, m?.id ?? m?.modelID);
      } catch {
        /* not JSON: no model */
      }
    }
    const dir = str(r.directory) ?? (typeof r.project_id === 'string' ? (worktree.get(r.project_id) ?? null) : null);
    forks[id] = { ph: t.ph, pt: t.pt, boundary: boundaries.has(id) };
    out.push(
      core(src, {
        id,
        cwd: dir,
        title: str(r.title),
        parent: str(r.parent_id),
        archived: toMs(r.time_archived),
        created: toMs(r.time_created),
        updated: toMs(r.time_updated),
        forkedFrom: str(r.fork_session_id),
        talk: t,
        run: isRunPermission(r.permission),
      }),
    );
  }
  return out;
}

/**
 * The session rows: opencode 2.x keeps sessions in `session_v2` (1.x rows migrated in place); 1.2+
 * in `session`. Both are read when both exist; a session in both is taken from session_v2. Null
 * when neither table exists.
 */
function sessionRows(db: Db, c: Counters): Rec[] | null {
  const want = [
    'id',
    'parent_id',
    'directory',
    'title',
    'time_created',
    'time_updated',
    'time_archived',
    'project_id',
    'model',
    'fork_session_id',
    'fork_boundary',
    'permission',
  ];
  const rows: Rec[] = [];
  const seen = new Set<unknown>();
  for (const table of ['session_v2', 'session']) {
    const sc = columns(db, table);
    if (!sc.has('id')) continue;
    const sel = want.filter((w) => sc.has(w));
    for (const w of ['directory', 'title', 'time_updated']) if (!sc.has(w)) skip(c, `${table} table has no ${w} column`);
    for (const r of db.prepare(`SELECT ${sel.map((s) => `"${s}"`).join(', ')} FROM "${table}"`).all() as Rec[]) {
      if (seen.has(r.id)) continue;
      seen.add(r.id);
      rows.push(r);
    }
  }
  if (rows.length === 0 && !columns(db, 'session').has('id') && !columns(db, 'session_v2').has('id')) {
    skip(c, 'database without a session table');
    return null;
  }
  return rows;
}

/** The projects' worktrees by project id (a session without a directory is in its project's). */
function projectWorktrees(db: Db): Map<string, string> {
  const worktree = new Map<string, string>();
  const pc = columns(db, 'project');
  if (pc.has('id') && pc.has('worktree')) {
    for (const r of db.prepare('SELECT id, worktree FROM project').all() as { id: unknown; worktree: unknown }[]) {
      if (typeof r.id === 'string' && typeof r.worktree === 'string' && r.worktree && r.worktree !== '/') worktree.set(r.id, r.worktree);
    }
  }
  return worktree;
}

/** A `message` row as readMessages selects it (values as SQLite gives them). */
interface MessageRow {
  sid: unknown;
  mid: unknown;
  ok: unknown;
  role: unknown;
  model: unknown;
  provider: unknown;
  umodel: unknown;
  uprovider: unknown;
  summary: unknown;
}

/** A text part of a user message as userPrompts selects it (`message` ids are text keys). */
interface PartRow {
  sid: string;
  mid: string;
  ok: unknown;
  type: unknown;
  text: unknown;
  syn: unknown;
  ign: unknown;
}

/** The `message` and `part` tables (1.2+): roles, models, prompts and the last reply of each session. */
function readMessages(db: Db, c: Counters, talks: Map<string, Talk>): void {
  const mc = columns(db, 'message');
  const partCols = columns(db, 'part');
  const haveMessages = mc.has('id') && mc.has('session_id') && mc.has('data');
  const haveParts = partCols.has('id') && partCols.has('message_id') && partCols.has('data');
  if (!haveMessages) skip(c, 'no usable message table (prompts not counted)');
  else if (!haveParts) skip(c, 'no usable part table (prompts not counted)');
  if (!haveMessages) return;
  const lastAssistant = messageRoles(db, c, talks);
  if (!haveParts) return;
  userPrompts(db, c, talks);
  lastReplies(db, talks, lastAssistant);
}

/** Roles and models, and each session's last reply's message: message data is small (no content). */
function messageRoles(db: Db, c: Counters, talks: Map<string, Talk>): Map<string, unknown> {
  const lastAssistant = new Map<string, unknown>();
  const msgs = db
    .prepare(
      `SELECT session_id AS sid, id AS mid, json_valid(data) AS ok, ${J('data', '$.role')} AS role,
         ${J('data', '$.modelID')} AS model, ${J('data', '$.providerID')} AS provider,
         ${J('data', '$.model.modelID')} AS umodel, ${J('data', '$.model.providerID')} AS uprovider,
         (CASE WHEN json_valid(data) THEN json_type(data, '$.summary') END) AS summary
       FROM message ORDER BY session_id, id`,
    )
    .iterate() as Iterable<MessageRow>;
  for (const m of msgs) {
    if (typeof m.sid !== 'string') continue;
    if (!m.ok) {
      skip(c, 'message rows that are not JSON');
      continue;
    }
    const role = typeof m.role === 'string' ? m.role : '';
    if (!KNOWN_ROLES.has(role)) {
      countUnknown(c, `message role ${role || '(none)'}`);
      continue;
    }
    const t = talkOf(talks, m.sid);
    if (role === 'assistant') {
      const name = modelName(m.provider, m.model);
      if (name) t.model = name;
      if (m.summary !== 'true') lastAssistant.set(m.sid, m.mid);
    } else if (!t.model) {
      t.model = modelName(m.uprovider, m.umodel);
    }
  }
  return lastAssistant;
}

/**
 * Prompts: the text parts of user messages, minus the ones opencode injected (synthetic) or that the
 * user excluded (ignored). Only the parts of user messages are looked at.
 */
function userPrompts(db: Db, c: Counters, talks: Map<string, Talk>): void {
  const parts = db
    .prepare(
      `SELECT m.session_id AS sid, m.id AS mid, json_valid(p.data) AS ok, ${J('p.data', '$.type')} AS type,
         substr(${J('p.data', '$.text')}, 1, 4000) AS text,
         ${J('p.data', '$.synthetic')} AS syn, ${J('p.data', '$.ignored')} AS ign
       FROM message m JOIN part p ON p.message_id = m.id
       WHERE ${J('m.data', '$.role')} = 'user'
       ORDER BY m.session_id, m.id, p.id`,
    )
    .iterate() as Iterable<PartRow>;
  let cur = '';
  let sid = '';
  let buf: string[] = [];
  const flush = () => {
    if (cur && buf.length) addPrompt(talkOf(talks, sid), buf.join('\n'));
    buf = [];
  };
  for (const p of parts) {
    if (p.mid !== cur) {
      flush();
      cur = p.mid;
      sid = p.sid;
    }
    if (!p.ok) {
      skip(c, 'part rows that are not JSON');
      continue;
    }
    const type = typeof p.type === 'string' ? p.type : '';
    if (!KNOWN_PARTS.has(type)) countUnknown(c, `part ${type || '(none)'}`);
    if (type !== 'text' || p.syn || p.ign || typeof p.text !== 'string' || !p.text.trim()) continue;
    buf.push(p.text);
  }
  flush();
}

/** Each session's last reply: the text parts of its last assistant message (not a summary). */
function lastReplies(db: Db, talks: Map<string, Talk>, lastAssistant: Map<string, unknown>): void {
  const reply = db.prepare(
    `SELECT substr(${J('data', '$.text')}, 1, 4000) AS text FROM part
     WHERE message_id = ? AND ${J('data', '$.type')} = 'text' ORDER BY id`,
  );
  for (const [sid, mid] of lastAssistant) {
    const texts = (reply.all(mid) as { text: unknown }[]).map((r) => (typeof r.text === 'string' ? r.text : '')).filter((t) => t.trim());
    if (texts.length) talkOf(talks, sid).lastReply = promptText(texts.join('\n'));
  }
}

/** A `session_message` row as readSessionMessages selects it. */
interface EntryRow {
  sid: unknown;
  type: unknown;
  seq: unknown;
  ok: unknown;
  text: unknown;
  model: unknown;
  provider: unknown;
  reply: unknown;
}

/**
 * opencode 2.x: one `session_message` row per transcript entry (type, per-session seq, JSON data).
 * A session with entries there takes its prompts, model and last reply from them.
 */
function readSessionMessages(db: Db, c: Counters, talks: Map<string, Talk>, boundaries: Map<string, number>): void {
  const smc = columns(db, 'session_message');
  if (!(smc.has('session_id') && smc.has('type') && smc.has('seq') && smc.has('data'))) return;
  const v2 = new Map<string, Talk>();
  const entries = db
    .prepare(
      `SELECT session_id AS sid, type, seq, json_valid(data) AS ok, substr(${J('data', '$.text')}, 1, 4000) AS text,
         ${J('data', '$.model.id')} AS model, ${J('data', '$.model.providerID')} AS provider,
         (CASE WHEN type = 'assistant' AND json_valid(data) THEN (SELECT group_concat(substr(json_extract(value, '$.text'), 1, 4000), char(10))
            FROM json_each(data, '$.content') WHERE json_extract(value, '$.type') = 'text') END) AS reply
       FROM session_message ORDER BY session_id, seq`,
    )
    .iterate() as Iterable<EntryRow>;
  for (const e of entries) {
    if (typeof e.sid !== 'string') continue;
    if (!e.ok) {
      skip(c, 'session_message rows that are not JSON');
      continue;
    }
    sessionEntry(c, talkOf(v2, e.sid), e, boundaries.get(e.sid));
  }
  for (const [sid, t] of v2) if (t.prompts > 0 || t.model || t.lastReply || !talks.has(sid)) talks.set(sid, t);
}

/** One transcript entry into its session's talk; `boundary`: a fork's last copied entry. */
function sessionEntry(c: Counters, t: Talk, e: EntryRow, boundary: number | undefined): void {
  switch (e.type) {
    case 'user':
      // a fork's entries up to its boundary are the parent's, copied
      if (boundary != null && typeof e.seq === 'number' && e.seq <= boundary) break;
      if (typeof e.text === 'string' && e.text.trim()) addPrompt(t, e.text);
      break;
    case 'assistant': {
      const name = modelName(e.provider, e.model);
      if (name) t.model = name;
      if (typeof e.reply === 'string' && e.reply.trim()) t.lastReply = promptText(e.reply);
      break;
    }
    case 'synthetic':
    case 'system':
    case 'shell':
    case 'compaction':
    case 'agent-switched':
    case 'model-switched':
      break;
    default:
      countUnknown(c, `session_message ${String(e.type || '(none)').slice(0, 40)}`);
  }
}

// ---------------------------------------------------------------------------------------------
// The JSON tree (before v1.2): storage/session/<project>/<session>.json, storage/message/<session>/
// <message>.json, storage/part/<message>/<part>.json.

const MAX_JSON = 1 << 20;

/**
 * A small JSON object file of the legacy tree, or null (counted in `c` under `what`). FIFOs and other
 * special files are never opened; files over 1 MiB (tool output, attachments) are not read.
 */
function readJsonFile(file: string, c: Counters, what: string): Rec | null {
  let st: fs.Stats;
  try {
    st = fs.statSync(file);
  } catch {
    return null;
  }
  if (!st.isFile()) {
    skip(c, `legacy ${what} files that are not regular files`);
    return null;
  }
  if (st.size > MAX_JSON) {
    skip(c, `legacy ${what} files over 1 MiB (not read)`);
    return null;
  }
  try {
    const v = rec(JSON.parse(fs.readFileSync(file, 'utf8')));
    if (v) return v;
  } catch {
    /* counted below */
  }
  skip(c, `legacy ${what} files that are not JSON`);
  return null;
}

function jsonFiles(dir: string): string[] {
  return entries(dir)
    .filter((d) => direntMaybeFile(d) && d.name.endsWith('.json'))
    .map((d) => d.name)
    .sort()
    .map((n) => path.join(dir, n));
}

/** An id used as a path component: no separators, not `.`/`..`, no NUL. */
function safeName(v: unknown): v is string {
  return typeof v === 'string' && v !== '' && !/[/\\\0]/.test(v) && !v.startsWith('.');
}

function readLegacy(src: Source): OpencodeState {
  const c = newCounters();
  const s = readJsonFile(src.path, c, 'session');
  const storage = (src.hint as { storage: string }).storage;
  if (!s) return { sessions: [], counters: c };
  const id = str(s.id);
  if (!id) {
    skip(c, 'legacy session files without an id');
    return { sessions: [], counters: c };
  }
  if (!safeName(id)) {
    skip(c, 'legacy sessions whose id is not a plain name');
    return { sessions: [], counters: c };
  }
  const tree = { storage, c };
  const t = legacyTalk(tree, legacyMessages(tree, id));
  const time = obj(s.time);
  return {
    sessions: [
      core(src, {
        id,
        cwd: str(s.directory),
        title: str(s.title),
        parent: str(s.parentID),
        archived: toMs(time?.archived),
        created: toMs(time?.created),
        updated: toMs(time?.updated),
        forkedFrom: null,
        talk: t,
      }),
    ],
    counters: c,
  };
}

/** The legacy tree of one data directory (`storage/`), and the counters of what it skipped. */
interface Tree {
  storage: string;
  c: Counters;
}

/** A session's messages (storage/message/<session>/), oldest first. */
function legacyMessages(tree: Tree, id: string): Rec[] {
  const msgs: Rec[] = [];
  for (const f of jsonFiles(path.join(tree.storage, 'message', id))) {
    const m = readJsonFile(f, tree.c, 'message');
    if (m) msgs.push(m);
  }
  const created = (m: Rec) => toMs(obj(m.time)?.created) ?? 0;
  return msgs.sort((a, b) => created(a) - created(b) || String(a.id).localeCompare(String(b.id)));
}

/** A message's parts (storage/part/<message>/), in id order. */
function legacyParts(tree: Tree, mid: unknown): Rec[] {
  if (!safeName(mid)) return [];
  const out: Rec[] = [];
  for (const f of jsonFiles(path.join(tree.storage, 'part', mid))) {
    const p = readJsonFile(f, tree.c, 'part');
    if (p) out.push(p);
  }
  return out.sort((a, b) => String(a.id ?? '').localeCompare(String(b.id ?? '')));
}

/** The texts a person sees of these parts (not injected, not excluded); unknown part types counted. */
function legacyTexts(tree: Tree, parts: Rec[]): string[] {
  for (const p of parts) {
    const type = typeof p.type === 'string' ? p.type : '';
    if (!KNOWN_PARTS.has(type)) countUnknown(tree.c, `part ${type || '(none)'}`);
  }
  const texts: string[] = [];
  for (const p of parts) {
    if (p.type === 'text' && !p.synthetic && !p.ignored && typeof p.text === 'string' && p.text.trim()) texts.push(p.text);
  }
  return texts;
}

/**
 * What a legacy session's messages give. Parts are read for user messages (the prompts) and for the
 * last reply only: an assistant's parts are mostly tool output.
 */
function legacyTalk(tree: Tree, msgs: Rec[]): Talk {
  const t = newTalk();
  let lastReply: Rec | null = null;
  for (const m of msgs) {
    const role = typeof m.role === 'string' ? m.role : '';
    if (!KNOWN_ROLES.has(role)) {
      countUnknown(tree.c, `message role ${role || '(none)'}`);
      continue;
    }
    const model = obj(m.model);
    if (role === 'user') {
      const texts = legacyTexts(tree, legacyParts(tree, m.id));
      if (texts.length) addPrompt(t, texts.join('\n'));
      if (!t.model) t.model = modelName(model?.providerID, model?.modelID);
    } else {
      const name = modelName(m.providerID, m.modelID) ?? modelName(model?.providerID, model?.modelID);
      if (name) t.model = name;
      if (m.summary !== true) lastReply = m;
    }
  }
  if (lastReply) {
    const texts = legacyTexts(tree, legacyParts(tree, lastReply.id));
    if (texts.length) t.lastReply = promptText(texts.join('\n'));
  }
  return t;
}

// ---------------------------------------------------------------------------------------------

/** The sessions of a data directory's JSON tree (`storage/session/<project>/<id>.json`) into `out`. */
function discoverLegacy(data: string, harness: Harness, out: Source[]): void {
  const storage = path.join(data, 'storage');
  const sessDir = path.join(storage, 'session');
  for (const p of entries(sessDir)) {
    if (!direntIsDir(sessDir, p)) continue;
    const dir = path.join(sessDir, p.name);
    for (const f of entries(dir)) {
      if (!direntMaybeFile(f) || !f.name.endsWith('.json')) continue;
      // Messages and parts are separate files: their directories (and the message files) count
      // for change detection, so a session is re-read when one of them is added or rewritten.
      const sid = f.name.slice(0, -5);
      const msgDir = path.join(storage, 'message', sid);
      const msgFiles = entries(msgDir)
        .filter((m) => direntMaybeFile(m) && m.name.endsWith('.json'))
        .map((m) => m.name);
      const deps = [
        msgDir,
        ...msgFiles.map((m) => path.join(msgDir, m)),
        ...msgFiles.map((m) => path.join(storage, 'part', m.slice(0, -5))),
      ];
      out.push({ path: path.join(dir, f.name), harness, kind: 'legacy', mode: 'whole', deps, hint: { storage } });
    }
  }
}

/** The adapter of opencode's layout kept under `store`'s names. */
export function opencodeStore<N extends string>(store: Store<N>): Adapter<OpencodeState, N> {
  // the registry gives each adapter its name as a Harness; this one is given it by its caller
  const harness = store.name as string as Harness;
  return {
    name: store.name,
    label: store.label,
    binaries: store.binaries,
    envVars: [store.dirsVar, 'XDG_DATA_HOME', store.dbVar],
    color: store.color,
    testedVersion: store.testedVersion,
    search: {
      text: async () => (await import('./text.js')).opencodeText,
      hooks: async () => (await import('./text.js')).search,
    },

    roots(ctx) {
      const out: Root[] = envDirs(ctx, store.dirsVar).map((p) => ({
        path: p,
        via: store.dirsVar,
        exists: false,
        role: 'data',
      }));
      const d = dataDir(ctx, store);
      const db = ctx.env[store.dbVar];
      if (db && db !== ':memory:') {
        const p = path.isAbsolute(db) ? db : path.resolve(d.path, expandHome(db, ctx.home));
        out.push({ path: p, via: store.dbVar, exists: false, role: 'db' });
      }
      out.push({ path: d.path, via: d.via, exists: false, role: 'data' });
      return uniqueReal(out).map((r) => ({ ...r, exists: r.role === 'db' ? exists(r.path) : isDir(r.path) }));
    },

    discover(_ctx, roots) {
      const out: Source[] = [];
      const dbSource = (p: string): Source => ({ path: p, harness, kind: 'db', mode: 'whole', deps: walDeps(p) });
      for (const r of roots) {
        if (r.role === 'db') {
          out.push(dbSource(r.path));
          continue;
        }
        for (const f of entries(r.path)) {
          if (direntMaybeFile(f) && store.dbFile.test(f.name)) out.push(dbSource(path.join(r.path, f.name)));
        }
        discoverLegacy(r.path, harness, out);
      }
      return out;
    },

    whole(src) {
      if (src.kind === 'legacy') return readLegacy(src);
      try {
        return readDb(src);
      } catch (err) {
        const msg = `cannot read ${path.basename(src.path)}: ${firstLine(err)}`;
        warnOnce(store.name, msg);
        throw new Error(msg);
      }
    },

    sessions(st) {
      return Array.isArray(st.sessions) ? st.sessions : [];
    },

    finish: {
      all(sessions, _ctx, states) {
        // One session in several stores (the JSON tree v1.2 imported, or two channel databases): the
        // database wins over the JSON tree, then the most recently updated copy.
        const best = new Map<string, SessionCore>();
        const rank = (s: SessionCore) => (s.file.endsWith('.json') ? 0 : 1);
        for (const s of sessions) {
          const b = best.get(s.id);
          if (!b || rank(s) > rank(b) || (rank(s) === rank(b) && (s.updated ?? 0) > (b.updated ?? 0))) best.set(s.id, s);
        }
        return linkForks([...best.values()], states);
      },
    },

    launch(s, { fork, ctx }) {
      // `--fork` with `--session` is accepted by the TUI (checked against opencode 1.18.33 --help;
      // Kilo CLI 7.7.9 recorded forking that way)
      const bin = store.binaries[0] ?? store.name;
      const argv = fork ? [bin, '--session', s.id, '--fork'] : [bin, '--session', s.id];
      if (!ctx) return { argv };
      let env: Record<string, string> | undefined;
      const legacy = /^(.*)\/storage\/session\/[^/]+\/[^/]+\.json$/.exec(s.file)?.[1];
      if (legacy !== undefined) {
        // the JSON tree the client imports from its data directory: point XDG_DATA_HOME at its parent
        if (path.basename(legacy) === store.app)
          env = storeEnv('XDG_DATA_HOME', path.dirname(legacy), path.dirname(dataDir(ctx, store).path));
      } else {
        env = storeEnv(store.dbVar, s.file, defaultDb(ctx, store));
      }
      return env ? { argv, env } : { argv };
    },
  };
}

export const opencode = opencodeStore({
  name: 'opencode',
  label: 'opencode',
  binaries: ['opencode'],
  app: 'opencode',
  dbVar: 'OPENCODE_DB',
  dirsVar: 'RESUME_OPENCODE_DIRS',
  dbFile: /^opencode.*\.db$/,
  color: 114,
  testedVersion: '1.18.33',
});

/** Length of the common prefix of two prompt hash lists. */
function common(a: string[], b: string[]): number {
  let i = 0;
  while (i < a.length && i < b.length && a[i] === b[i]) i++;
  return i;
}

/**
 * A 1.x fork's parent: the session of the same directory, started no later, whose prompts its own
 * (`ph`) begin with, the longest such; or one that went on after the fork was made.
 */
function parentOf(
  s: SessionCore,
  ph: string[],
  sessions: SessionCore[],
  info: Map<string, { ph: string[] }>,
): { parent: string | null; shared: number } {
  let parent: string | null = null;
  let shared = 0;
  for (const p of sessions) {
    if (p.id === s.id || p.cwd !== s.cwd || (p.started ?? 0) > (s.started ?? 0)) continue;
    const theirs = info.get(p.id)?.ph;
    const l = common(ph, theirs ?? []);
    // all of the parent's prompts, or (the parent went on after the fork was made) fewer than the fork's
    if (l > shared && (l === (theirs?.length ?? -1) || l < ph.length)) {
      shared = l;
      parent = p.id;
    }
  }
  return { parent, shared };
}

/**
 * Forks. 2.x links them (`fork_session_id`; entries up to `fork_boundary` are copies, already left
 * out). 1.x copies the parent's messages into a new session titled `<parent title> (fork #N)` and
 * links nothing: its parent is the session of the same directory, started no later, whose prompts
 * its own begin with (the longest such). Either way a fork lists by its own first prompt and counts
 * only the prompts after the copied history.
 */
function linkForks(sessions: SessionCore[], states: Map<string, { src: Source; state: OpencodeState }>): SessionCore[] {
  const info = new Map<string, ForkInfo>();
  for (const { state } of states.values()) for (const [id, f] of Object.entries(state?.forks ?? {})) info.set(id, f);
  return sessions.map((s) => {
    const me = info.get(s.id);
    return me ? asFork(s, me, sessions, info) : s;
  });
}

type ForkInfo = { ph: string[]; pt: string[]; boundary: boolean };

/** A session as a fork, when it is one: by its own first prompt, counting only the prompts after the copied history. */
function asFork(s: SessionCore, me: ForkInfo, sessions: SessionCore[], info: Map<string, ForkInfo>): SessionCore {
  let parent = s.forkedFrom;
  let shared = 0;
  const rawTitle = s.title !== s.firstPrompt ? s.title : null;
  const marked = rawTitle != null && FORK_TITLE.test(rawTitle);
  if (parent && !me.boundary) shared = common(me.ph, info.get(parent)?.ph ?? []);
  else if (!parent && marked && me.ph.length > 0) ({ parent, shared } = parentOf(s, me.ph, sessions, info));
  if (!parent) return s;
  const prompts = Math.max(0, s.prompts - shared);
  const first = shared === 0 ? s.firstPrompt : prompts === 0 ? null : (me.pt[shared] ?? s.lastPrompt);
  const title = marked || rawTitle == null ? first : s.title;
  const out: SessionCore = {
    ...s,
    forkedFrom: parent,
    prompts,
    firstPrompt: first,
    lastPrompt: prompts === 0 ? null : s.lastPrompt,
    title,
  };
  if (!out.hidden && prompts === 0 && !title) {
    out.hidden = true;
    out.hiddenReason = 'empty';
  }
  return out;
}
