// Issue 11, privacy: a session whose prompts (and title, and branch) hold secrets and terminal escape
// sequences, walked through EVERY command and output format. Nothing may come out raw: no secret,
// no escape sequence, no control character (JSON escapes count as raw too: the value is checked).

import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { BIN, envFor, jsonl, needs, run, tempHome, write } from './helpers.js';

// Assembled from parts so this file holds no string a secret scanner would flag.
const j = (...p: string[]) => p.join('');
const SECRETS = {
  anthropic: j('sk-ant-', 'api03-', 'Zq8xY2vB4nM6kL1pR3tW5sD7fG9hJ0aQwErTyUiOpAsDfGhJkLzXcVbNm1234567890-abcdefAA'),
  github: j('ghp_', 'Zq8xY2vB4nM6kL1pR3tW5sD7fG9hJ0aQwErT'),
  aws: j('AKIA', 'Z7Q2VB4NM6KL1PR3'),
  slack: j('xoxb-', '1234567890-1234567890123-', 'Zq8xY2vB4nM6kL1pR3tW5sD7'),
  password: 'hunter2-Zq8xY2vB',
  jwt: j('eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9', '.', 'eyJzdWIiOiIxMjM0NTY3ODkwIn0', '.', 'Zq8xY2vB4nM6kL1pR3tW5sD7fG9hJ0aQwErTyUiOp'),
  openai: j('sk-', 'proj-', 'Zq8xY2vB4nM6kL1pR3tW5sD7fG9hJ0aQwErTyUiOpAsDfGhJkLzXcVbNm12'),
  // providers' tokens known by their prefix alone, after a name that is not secret-ish
  groq: j('gsk_', 'Zq8xY2vB4nM6kL1pR3tW5sD7fG9hJ0aQwErTyUiOpAsDfGhJkLzXc'),
  vault: j('hvs.', 'CAESIZq8xY2vB4nM6kL1pR3tW5sD7fG9hJ0aQwErTyUiOpAsDfGh'),
};
// the parts of each that must never be seen (the whole value, and a distinctive inner piece)
const NEEDLES = [...Object.values(SECRETS), 'Zq8xY2vB4nM6kL1pR3', 'Z7Q2VB4NM6KL1PR3', 'hunter2'];
const ESC = '\u001b]0;pwned\u0007\u001b[2J\u001b[31m';

function setup() {
  const home = tempHome('resume-privacy-');
  const cwd = path.join(home, 'work', 'shop');
  fs.mkdirSync(cwd, { recursive: true });
  const id = 'c1a0de11-0000-4000-8000-000000000001';
  const id2 = 'c1a0de11-0000-4000-8000-000000000002';
  const at = (m: number) => `2026-11-20T10:0${m}:00.000Z`;
  const line = (sid: string, type: string, n: number, extra: object) => ({
    parentUuid: n ? `${sid}-${n - 1}` : null,
    isSidechain: false,
    userType: 'external',
    cwd,
    sessionId: sid,
    version: '2.1.0',
    gitBranch: `feat/${ESC}token=${SECRETS.password}`,
    type,
    uuid: `${sid}-${n}`,
    timestamp: at(n),
    entrypoint: 'cli',
    ...extra,
  });
  const user = (sid: string, n: number, text: string) => line(sid, 'user', n, { message: { role: 'user', content: text } });
  const reply = (sid: string, n: number, text: string) =>
    line(sid, 'assistant', n, { message: { role: 'assistant', content: [{ type: 'text', text }] } });
  const prompts = [
    `${ESC}deploy cartwheel with ${SECRETS.anthropic} and ${SECRETS.github}`,
    `aws ${SECRETS.aws} then slack ${SECRETS.slack} then export GROQ=${SECRETS.groq} VAULT=${SECRETS.vault}\u001b[0m`,
    `cartwheel login password=${SECRETS.password} jwt ${SECRETS.jwt}`,
    `${ESC}cartwheel finally OPENAI_API_KEY=${SECRETS.openai} \u202eexe.txt`,
  ];
  write(
    home,
    `.claude/projects/-w-shop/${id}.jsonl`,
    jsonl(...prompts.flatMap((p, i) => [user(id, 2 * i, p), reply(id, 2 * i + 1, `ok ${SECRETS.github} ${ESC}done`)]), {
      type: 'custom-title',
      customTitle: `${ESC}cartwheel ${SECRETS.slack}`,
      sessionId: id,
    }),
  );
  write(
    home,
    `.claude/projects/-w-shop/${id2}.jsonl`,
    jsonl(user(id2, 0, `cartwheel again ${SECRETS.openai} ${ESC}`), reply(id2, 1, 'ok'), user(id2, 2, `cartwheel more ${SECRETS.jwt}`)),
  );
  return { home, cwd, id, id2 };
}

