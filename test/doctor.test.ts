// resume doctor: the report a user pastes into a bug report, and its --json form.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { HARNESSES } from '../lib/types.js';
import { width } from '../lib/util/text.js';
import { BIN, envFor, FIXTURES, must, put, run, tempHome, write } from './helpers.js';
import type { Doctor } from './json.js';
import { addSessions, opencodeDb, user } from './sqlite-fixtures.js';

function home(): string {
  const h = tempHome('resume-doctor-');
  return h;
}

/** A HOME with sessions of three harnesses, some hidden, one odd transcript line. */
function corpus(h: string): void {
  put(h, 'claude/projects', '.claude/projects');
  const db = opencodeDb(path.join(h, '.local/share/opencode/opencode.db'));
  addSessions(
    db,
    [
      { id: 'ses_main', directory: '/home/u/api', title: 'Newest opencode session', updated: Date.parse('2030-01-01T00:00:00Z') },
      { id: 'ses_kid', parent: 'ses_main', updated: 1770000000000 },
      { id: 'ses_arch', title: 'archived', archived: 1, updated: 1770000000000 },
    ],
    [user('msg_1', 'ses_main', 'hello'), user('msg_2', 'ses_kid', 'child work')],
  );
  db.close();
  const chat = '88888888-0000-4000-8000-000000000001';
  write(
    h,
    `.cursor/projects/srv-x/agent-transcripts/${chat}/${chat}.jsonl`,
    fs.readFileSync(path.join(FIXTURES, 'cursor', 'test-session.jsonl'), 'utf8') +
      '{"type":"weird_new_thing"}\n{"type":"weird_new_thing"}\n{"type":"other_thing"}\n[1,2]\n',
  );
}

/** An executable script on a private PATH directory. */
function tool(dir: string, name: string, body: string): void {
  write(dir, path.join(dir, name), `#!/bin/sh\n${body}\n`);
  fs.chmodSync(path.join(dir, name), 0o755);
}

