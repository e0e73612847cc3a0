// Cursor CLI: transcripts (fixtures) and per-chat store.db (from the fixture dump, WAL mode), joined on
// the chat id; the working directory recovered by md5 of candidate directories.

import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { cursor, cursorPromptText, decodeChatMeta } from '../lib/harness/cursor/index.js';
import type { Session } from '../lib/types.js';
import { FIXTURES, jsonl, lsJson, must, run, tempHome, write } from './helpers.js';
import type { Doctor, Listed } from './json.js';
import { cursorStore, md5, openDatabase } from './sqlite-fixtures.js';

function home(): string {
  const h = tempHome('resume-cursor-');
  return h;
}

const CHAT = 'a1b2c3d4-e5f6-7890-abcd-ef1234567890'; // the fixture store.db's agentId
const CHILD = 'c0ffee00-1111-4222-8333-444455556666';
const slugOf = (dir: string) => dir.replace(/^\//, '').replace(/\//g, '-');
const fixture = (name: string) => fs.readFileSync(path.join(FIXTURES, 'cursor', name));

/** ~/.cursor/projects/<slug>/agent-transcripts/<chat>/<chat>.jsonl */
function transcript(h: string, cwd: string, chat: string, body: string | Buffer, root = path.join(h, '.cursor')): string {
  return write(h, path.join(root, 'projects', slugOf(cwd), 'agent-transcripts', chat, `${chat}.jsonl`), body);
}
/** <config>/chats/<md5 cwd>/<chat>/store.db */
function store(cwd: string, chat: string, meta: Record<string, unknown> | null, configDir: string): string {
  const file = path.join(configDir, 'chats', md5(cwd), chat, 'store.db');
  cursorStore(file, meta);
  return file;
}
const byId = (list: Listed[]) => new Map(list.filter((s) => s.harness === 'cursor').map((s) => [s.id, s]));

describe('cursor', () => {
  it('joins the fixture transcript and store.db on the chat id; the md5 folder picks the directory', () => {
    const h = home();
    // The slug of src/my-app is also the slug of src/my/app: both exist, so only the md5 can decide.
    const cwd = path.join(h, 'src', 'my-app');
    fs.mkdirSync(cwd, { recursive: true });
    fs.mkdirSync(path.join(h, 'src', 'my', 'app'), { recursive: true });
    transcript(h, cwd, CHAT, fixture('test-session.jsonl'));
    const sub = path.join(h, '.cursor/projects', slugOf(cwd), 'agent-transcripts', CHAT, 'subagents', `${CHILD}.jsonl`);
    write(h, sub, fixture('subagent-session.jsonl'));
    // The fixture store.db as it is (name "Test Session", model claude-4-sonnet).
    const dbFile = path.join(h, '.cursor', 'chats', md5(cwd), CHAT, 'store.db');
    cursorStore(dbFile, null);
    const s = byId(lsJson(h));
    expect(s.get(CHAT)).toMatchObject({
      cwd,
      title: 'Test Session',
      prompts: 2,
      firstPrompt: 'run ls command',
      lastPrompt: 'now show me the git status',
      model: 'claude-4-sonnet',
      started: '2026-04-07T00:43:10.321Z',
      hidden: false,
      parent: null,
      file: path.join(h, '.cursor/projects', slugOf(cwd), 'agent-transcripts', CHAT, `${CHAT}.jsonl`),
      resume: { cwd, argv: ['cursor-agent', '--resume', CHAT] },
    });
    expect(s.get(CHILD)).toMatchObject({
      cwd,
      hidden: true,
      hiddenReason: 'subagent',
      parent: CHAT,
      prompts: 1,
      firstPrompt: 'Run ls -la in the workspace directory and return the output.',
    });
    const r = run(h, ['ls']);
    expect(r.stdout.split('\n').filter(Boolean)).toHaveLength(1);
    expect(r.stderr).toMatch(/\+1 hidden: 1 workers/);
  });

  it('without a store.db the slug is used only when it names one existing directory', () => {
    const h = home();
    const one = path.join(h, 'code', 'solo');
    fs.mkdirSync(one, { recursive: true });
    transcript(h, one, '11111111-0000-4000-8000-000000000001', fixture('turn-ended.jsonl'));
    const amb = path.join(h, 'code', 'two-ways');
    fs.mkdirSync(amb, { recursive: true });
    fs.mkdirSync(path.join(h, 'code', 'two', 'ways'), { recursive: true });
    transcript(h, amb, '11111111-0000-4000-8000-000000000002', fixture('turn-ended.jsonl'));
    transcript(h, path.join(h, 'gone', 'away'), '11111111-0000-4000-8000-000000000003', fixture('turn-ended.jsonl'));
    const s = byId(lsJson(h));
    expect(s.get('11111111-0000-4000-8000-000000000001')).toMatchObject({ cwd: one, title: 'List the files.', prompts: 2 });
    expect(must(s.get('11111111-0000-4000-8000-000000000002')).cwd).toBeNull();
    expect(must(s.get('11111111-0000-4000-8000-000000000003')).cwd).toBeNull();
  });

  it('recovers a hostile directory name from a Shell call below it, verified by md5, and prints it safely', () => {
    const h = home();
    const cwd = path.join(h, 'src', `we-ird $(touch x) \`id\` 'q' "dq"\nline\tTab é-名前 \x1b[31mred`);
    fs.mkdirSync(path.join(cwd, 'pkg'), { recursive: true });
    const chat = '22222222-0000-4000-8000-000000000001';
    transcript(
      h,
      cwd,
      chat,
      jsonl(
        {
          role: 'user',
          message: { content: [{ type: 'text', text: '<timestamp>Mon</timestamp>\n<user_query>\nbuild the pkg\n</user_query>' }] },
        },
        {
          role: 'assistant',
          message: { content: [{ type: 'tool_use', name: 'Shell', input: { command: 'make', working_directory: path.join(cwd, 'pkg') } }] },
        },
      ),
    );
    store(
      cwd,
      chat,
      { agentId: chat, name: 'New Agent', createdAt: 1775522590321, lastUsedModel: 'default', blobEncryptionKey: 'SECRET-KEY-123' },
      path.join(h, '.cursor'),
    );
    const s = byId(lsJson(h)).get(chat);
    expect(s).toMatchObject({ cwd, title: 'build the pkg', model: null, prompts: 1 });
    const rows = run(h, ['rows']);
    expect(rows.code).toBe(0);
    expect(rows.stdout.split('\n').filter(Boolean)).toHaveLength(1);
    expect(rows.stdout).not.toMatch(/\x1b/);
    // The chat's secret key never reaches the index or any output.
    const cache = path.join(h, '.cache', 'resume');
    for (const f of fs.readdirSync(cache))
      if (fs.statSync(path.join(cache, f)).isFile()) expect(fs.readFileSync(path.join(cache, f), 'utf8')).not.toContain('SECRET-KEY');
    expect(run(h, ['doctor', '--json']).stdout).not.toContain('SECRET-KEY');
  });

  it('a chat database without a transcript is listed by its name; an unnamed one is hidden as empty', () => {
    const h = home();
    const cfg = path.join(h, '.cursor');
    store(
      '/home/u/proj',
      '33333333-0000-4000-8000-000000000001',
      { agentId: '33333333-0000-4000-8000-000000000001', name: 'Plan the migration', createdAt: 1775522590321 },
      cfg,
    );
    store(
      '/home/u/proj',
      '33333333-0000-4000-8000-000000000002',
      { agentId: '33333333-0000-4000-8000-000000000002', name: 'New Agent', createdAt: 1775522590321 },
      cfg,
    );
    const s = byId(lsJson(h));
    expect(s.get('33333333-0000-4000-8000-000000000001')).toMatchObject({ title: 'Plan the migration', hidden: false, prompts: 0 });
    expect(s.get('33333333-0000-4000-8000-000000000002')).toMatchObject({ hidden: true, hiddenReason: 'empty' });
  });

  it('a .workspace-trusted path settles an ambiguous slug; a FIFO meta.json is never opened', () => {
    const h = home();
    const cwd = path.join(h, 'src', 'a-b');
    fs.mkdirSync(cwd, { recursive: true });
    fs.mkdirSync(path.join(h, 'src', 'a', 'b'), { recursive: true });
    const chat = '12121212-0000-4000-8000-000000000001';
    transcript(h, cwd, chat, fixture('turn-ended.jsonl'));
    write(h, path.join(h, '.cursor/projects', slugOf(cwd), '.workspace-trusted'), JSON.stringify({ workspacePath: cwd }));
    const other = '12121212-0000-4000-8000-000000000002';
    const db = store('/elsewhere', other, { agentId: other, name: 'Named' }, path.join(h, '.cursor'));
    execFileSync('mkfifo', [path.join(path.dirname(db), 'meta.json')]);
    const r = run(h, ['ls', '-a', '--json']);
    expect(r.code).toBe(0);
    const s = byId(JSON.parse(r.stdout));
    expect(s.get(chat)).toMatchObject({ cwd, title: 'List the files.' });
    expect(s.get(other)).toMatchObject({ title: 'Named' });
    const d = must((JSON.parse(run(h, ['doctor', '--json']).stdout) as Doctor).harnesses.find((x) => x.name === 'cursor'));
    expect(d.skipped.reasons).toEqual({ 'meta.json files that are not small JSON files': 1 });
  });

  it('meta.json alone (newer builds): times and the subagent mark', () => {
    const h = home();
    const dir = path.join(h, '.cursor', 'chats', md5('/x'), '44444444-0000-4000-8000-000000000001');
    write(
      h,
      path.join(dir, 'meta.json'),
      JSON.stringify({ schemaVersion: 1, createdAtMs: 1775000000000, updatedAtMs: 1775000600000, name: 'Worker', isSubagent: true }),
    );
    expect(byId(lsJson(h)).get('44444444-0000-4000-8000-000000000001')).toMatchObject({
      title: 'Worker',
      hidden: true,
      hiddenReason: 'subagent',
      started: '2026-03-31T23:33:20.000Z',
      updated: '2026-03-31T23:43:20.000Z',
    });
  });

  it('reads a transcript incrementally as it grows, and counts unknown record types', () => {
    const h = home();
    const cwd = path.join(h, 'p');
    fs.mkdirSync(cwd);
    const chat = '55555555-0000-4000-8000-000000000001';
    const file = transcript(h, cwd, chat, fixture('test-session.jsonl'));
    expect(must(byId(lsJson(h)).get(chat)).prompts).toBe(2);
    fs.appendFileSync(
      file,
      `${jsonl(
        { type: 'mystery_event' },
        { type: 'mystery_event' },
        { role: 'system', message: {} },
        { role: 'user', message: { content: [{ type: 'text', text: '<user_info>os: linux</user_info>third question' }] } },
      )}not json\n{"role":"user","message":{"content":[{"type":"text","text":"half a li`,
    );
    const ix = run(h, ['index']);
    expect(ix.stderr).toMatch(/ 0 parsed, 1 appended/);
    expect(byId(lsJson(h)).get(chat)).toMatchObject({ prompts: 3, lastPrompt: 'third question' });
    const d = must((JSON.parse(run(h, ['doctor', '--json']).stdout) as Doctor).harnesses.find((x) => x.name === 'cursor'));
    expect(d.unknownTypes).toEqual([
      { type: 'mystery_event', count: 2 },
      { type: 'role system', count: 1 },
    ]);
    expect(d.skipped.badLines).toBe(1);
  });

  it('a corrupt store.db is one warning; the transcript still lists', () => {
    const h = home();
    const cwd = path.join(h, 'w');
    fs.mkdirSync(cwd);
    transcript(h, cwd, CHAT, fixture('test-session.jsonl'));
    write(h, path.join(h, '.cursor', 'chats', md5(cwd), CHAT, 'store.db'), 'garbage '.repeat(600));
    const r = run(h, ['ls', '-a']);
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(/^resume: cursor: cannot read store\.db: .*not a database\n$/);
    expect(r.stdout).toContain('run ls command');
  });

  it('reads a store.db whose writer is open, and re-reads it when its -wal changes', () => {
    const h = home();
    const cwd = path.join(h, 'live');
    fs.mkdirSync(cwd);
    const file = store(cwd, CHAT, { agentId: CHAT, name: 'First name' }, path.join(h, '.cursor'));
    const w = openDatabase(file);
    try {
      w.prepare(`SELECT * FROM meta`).all();
      expect(byId(lsJson(h)).get(CHAT)).toMatchObject({ title: 'First name', cwd: null });
      w.prepare(`UPDATE meta SET value = ? WHERE key = '0'`).run(
        Buffer.from(JSON.stringify({ agentId: CHAT, name: 'Renamed' })).toString('hex'),
      );
      expect(byId(lsJson(h)).get(CHAT)).toMatchObject({ title: 'Renamed' });
      expect(run(h, ['index']).stderr).toMatch(/ 0 parsed, 0 appended, 1 unchanged/);
    } finally {
      w.close();
    }
  });
});

describe('cursor roots', () => {
  const chatIn = (configDir: string, name: string) =>
    store('/srv/app', '66666666-0000-4000-8000-000000000001', { agentId: '66666666-0000-4000-8000-000000000001', name }, configDir);
  const title = (h: string, env: Record<string, string>) => byId(lsJson(h, env)).get('66666666-0000-4000-8000-000000000001')?.title ?? null;

  it('CURSOR_CONFIG_DIR moves the chats; transcripts stay under ~/.cursor/projects', () => {
    const h = home();
    chatIn(path.join(h, 'cfg'), 'From CURSOR_CONFIG_DIR');
    transcript(h, '/srv/app', '66666666-0000-4000-8000-000000000001', fixture('turn-ended.jsonl'));
    expect(title(h, {})).toBe('List the files.');
    const s = byId(lsJson(h, { CURSOR_CONFIG_DIR: path.join(h, 'cfg') })).get('66666666-0000-4000-8000-000000000001');
    expect(s).toMatchObject({ title: 'From CURSOR_CONFIG_DIR', prompts: 2 });
  });
  it('XDG_CONFIG_HOME/cursor holds chats when CURSOR_CONFIG_DIR is unset', () => {
    const h = home();
    chatIn(path.join(h, 'xdg', 'cursor'), 'From XDG');
    expect(title(h, {})).toBeNull();
    expect(title(h, { XDG_CONFIG_HOME: path.join(h, 'xdg') })).toBe('From XDG');
  });
  it('RESUME_CURSOR_DIRS adds a root (chats and projects below it)', () => {
    const h = home();
    const extra = path.join(h, 'synced');
    chatIn(extra, 'From the synced root');
    transcript(h, '/srv/other', '77777777-0000-4000-8000-000000000001', fixture('turn-ended.jsonl'), extra);
    const s = byId(lsJson(h, { RESUME_CURSOR_DIRS: extra }));
    expect(s.get('66666666-0000-4000-8000-000000000001')?.title).toBe('From the synced root');
    expect(s.get('77777777-0000-4000-8000-000000000001')?.prompts).toBe(2);
    const d: Doctor = JSON.parse(
      run(h, ['doctor', '--json'], { RESUME_CURSOR_DIRS: extra, CURSOR_CONFIG_DIR: path.join(h, 'nope') }).stdout,
    );
    const roots = must(d.harnesses.find((x) => x.name === 'cursor')).roots.map((r) => [r.path, r.via, r.exists]);
    expect(roots).toEqual([
      [extra, 'RESUME_CURSOR_DIRS', true],
      [path.join(h, 'nope'), 'CURSOR_CONFIG_DIR', false],
      [path.join(h, '.cursor'), 'default', false],
    ]);
  });
});

describe('cursor launch and text', () => {
  it('resumes with cursor-agent, or agent when only agent is on PATH; refuses to fork', () => {
    const h = home();
    const bin = path.join(h, 'bin');
    transcript(h, '/srv/app', CHAT, fixture('turn-ended.jsonl'));
    write(h, path.join(bin, 'agent'), '#!/bin/sh\nexit 0\n');
    fs.chmodSync(path.join(bin, 'agent'), 0o755);
    const argv0 = () => must(must(byId(lsJson(h, { PATH: `${bin}:/usr/bin:/bin` })).get(CHAT)).resume).argv;
    expect(argv0()).toEqual(['agent', '--resume', CHAT]);
    write(h, path.join(bin, 'cursor-agent'), '#!/bin/sh\nexit 0\n');
    fs.chmodSync(path.join(bin, 'cursor-agent'), 0o755);
    expect(argv0()).toEqual(['cursor-agent', '--resume', CHAT]);
    expect(typeof cursor.launch({ id: CHAT } as Session, { fork: true })).toBe('string');
  });

  it('strips the wrappers the CLI puts around a query', () => {
    expect(cursorPromptText('<user_query>\nrun ls command\n</user_query>')).toBe('run ls command');
    expect(cursorPromptText('<timestamp>Monday</timestamp>\n<user_query>\nhi\n</user_query>\n<context>x</context>')).toBe('hi');
    expect(cursorPromptText('<user_info>OS: linux</user_info>\nplain question')).toBe('plain question');
    expect(cursorPromptText('<context>only context</context>')).toBe('');
  });

  it("decodes meta['0'] (hex JSON or plain JSON) keeping only named fields", () => {
    const hex = must(fs.readFileSync(path.join(FIXTURES, 'cursor', 'store-db.dump.sql'), 'utf8').match(/VALUES\('0','([0-9a-f]+)'\)/))[1];
    expect(decodeChatMeta(hex)).toEqual({
      agentId: CHAT,
      name: 'Test Session',
      createdAt: 1775522590321,
      model: 'claude-4-sonnet',
      mode: 'default',
    });
    const withKey = decodeChatMeta(JSON.stringify({ name: 'x', blobEncryptionKey: 'k' }));
    expect(JSON.stringify(withKey)).not.toContain('blobEncryptionKey');
    expect(decodeChatMeta('zz-not-hex')).toBeNull();
    expect(decodeChatMeta(42)).toBeNull();
  });
});
