// Helpers shared by the recorder (record.mjs) and the check (check.mjs): throwaway HOMEs, a private
// tmux server to drive interactive clients, running print-mode commands, copying and trimming stores.
import { spawn, spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

export const here = dirname(fileURLToPath(import.meta.url));
export const repo = join(here, '..', '..');
export const fixturesRoot = join(repo, 'test', 'fixtures', 'real');
/** Fixed places, so recorded paths are the same on every run. */
export const realRoot = '/tmp/resume-real';
export const FAKE_KEYS = {
  anthropic: 'sk-ant-test-mockkey-0000000000000000',
  openai: 'sk-test-mockkey-0000000000000000',
  gemini: 'gemini-test-mockkey-0000000000000000',
};

export const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
export const log = (msg) => process.stderr.write(`[real] ${msg}\n`);

/** A clean environment: only what a client needs, never the caller's keys. */
export function baseEnv(home, binDir, extra = {}) {
  return {
    PATH: `${binDir}:${dirname(process.execPath)}:/usr/local/bin:/usr/bin:/bin`,
    HOME: home,
    USER: 'root',
    LANG: 'C.UTF-8',
    TERM: 'xterm-256color',
    SHELL: '/bin/bash',
    TMPDIR: '/tmp',
    NO_UPDATE_NOTIFIER: '1',
    npm_config_update_notifier: 'false',
    ...extra,
  };
}

/** Fresh throwaway HOME and project directories for one client. */
export function freshBase(client) {
  const base = join(realRoot, client);
  rmSync(base, { recursive: true, force: true });
  for (const d of ['home', 'proj-a', 'proj-b']) mkdirSync(join(base, d), { recursive: true });
  return { base, home: join(base, 'home'), projA: join(base, 'proj-a'), projB: join(base, 'proj-b') };
}

/** Run a command to completion with a time bound; resolves { code, stdout, stderr }. */
export function run(argv, { cwd, env, timeoutMs = 120000, input } = {}) {
  return new Promise((resolve) => {
    const child = spawn(argv[0], argv.slice(1), { cwd, env, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => {
      stdout += d;
    });
    child.stderr.on('data', (d) => {
      stderr += d;
    });
    const t = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('close', (code, signal) => {
      clearTimeout(t);
      resolve({ code: code ?? (signal ? 128 : 1), stdout, stderr, signal });
    });
    child.stdin.end(input ?? '');
  });
}

/** Every file under dir (relative paths), for telling which files a step created. */
export function listFiles(dir) {
  const out = [];
  const walk = (d) => {
    let entries;
    try {
      entries = readdirSync(d, { withFileTypes: true });
    } catch {
      return;
    }
    for (const e of entries) {
      const p = join(d, e.name);
      if (e.isDirectory()) walk(p);
      else out.push(relative(dir, p));
    }
  };
  walk(dir);
  return out.sort();
}

export function sizes(dir) {
  const m = new Map();
  for (const f of listFiles(dir)) m.set(f, statSync(join(dir, f)).size);
  return m;
}

/** A private tmux server (its own socket) driving one interactive client at a time. */
export class Tmux {
  constructor(socket) {
    this.socket = socket;
    this.session = 'rec';
  }
  tmux(...args) {
    return spawnSync('tmux', ['-L', this.socket, ...args], { encoding: 'utf8' });
  }
  start(argv, { cwd, env, width = 150, height = 45 }) {
    this.kill();
    const script = join(realRoot, `.tmux-${this.socket}.sh`);
    const q = (s) => `'${String(s).replace(/'/g, `'\\''`)}'`;
    writeFileSync(
      script,
      `cd ${q(cwd)}\nexec env -i ${Object.entries(env)
        .map(([k, v]) => q(`${k}=${v}`))
        .join(' ')} ${argv.map(q).join(' ')}\n`,
    );
    const r = this.tmux('new-session', '-d', '-s', this.session, '-x', String(width), '-y', String(height), 'bash', script);
    if (r.status !== 0) throw new Error(`tmux new-session: ${r.stderr}`);
  }
  alive() {
    return this.tmux('has-session', '-t', this.session).status === 0;
  }
  screen() {
    const r = this.tmux('capture-pane', '-p', '-t', this.session);
    return r.status === 0 ? r.stdout : '';
  }
  keys(...k) {
    this.tmux('send-keys', '-t', this.session, ...k);
  }
  async type(text, pause = 400) {
    this.tmux('send-keys', '-t', this.session, '-l', text);
    await sleep(pause);
    this.keys('Enter');
  }
  /** Wait (bounded) until the screen matches re; throws with the screen on timeout. */
  async waitFor(re, ms = 30000, what = String(re)) {
    const end = Date.now() + ms;
    while (Date.now() < end) {
      const s = this.screen();
      if (re.test(s)) return s;
      if (!this.alive()) throw new Error(`client exited while waiting for ${what}`);
      await sleep(250);
    }
    throw new Error(`timed out waiting for ${what}; screen:\n${this.screen()}`);
  }
  async waitExit(ms = 15000) {
    const end = Date.now() + ms;
    while (Date.now() < end) {
      if (!this.alive()) return true;
      await sleep(250);
    }
    return false;
  }
  /** Stop the client (its whole process group: some clients re-launch themselves as a child) and the server. */
  kill() {
    const r = this.tmux('list-panes', '-a', '-F', '#{pane_pid}');
    for (const pid of (r.status === 0 ? r.stdout : '')
      .split('\n')
      .map(Number)
      .filter((n) => n > 1)) {
      try {
        process.kill(-pid, 'SIGTERM');
      } catch {
        /* already gone */
      }
    }
    this.tmux('kill-server');
  }
}

// ---------------------------------------------------------------------------------------------------
// Trimming what we record

export const PLACEHOLDER_MIN = 300;
/** Keeps the head of the text (so an injected block still shows its opening tag) and says how long it was. */
const placeholder = (s) => `${Array.from(s).slice(0, 60).join('')}…[placeholder: ${s.length} chars of client text]`;

/** Replace every long string (the clients' system prompts, tool schemas, instructions) by a short placeholder. */
export function trimValue(v, keep = () => false) {
  if (typeof v === 'string') return v.length > PLACEHOLDER_MIN && !keep(v) ? placeholder(v) : v;
  if (Array.isArray(v)) return v.map((x) => trimValue(x, keep));
  if (v && typeof v === 'object') {
    const o = {};
    for (const [k, x] of Object.entries(v)) o[k] = trimValue(x, keep);
    return o;
  }
  return v;
}

/** Trim a JSONL text line by line; a line that does not parse (a partial last line) is kept as is. */
export function trimJsonl(text, keep, { preserveBytes = false } = {}) {
  return text
    .split('\n')
    .map((line) => {
      if (!line.trim()) return line;
      try {
        const v = JSON.parse(line);
        return preserveBytes ? trimLineInPlace(line, v, keep) : JSON.stringify(trimValue(v, keep));
      } catch {
        return line;
      }
    })
    .join('\n');
}

/**
 * Replace long strings inside the original line by placeholders of exactly the same byte length, so
 * byte offsets into the file stay true (Codex 0.171 forks point into the parent rollout by byte offset).
 */
function trimLineInPlace(line, value, keep = () => false) {
  const long = [];
  const walk = (x) => {
    if (typeof x === 'string') {
      if (x.length > PLACEHOLDER_MIN && !keep(x)) long.push(x);
    } else if (Array.isArray(x)) x.forEach(walk);
    else if (x && typeof x === 'object') Object.values(x).forEach(walk);
  };
  walk(value);
  let out = line;
  for (const str of long) {
    const enc = JSON.stringify(str);
    if (!out.includes(enc)) continue;
    const bytes = Buffer.byteLength(enc) - 2;
    let text = placeholder(str)
      .replace(/[^\x20-\x7e]/g, '.')
      .replace(/["\\]/g, "'");
    if (text.length > bytes) text = text.slice(0, bytes);
    out = out.split(enc).join(JSON.stringify(text.padEnd(bytes, ' ')));
  }
  return out;
}

/** Copy chosen paths of a HOME into the fixture dir, trimming JSON/JSONL files. */
export function copyStore(home, rels, dest, { skip = () => false, keep, preserveBytes = false } = {}) {
  for (const rel of rels) {
    const src = join(home, rel);
    if (!existsSync(src)) continue;
    const files = statSync(src).isDirectory() ? listFiles(src).map((f) => join(rel, f)) : [rel];
    for (const f of files) {
      if (skip(f)) continue;
      const from = join(home, f);
      const to = join(dest, 'home', f);
      mkdirSync(dirname(to), { recursive: true });
      if (/\.(jsonl|ndjson)$/.test(f)) writeFileSync(to, trimJsonl(readFileSync(from, 'utf8'), keep, { preserveBytes }));
      else if (/\.json$/.test(f)) {
        const text = readFileSync(from, 'utf8');
        try {
          writeFileSync(to, `${JSON.stringify(trimValue(JSON.parse(text), keep), null, 2)}\n`);
        } catch {
          writeFileSync(to, text);
        }
      } else cpSync(from, to);
    }
  }
}

/** Fail loudly if a real-looking secret slipped into the fixtures. Returns the files that hold the fake keys. */
export function scanSecrets(dir) {
  const withFake = [];
  for (const f of listFiles(dir)) {
    const text = readFileSync(join(dir, f)).toString('latin1');
    for (const k of Object.values(FAKE_KEYS)) if (text.includes(k)) withFake.push(f);
    const m = /(sk-ant-api\d\d-[A-Za-z0-9_-]{20,}|sk-proj-[A-Za-z0-9_-]{20,}|AIza[0-9A-Za-z_-]{30,})/.exec(text);
    if (m) throw new Error(`${f}: looks like a real secret (${m[0].slice(0, 12)}…)`);
  }
  return [...new Set(withFake)];
}

export function dirSize(dir) {
  let n = 0;
  for (const f of listFiles(dir)) n += statSync(join(dir, f)).size;
  return n;
}

/**
 * Copy a SQLite database as one compact file: VACUUM INTO a new file (reads through the WAL, leaves the
 * source untouched), trim long text cells like JSON files, VACUUM again.
 */
export async function copySqlite(src, dest, keep, { trim = true } = {}) {
  const { default: Database } = await import('better-sqlite3');
  mkdirSync(dirname(dest), { recursive: true });
  rmSync(dest, { force: true });
  const from = new Database(src, { readonly: true, fileMustExist: true });
  from.prepare('VACUUM INTO ?').run(dest);
  from.close();
  const db = new Database(dest);
  const tables = !trim
    ? []
    : db
        .prepare("SELECT name FROM sqlite_master WHERE type='table' AND name NOT LIKE 'sqlite_%'")
        .all()
        .map((r) => r.name);
  for (const t of tables) {
    const cols = db
      .prepare(`PRAGMA table_info("${t}")`)
      .all()
      .map((c) => c.name);
    for (const c of cols)
      try {
        const rows = db
          .prepare(`SELECT rowid AS r, "${c}" AS v FROM "${t}" WHERE typeof("${c}")='text' AND length("${c}") > ?`)
          .all(PLACEHOLDER_MIN);
        if (!rows.length) continue;
        const upd = db.prepare(`UPDATE "${t}" SET "${c}" = ? WHERE rowid = ?`);
        for (const { r, v } of rows) {
          let out;
          try {
            out = JSON.stringify(trimValue(JSON.parse(v), keep));
          } catch {
            out = trimValue(v, keep);
          }
          upd.run(out, r);
        }
      } catch (e) {
        log(`sqlite trim ${t}.${c}: ${e.message}`);
      }
  }
  db.exec('VACUUM');
  db.close();
}