describe('doctor', () => {
  it('--json: roots with what chose them, counts, hidden and skipped, unknown types, newest, index files', () => {
    const h = home();
    corpus(h);
    expect(run(h, ['ls']).code).toBe(0);
    const r = run(h, ['doctor', '--json'], { SHELL: '/bin/zsh', XDG_DATA_HOME: undefined });
    expect(r.code).toBe(0);
    const d: Doctor = JSON.parse(r.stdout);
    expect(d.harnesses.map((x) => x.name).sort()).toEqual([...HARNESSES].sort());
    expect(d.shell).toBe('/bin/zsh');
    expect(d.sqlite).toMatchObject({ ok: true });
    const oc = must(d.harnesses.find((x) => x.name === 'opencode'));
    expect(oc).toMatchObject({
      files: 1,
      filesByKind: { db: 1 },
      sessions: 3,
      hidden: { subagent: 1, archived: 1 },
      newest: { id: 'ses_main', updated: '2030-01-01T00:00:00.000Z', cwd: '/home/u/api', title: 'Newest opencode session' },
    });
    expect(oc.roots).toEqual([{ path: path.join(h, '.local/share/opencode'), via: 'default', exists: true, role: 'data' }]);
    const cu = must(d.harnesses.find((x) => x.name === 'cursor'));
    expect(cu).toMatchObject({ files: 1, sessions: 1, skipped: { badLines: 1 } });
    expect(cu.unknownTypes).toEqual([
      { type: 'weird_new_thing', count: 2 },
      { type: 'other_thing', count: 1 },
    ]);
    const cl = must(d.harnesses.find((x) => x.name === 'claude'));
    expect(cl.sessions).toBeGreaterThan(0);
    expect(cl.roots[0]).toMatchObject({ path: path.join(h, '.claude'), via: 'default', exists: true });
    const names = d.index.files.map((f) => path.basename(f.path));
    expect(names).toEqual(expect.arrayContaining(['index.db', 'check.bin', 'rows.bin']));
    for (const f of d.index.files.filter((x) => !/-(wal|shm)$/.test(x.path))) expect(f.size).toBeGreaterThan(0);
    expect(d.index.files.reduce((n: number, f) => n + f.files, 0)).toBeGreaterThan(1);
    expect(d.index.dir).toBe(path.join(h, '.cache', 'resume'));
  });

  it('names the variable that chose each root', () => {
    const h = home();
    const r = run(h, ['doctor', '--json'], {
      CURSOR_CONFIG_DIR: path.join(h, 'cc'),
      XDG_DATA_HOME: path.join(h, 'data'),
      OPENCODE_DB: 'x.db',
      RESUME_OPENCODE_DIRS: path.join(h, 'more'),
    });
    const d: Doctor = JSON.parse(r.stdout);
    const roots = (n: string) => must(d.harnesses.find((x) => x.name === n)).roots.map((x) => [x.path, x.via]);
    expect(roots('opencode')).toEqual([
      [path.join(h, 'more'), 'RESUME_OPENCODE_DIRS'],
      [path.join(h, 'data/opencode/x.db'), 'OPENCODE_DB'],
      [path.join(h, 'data/opencode'), 'XDG_DATA_HOME'],
    ]);
    expect(roots('cursor')[0]).toEqual([path.join(h, 'cc'), 'CURSOR_CONFIG_DIR']);
  });

  it('finds harness binaries and fzf on PATH with their versions; a binary that hangs gets none', () => {
    const h = home();
    const bin = path.join(h, 'bin');
    tool(bin, 'opencode', 'echo "1.2.27"');
    tool(bin, 'agent', 'echo "2026.11.20-abc"');
    tool(bin, 'fzf', 'echo "0.66.0 (deadbeef)"');
    tool(bin, 'pi', 'exec sleep 30');
    const r = run(h, ['doctor', '--json'], { PATH: `${bin}:/usr/bin:/bin` });
    expect(r.code).toBe(0);
    const d: Doctor = JSON.parse(r.stdout);
    const b = (n: string) => must(d.harnesses.find((x) => x.name === n)).binary;
    expect(b('opencode')).toEqual({ name: 'opencode', path: path.join(bin, 'opencode'), version: '1.2.27' });
    expect(b('cursor')).toEqual({ name: 'agent', path: path.join(bin, 'agent'), version: '2026.11.20-abc' });
    expect(b('pi')).toEqual({ name: 'pi', path: path.join(bin, 'pi'), version: null });
    expect(b('gemini')).toBeNull();
    expect(d.fzf).toEqual({ name: 'fzf', path: path.join(bin, 'fzf'), version: '0.66.0 (deadbeef)' });
  });

  it('the text report: one section per harness, paths with ~, nothing raw from a transcript', () => {
    const h = home();
    corpus(h);
    const chat = '99999999-0000-4000-8000-000000000001';
    const evil = '\x1b]0;pwned\x07\x1b[2J title\nwith newline';
    write(
      h,
      `.cursor/projects/srv-y/agent-transcripts/${chat}/${chat}.jsonl`,
      `${JSON.stringify({ role: 'user', message: { content: [{ type: 'text', text: evil }] } })}\n${JSON.stringify({ type: evil })}\n`,
    );
    fs.utimesSync(path.join(h, `.cursor/projects/srv-y/agent-transcripts/${chat}/${chat}.jsonl`), 4102444800, 4102444800);
    const r = run(h, ['doctor'], { SHELL: '/bin/bash' });
    expect(r.code).toBe(0);
    expect(r.stderr).toBe('');
    expect(r.stdout).not.toMatch(/[\x00-\x08\x0b-\x1f\x7f]/);
    for (const n of HARNESSES) expect(r.stdout).toMatch(new RegExp(`^${n} \\(`, 'm'));
    expect(r.stdout).toMatch(/^ {2}roots +~\/\.local\/share\/opencode +\(default, data, exists\)$/m);
    expect(r.stdout).toMatch(/^ {2}sessions +3, 2 hidden: (1 subagent, 1 archived|1 archived, 1 subagent)$/m);
    expect(r.stdout).toMatch(/^ {2}unknown +weird_new_thing ×2, /m);
    expect(r.stdout).toMatch(/^ {2}newest +99999999-0000-4000-8000-000000000001 .* title with newline$/m);
    expect(r.stdout).toMatch(/^ {2}shell +\/bin\/bash$/m);
  });

  it("on a terminal a harness's newest session keeps to its width, the title cut to what is left", () => {
    const h = tempHome();
    const shown = spawnSync('script', ['-qec', `stty cols 80; ${process.execPath} ${BIN} --demo doctor`, '/dev/null'], {
      env: { ...envFor(h), NO_COLOR: '1' },
      encoding: 'utf8',
    }).stdout.replace(/\r/g, '');
    const newest = shown.split('\n').filter((l) => l.startsWith('  newest'));
    expect(newest.length).toBeGreaterThan(3);
    for (const l of newest) expect(width(l), l).toBeLessThanOrEqual(80);
    // (opencode's, of a 30-character id: its title cut, where it wrapped past the 80th column)
    expect(newest.find((l) => l.includes('ses_'))).toMatch(/ {2}Request[^…]*…$/);
    // piped, as before: the title to 60 characters
    expect(run(h, ['--demo', 'doctor']).stdout).toMatch(/^ {2}newest +ses_\S+ .* Request body size limits$/m);
  });

  it('reports a database that cannot be read, and still exits 0', () => {
    const h = home();
    write(h, '.local/share/opencode/opencode.db', 'not a database at all '.repeat(300));
    const r = run(h, ['doctor', '--json']);
    expect(r.code).toBe(0);
    const oc = must((JSON.parse(r.stdout) as Doctor).harnesses.find((x) => x.name === 'opencode'));
    expect(oc.skipped.failedFiles).toBe(1);
    expect(oc.skipped.failed).toMatch(/cannot read opencode\.db: .*not a database/);
  });

  it('works on the demo HOME', () => {
    const h = home();
    const r = run(h, ['--demo', 'doctor', '--json']);
    expect(r.code).toBe(0);
    const d: Doctor = JSON.parse(r.stdout);
    expect(d.demo).toBe(true);
    // its index, without the demo's HOME made beside it (links to the bundled sessions)
    expect(d.index.files.map((f) => path.basename(f.path))).toContain('index.db');
    expect(d.index.files.map((f) => path.basename(f.path))).not.toContain('home');
    // every harness with a client to record (Cursor has none: the demo has no Cursor session)
    for (const n of ['claude', 'codex', 'pi', 'opencode', 'gemini'])
      expect(must(d.harnesses.find((x) => x.name === n)).sessions).toBeGreaterThan(0);
  });

  it('reports drift it can see: a client newer than the tested version, and sessions with replies but no prompt', () => {
    const h = home();
    const bin = path.join(h, 'bin');
    tool(bin, 'codex', 'echo "codex-cli 0.999.1"');
    tool(bin, 'claude', 'echo "2.1.332 (Claude Code)"');
    // a rollout whose prompt is in a shape the parser does not read: replies, no prompt
    const id = '019c0000-0000-7000-8000-0000000000dd';
    write(
      h,
      `.codex/sessions/2026/02/01/rollout-2026-02-01T10-00-00-${id}.jsonl`,
      `${[
        {
          timestamp: '2026-02-01T10:00:00.000Z',
          type: 'session_meta',
          payload: { id, timestamp: '2026-02-01T10:00:00.000Z', cwd: '/w', source: 'cli' },
        },
        { timestamp: '2026-02-01T10:00:01.000Z', type: 'event_msg', payload: { type: 'user_turn_v9', text: 'typed words' } },
        { timestamp: '2026-02-01T10:00:02.000Z', type: 'event_msg', payload: { type: 'agent_message', message: 'an answer' } },
      ]
        .map((o) => JSON.stringify(o))
        .join('\n')}\n`,
    );
    const r = run(h, ['doctor', '--json'], { PATH: `${bin}:/usr/bin:/bin` });
    expect(r.code).toBe(0);
    const d: Doctor = JSON.parse(r.stdout);
    const x = (n: string) => must(d.harnesses.find((y) => y.name === n));
    expect(x('codex')).toMatchObject({
      tested: '0.171.0',
      newerThanTested: true,
      noPrompt: { count: 1, files: [expect.stringContaining(id)] },
    });
    expect(x('claude')).toMatchObject({ tested: '2.1.332', newerThanTested: false, noPrompt: { count: 0, files: [] } });
    expect(x('cursor')).toMatchObject({ tested: null, newerThanTested: false });
    const t = run(h, ['doctor'], { PATH: `${bin}:/usr/bin:/bin` }).stdout;
    expect(t).toMatch(/drift +codex-cli 0\.999\.1 is newer than 0\.171\.0/);
    expect(t).toMatch(/drift +1 sessions with replies but no prompt found/);
  });

  it('exits 0 with a config it cannot read or a bad value in it, and reports what became of it', () => {
    const h = home();
    const file = path.join(h, '.config/resume/config');
    expect(JSON.parse(run(h, ['doctor', '--json']).stdout).config).toEqual({ file, state: 'absent', error: null });
    // a directory in the file's place (EISDIR: as root, a file without permissions is still read)
    fs.mkdirSync(file, { recursive: true });
    let r = run(h, ['doctor']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^ {2}config {4}~\/\.config\/resume\/config {2}cannot read it \(EISDIR\): the defaults are used$/m);
    expect(r.stdout).toContain('update hooks');
    expect(r.stderr).toBe(`resume: config ${file}: cannot read it (EISDIR); using the defaults\n`);
    expect(JSON.parse(run(h, ['doctor', '--json']).stdout).config).toEqual({ file, state: 'unreadable', error: 'EISDIR' });
    // a bad value: reported, and the report goes on
    fs.rmdirSync(file);
    write(h, file, 'keys = "emacs"\n');
    r = run(h, ['doctor']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(
      /^ {2}config {4}~\/\.config\/resume\/config {2}'keys' must be "default" or "vim", not "emacs" \(commands that use it stop with exit 2\)$/m,
    );
    expect(r.stdout).toContain('update hooks');
    expect(JSON.parse(run(h, ['doctor', '--json']).stdout).config.state).toBe('bad');
    write(h, file, 'keys = "vim"\n');
    expect(JSON.parse(run(h, ['doctor', '--json']).stdout).config.state).toBe('read');
  });
});