/** Raw output: any secret, any escape sequence or control character (bar tab and newline) is a leak. */
function expectClean(what: string, text: string) {
  for (const n of NEEDLES) expect(text, `${what} shows a secret`).not.toContain(n);
  expect(text, `${what} shows "pwned" (an OSC title)`).not.toContain('pwned');
  // eslint-disable-next-line no-control-regex
  expect(text, `${what} has a control character`).not.toMatch(
    /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/,
  );
}

/** JSON output: the document parsed, every string in it checked. */
function expectCleanJson(what: string, text: string) {
  const strings: string[] = [];
  const walk = (v: unknown) => {
    if (typeof v === 'string') strings.push(v);
    else if (Array.isArray(v)) v.forEach(walk);
    else if (v && typeof v === 'object') Object.values(v).forEach(walk);
  };
  walk(JSON.parse(text));
  expectClean(what, strings.join('\n'));
  expectClean(`${what} (text)`, text);
}

describe('nothing from a transcript reaches any output raw', () => {
  const { home, id, id2 } = setup();
  const r = (args: string[], extra: Record<string, string | undefined> = {}) => run(home, args, extra);

  it('the samples are really in the transcript (the test would prove nothing otherwise)', () => {
    const raw = fs.readFileSync(path.join(home, `.claude/projects/-w-shop/${id}.jsonl`), 'utf8');
    for (const s of Object.values(SECRETS)) expect(raw).toContain(s);
  });

  it('the index cache stores them redacted', () => {
    r(['index']);
    const dir = path.join(home, '.cache', 'resume');
    // every session, source's sessions and prompt the database holds: no secret and no control character
    const Sqlite = createRequire(import.meta.url)('better-sqlite3');
    const db = new Sqlite(path.join(dir, 'index.db'), { readonly: true });
    const sessions = (db.prepare('SELECT doc FROM sessions').pluck().all() as string[]).map((d) => JSON.parse(d));
    const prompts = (db.prepare('SELECT texts FROM prompts').pluck().all() as string[]).flatMap((t) => JSON.parse(t) as string[]);
    const entries = db.prepare('SELECT sessions FROM sources').pluck().all() as string[];
    // the search index's pieces (made by `index` after the listing): prompts and replies, redacted
    const pieces = db.prepare('SELECT text FROM pieces').pluck().all() as string[];
    db.close();
    expect(pieces.join('\n')).toContain('cartwheel');
    expectCleanJson("the search index's pieces", JSON.stringify(pieces));
    expectCleanJson('the sessions', JSON.stringify(sessions));
    expectCleanJson('the prompts', JSON.stringify(prompts));
    expectCleanJson("the sources' sessions", JSON.stringify(entries.map((e) => JSON.parse(e))));
    expect(JSON.stringify(prompts)).toContain('[REDACTED:');
    // (the parsers' own states, kept to continue an append, hold the text as the transcript has it,
    // under the same 0600 as the rest of the cache: they are never shown)
    // the rendered rows (binary records around the row text) hold no secret either
    r(['rows']);
    const bin = fs.readFileSync(path.join(dir, 'rows.bin')).toString('utf8');
    for (const sec of NEEDLES) expect(bin).not.toContain(sec);
    // nor the rows a listing printed, kept for the next (rows.out)
    const shown = r(['rows']).stdout;
    const printed = fs.readFileSync(path.join(dir, 'rows.out'));
    for (const sec of NEEDLES) expect(printed.toString('utf8')).not.toContain(sec);
    // (its body is what was printed, which holds no control character: checked above for every listing)
    expect(printed.subarray(printed.length - Buffer.byteLength(shown)).toString('utf8')).toBe(shown);
    expect(shown).not.toMatch(/[\x00-\x08\x0b-\x1f\x7f]/);

    // an append: the database holds the new prompt redacted
    const cwd = path.join(home, 'work', 'shop');
    fs.appendFileSync(
      path.join(home, `.claude/projects/-w-shop/${id2}.jsonl`),
      `${JSON.stringify({
        parentUuid: `${id2}-2`,
        isSidechain: false,
        userType: 'external',
        cwd,
        sessionId: id2,
        version: '2.1.0',
        gitBranch: 'main',
        type: 'user',
        uuid: `${id2}-3`,
        timestamp: '2026-11-20T10:09:00.000Z',
        entrypoint: 'cli',
        message: { role: 'user', content: `${ESC}cartwheel appended ${SECRETS.aws} password=${SECRETS.password}` },
      })}\n`,
    );
    expect(r(['rows']).stdout).toContain(`claude:${id2}`);
    const after = new Sqlite(path.join(dir, 'index.db'), { readonly: true });
    const doc = after.prepare('SELECT doc FROM sessions WHERE id = ?').pluck().get(id2) as string;
    // the prompts (every prompt, for words) too: the append kept the session's earlier prompts as
    // stored, sanitised, and sanitised the new one
    const pf = (after.prepare('SELECT texts FROM prompts').pluck().all() as string[]).flatMap((t) => JSON.parse(t) as string[]).join('\n');
    after.close();
    expect(doc).toContain('cartwheel appended');
    expectCleanJson('the appended session', doc);
    expect(pf).toContain('cartwheel appended');
    expect(pf).toContain('cartwheel again [REDACTED:openai-key]');
    for (const sec of NEEDLES) expect(pf, 'a prompt holds a secret').not.toContain(sec);
    // and every other file the index writes (whatever its name) holds no secret; the database is
    // the exception: the parsers' states (to continue an append) are the transcript's own text
    const every = fs
      .readdirSync(dir, { withFileTypes: true })
      .filter((e) => e.isFile() && !e.name.startsWith('index.db'))
      .map((e) => path.join(dir, e.name));
    expect(every.map((f) => path.relative(dir, f))).toEqual(expect.arrayContaining(['rows.bin', 'check.bin']));
    for (const f of every) {
      const text = fs.readFileSync(f).toString('utf8');
      for (const sec of NEEDLES) expect(text, `${path.relative(dir, f)} holds a secret`).not.toContain(sec);
    }
  });

  const cases: [string, string[], 'text' | 'json', Record<string, string | undefined>?][] = [
    ['rows', ['rows'], 'text'],
    ['rows --all', ['rows', '--all'], 'text'],
    ['ls (TSV)', ['ls'], 'text'],
    ['ls --json', ['ls', '--json', '-a'], 'json'],
    ['show', ['show', id], 'text'],
    ['show --json', ['show', '--json', id], 'json'],
    ['show with several candidates', ['show', 'cartwheel'], 'text'],
    ['resume with several candidates (no terminal)', ['cartwheel'], 'text'],
    ['resume --dry-run', [id, '--dry-run'], 'text'],
    ['resolve candidates', ['resolve', 'cartwheel'], 'text'],
    ['__complete', ['__complete', '--', 'cart'], 'text'],
    ['__complete (all)', ['__complete', '--', ''], 'text'],
    ['search', ['search', 'cartwheel'], 'text'],
    ['search (colour)', ['search', 'cartwheel'], 'text', { NO_COLOR: undefined, FORCE_COLOR: '1' }],
    ['search --json', ['search', '--json', 'cartwheel'], 'json'],
    ['search --rows', ['search', '--rows', 'cartwheel'], 'text'],
    ['search for the redacted word', ['search', 'password'], 'text'],
    ['doctor', ['doctor'], 'text'],
    ['doctor --json', ['doctor', '--json'], 'json'],
    ['preview', ['preview', `claude:${id}`], 'text'],
    ['preview (colour, in the picker)', ['preview', `claude:${id}`], 'text', { NO_COLOR: undefined, RESUME_PICK_DIR: '/nonexistent' }],
    ['transcript pager', ['__transcript', `claude:${id}`], 'text', { PAGER: 'cat' }],
    ['transcript pager (second session)', ['__transcript', `claude:${id2}`], 'text', { PAGER: 'cat' }],
  ];
  it.each(cases)('%s', (what, args, kind, extra) => {
    const o = r(args, extra ?? {});
    expect(o.stdout.length, `${what}: no output (${o.stderr})`).toBeGreaterThan(0);
    // colour codes are ours, not the transcript's: take them out before looking for leaks
    // eslint-disable-next-line no-control-regex
    const out = extra?.FORCE_COLOR || extra?.RESUME_PICK_DIR ? o.stdout.replace(/\u001b\[[0-9;]*m/g, '') : o.stdout;
    if (kind === 'json') expectCleanJson(what, out);
    else expectClean(what, out);
    expectClean(`${what} (stderr)`, o.stderr);
  });

  it('the redacted text still says what was there', () => {
    const o = r(['show', id]).stdout;
    expect(o).toMatch(/first prompt:\s+deploy cartwheel with \[REDACTED:anthropic-key\] and \[REDACTED:github-token\]/);
    expect(o).toMatch(/last prompt:\s+cartwheel finally OPENAI_API_KEY=\[REDACTED:openai-key\]/);
    expect(o).toMatch(/title:\s+cartwheel \[REDACTED:slack-token\]/);
    const t = r(['__transcript', `claude:${id}`], { PAGER: 'cat' }).stdout;
    for (const k of ['aws-key', 'slack-token', 'password', 'jwt', 'groq-key', 'vault-token']) expect(t).toContain(`[REDACTED:${k}]`);
  });

  it.skipIf(needs('script'))('ls on a terminal (the table)', () => {
    const env = envFor(home, { COLUMNS: '200' });
    const p = spawnSync('script', ['-qec', `${process.execPath} ${BIN} ls -a`, '/dev/null'], { env, encoding: 'utf8', cwd: home });
    expect(p.status).toBe(0);
    expect(p.stdout).toContain('cartwheel');
    // the terminal's own line endings are ours
    expectClean('ls table', p.stdout.replace(/\r/g, ''));
  });
});
