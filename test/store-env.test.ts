// A session found in a non-default store resumes in that store (issue 10): the launch sets the
// harness's own variable (CLAUDE_CONFIG_DIR, CODEX_HOME, GEMINI_CLI_HOME, OPENCODE_DB, Cursor's
// dirs) only when the store is not the one the harness would use, shows it in `--dry-run --json`
// and `ls --json`, and every launch path (shell line, exec fallback, --print) applies it.

import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { cacheDir, makeCtx } from '../lib/util/paths.js';
import { quoteFish, quotePosix } from '../lib/util/quote.js';
import { byId, envFor, jsonl, lsJson, must, needs, run, tempHome, write } from './helpers.js';
import { records, standIn, uuid } from './launch-helpers.js';
import { addSessions, assistant, opencodeDb, user } from './sqlite-fixtures.js';

function claudeAt(home: string, root: string, id: string, cwd: string): string {
  const line = (type: string, extra: object) => ({
    parentUuid: null,
    cwd,
    sessionId: id,
    type,
    uuid: `${id}-${type}`,
    timestamp: '2026-04-01T10:00:00.000Z',
    entrypoint: 'cli',
    ...extra,
  });
  return write(
    home,
    path.join(root, 'projects', '-w', `${id}.jsonl`),
    jsonl(
      line('user', { message: { role: 'user', content: `prompt of ${id}` } }),
      line('assistant', { message: { role: 'assistant', content: [{ type: 'text', text: 'ok' }] } }),
    ),
  );
}

function dry(
  home: string,
  id: string,
  env: Record<string, string> = {},
): { cwd: string | null; argv: string[]; env: Record<string, string> } {
  const r = run(home, ['--dry-run', '--json', id], env);
  expect(r.stderr).toBe('');
  expect(r.code).toBe(0);
  return JSON.parse(r.stdout);
}

describe('Claude Code: CLAUDE_CONFIG_DIR', () => {
  it('a session under RESUME_CLAUDE_DIRS or ~/.config/claude gets CLAUDE_CONFIG_DIR; one in ~/.claude gets nothing', () => {
    const home = tempHome();
    const cwd = path.join(home, 'w');
    fs.mkdirSync(cwd);
    const [a, b, c] = [uuid(1), uuid(2), uuid(3)];
    claudeAt(home, '.claude', a, cwd);
    claudeAt(home, '.config/claude', b, cwd);
    claudeAt(home, 'acct2', c, cwd);
    const env = { RESUME_CLAUDE_DIRS: path.join(home, 'acct2') };
    expect(dry(home, a, env)).toMatchObject({ argv: ['claude', '--resume', a], env: {} });
    expect(dry(home, b, env)).toMatchObject({ env: { CLAUDE_CONFIG_DIR: path.join(home, '.config/claude') } });
    expect(dry(home, c, env)).toMatchObject({ env: { CLAUDE_CONFIG_DIR: path.join(home, 'acct2') } });
    const list = lsJson(home, env);
    expect(byId(list, a).resume).toEqual({ cwd, argv: ['claude', '--resume', a] });
    expect(byId(list, c).resume).toEqual({ cwd, argv: ['claude', '--resume', c], env: { CLAUDE_CONFIG_DIR: path.join(home, 'acct2') } });
    // the human --dry-run names it too
    expect(run(home, ['--dry-run', c], env).stdout).toContain(`env   CLAUDE_CONFIG_DIR=${path.join(home, 'acct2')}`);
  });

  it('with CLAUDE_CONFIG_DIR set, that store is the default and ~/.claude needs the variable', () => {
    const home = tempHome();
    const cwd = path.join(home, 'w');
    fs.mkdirSync(cwd);
    const [a, b] = [uuid(4), uuid(5)];
    claudeAt(home, 'moved', a, cwd);
    claudeAt(home, '.config/claude', b, cwd);
    const env = { CLAUDE_CONFIG_DIR: path.join(home, 'moved') };
    expect(dry(home, a, env).env).toEqual({});
    expect(dry(home, b, env).env).toEqual({ CLAUDE_CONFIG_DIR: path.join(home, '.config/claude') });
  });
});

describe('the other harnesses', () => {
  it('Codex: CODEX_HOME for a rollout under RESUME_CODEX_DIRS (also archived), none under the default', () => {
    const home = tempHome();
    const cwd = path.join(home, 'w');
    fs.mkdirSync(cwd);
    const roll = (root: string, id: string, sub = 'sessions/2026/04/01') =>
      write(
        home,
        `${root}/${sub}/rollout-2026-04-01T10-00-00-${id}.jsonl`,
        jsonl(
          {
            timestamp: '2026-04-01T10:00:00.000Z',
            type: 'session_meta',
            payload: { id, timestamp: '2026-04-01T10:00:00.000Z', cwd, source: 'cli' },
          },
          { timestamp: '2026-04-01T10:00:01.000Z', type: 'event_msg', payload: { type: 'user_message', message: 'hi' } },
        ),
      );
    const [a, b, c] = [uuid(11), uuid(12), uuid(13)];
    roll('.codex', a);
    roll('acct2/codex', b);
    roll('acct2/codex', c, 'archived_sessions');
    const env = { RESUME_CODEX_DIRS: path.join(home, 'acct2/codex') };
    expect(dry(home, a, env).env).toEqual({});
    expect(dry(home, b, env)).toMatchObject({ argv: ['codex', 'resume', b], env: { CODEX_HOME: path.join(home, 'acct2/codex') } });
    expect(must(byId(lsJson(home, env), c).resume).env).toEqual({ CODEX_HOME: path.join(home, 'acct2/codex') });
  });

  it('Gemini: GEMINI_CLI_HOME for a .gemini elsewhere; a root not named .gemini cannot be pointed at (refused)', () => {
    const home = tempHome();
    const cwd = path.join(home, 'w');
    fs.mkdirSync(cwd);
    const chat = (root: string, id: string) => {
      write(home, `${root}/tmp/proj/.project_root`, cwd);
      write(
        home,
        `${root}/tmp/proj/chats/session-2026-04-01T10-00-${id.slice(0, 8)}.jsonl`,
        jsonl(
          { sessionId: id, projectHash: 'x', startTime: '2026-04-01T10:00:00.000Z', lastUpdated: '2026-04-01T10:00:00.000Z', kind: 'main' },
          { id: 'm1', timestamp: '2026-04-01T10:00:00.000Z', type: 'user', content: [{ text: `gemini ${id}` }] },
        ),
      );
    };
    const [a, b, c] = [uuid(21), uuid(22), uuid(23)];
    chat('.gemini', a);
    chat('other/.gemini', b);
    chat('backup/gem', c);
    const env = { RESUME_GEMINI_DIRS: `${path.join(home, 'other/.gemini')}:${path.join(home, 'backup/gem')}` };
    expect(dry(home, a, env).env).toEqual({});
    expect(dry(home, b, env)).toMatchObject({ argv: ['gemini', '--resume', b], env: { GEMINI_CLI_HOME: path.join(home, 'other') } });
    const r = run(home, ['--dry-run', c], env);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/only from <home>\/\.gemini/);
  });

  it('opencode: OPENCODE_DB for a database outside the default data directory', () => {
    const home = tempHome();
    const cwd = path.join(home, 'w');
    fs.mkdirSync(cwd);
    const mk = (file: string, id: string) => {
      const db = opencodeDb(path.join(home, file));
      addSessions(db, [{ id, directory: cwd, title: 'oc session' }], [user(`msg_${id}1`, id, 'hello'), assistant(`msg_${id}2`, id, 'hi')]);
      db.close();
    };
    mk('.local/share/opencode/opencode.db', 'ses_aaaa');
    mk('.local/share/opencode/opencode-dev.db', 'ses_bbbb');
    mk('elsewhere/oc.db', 'ses_cccc');
    const env = { RESUME_OPENCODE_DIRS: path.join(home, 'elsewhere') };
    // RESUME_OPENCODE_DIRS names data directories: put the db where discovery finds it
    fs.renameSync(path.join(home, 'elsewhere/oc.db'), path.join(home, 'elsewhere/opencode.db'));
    fs.rmSync(path.join(home, 'elsewhere/oc.db-wal'), { force: true });
    fs.rmSync(path.join(home, 'elsewhere/oc.db-shm'), { force: true });
    expect(dry(home, 'ses_aaaa', env).env).toEqual({});
    expect(dry(home, 'ses_bbbb', env).env).toEqual({ OPENCODE_DB: path.join(home, '.local/share/opencode/opencode-dev.db') });
    expect(dry(home, 'ses_cccc', env)).toMatchObject({
      argv: ['opencode', '--session', 'ses_cccc'],
      env: { OPENCODE_DB: path.join(home, 'elsewhere/opencode.db') },
    });
    // OPENCODE_DB set by the user: that database is the default
    expect(dry(home, 'ses_bbbb', { ...env, OPENCODE_DB: 'opencode-dev.db' }).env).toEqual({});
  });

  it('Cursor: CURSOR_DATA_DIR moves the transcripts (listed from there), and the launch points at it', () => {
    const home = tempHome();
    const cwd = path.join(home, 'w');
    fs.mkdirSync(cwd);
    const slug = cwd.replace(/^\//, '').replace(/[/._ ]/g, '-');
    const id = '0b0c0d0e-0000-4000-8000-000000000001';
    write(
      home,
      `data2/projects/${slug}/agent-transcripts/${id}/${id}.jsonl`,
      jsonl(
        { role: 'user', message: { content: [{ type: 'text', text: '<user_query>\ncursor in a moved data dir\n</user_query>' }] } },
        { role: 'assistant', message: { content: [{ type: 'text', text: 'ok' }] } },
      ),
    );
    // not listed without the variable
    expect(lsJson(home).filter((s) => s.harness === 'cursor')).toEqual([]);
    const moved = { CURSOR_DATA_DIR: path.join(home, 'data2') };
    const s = byId(lsJson(home, moved), id);
    expect(s).toMatchObject({ harness: 'cursor', firstPrompt: 'cursor in a moved data dir', cwd });
    // the harness reads the same variable from the user's environment: nothing to add
    expect(must(s.resume).env).toBeUndefined();
    // found through RESUME_CURSOR_DIRS instead: the launch sets it
    const extra = { RESUME_CURSOR_DIRS: path.join(home, 'data2') };
    expect(must(byId(lsJson(home, extra), id).resume).env).toEqual({ CURSOR_DATA_DIR: path.join(home, 'data2') });
  });
});

describe('every launch path applies the store variable', { timeout: 120_000 }, () => {
  function setup() {
    const home = tempHome();
    const si = standIn(home);
    const cwd = path.join(home, 'my dir');
    fs.mkdirSync(cwd);
    const id = uuid(40);
    claudeAt(home, 'acct 2', id, cwd);
    const env = { PATH: si.PATH, RESUME_CLAUDE_DIRS: path.join(home, 'acct 2') };
    return { home, si, cwd, id, env, store: path.join(home, 'acct 2') };
  }

  it('exec fallback: the harness runs with the variable', () => {
    const { home, si, cwd, id, env, store } = setup();
    const r = run(home, [id], env);
    expect(r.code).toBe(0);
    expect(records(si.log).map((x) => ({ cwd: x.cwd, argv: x.argv, env: x.env }))).toEqual([
      { cwd, argv: ['--resume', id], env: { CLAUDE_CONFIG_DIR: store } },
    ]);
  });

  for (const shell of ['zsh', 'bash', 'fish'] as const) {
    it.skipIf(needs(shell))(
      `${shell}: the shell integration's line and --print carry the variable to the harness`,
      { timeout: 120_000 },
      () => {
        const { home, si, cwd, id, env, store } = setup();
        // the line the integration evaluates (RESUME_EMIT_FILE), and the --print line
        const emitFile = path.join(home, 'emit');
        const r1 = run(home, [id], { ...env, RESUME_EMIT_FILE: emitFile, RESUME_SHELL: shell });
        expect(r1.code).toBe(0);
        const line = fs.readFileSync(emitFile, 'utf8');
        const printed = run(home, ['--print', '--shell', shell, id], env).stdout;
        expect(printed).toBe(line);
        expect(line).toContain('CLAUDE_CONFIG_DIR=');
        const file = path.join(home, `script.${shell}`);
        fs.writeFileSync(
          file,
          shell === 'fish' ? `eval (string collect < ${quoteFish(emitFile)})\n` : `(eval "$(<${quotePosix(emitFile)})")\n`,
        );
        const argv =
          shell === 'zsh'
            ? ['zsh', '-f', file]
            : shell === 'bash'
              ? ['bash', '--norc', '--noprofile', file]
              : ['fish', '--no-config', file];
        const sh = spawnSync(argv[0], argv.slice(1), { env: envFor(home, env), cwd: home, encoding: 'utf8' });
        expect(sh.stderr).toBe('');
        expect(sh.status).toBe(0);
        expect(records(si.log).map((x) => ({ cwd: x.cwd, argv: x.argv, env: x.env }))).toEqual([
          { cwd, argv: ['--resume', id], env: { CLAUDE_CONFIG_DIR: store } },
        ]);
      },
    );
  }
});

describe('an empty or relative HOME', () => {
  it("is the account's home: never the directory resume runs in (its stores and cache)", () => {
    // a session under the working directory, where a HOME of '' or 'x' would point every root
    const cwd = tempHome();
    const id = uuid(77);
    claudeAt(cwd, '.claude', id, '/w');
    fs.mkdirSync(path.join(cwd, 'x'));
    for (const HOME of ['', 'x']) {
      const r = run(cwd, ['ls', '--json', '-a'], { HOME, RESUME_CACHE_DIR: path.join(cwd, 'cache') }, { cwd });
      expect(r.code, r.stderr).toBeLessThan(2);
      const listed = r.code === 0 ? (JSON.parse(r.stdout) as { id: string }[]) : [];
      expect(listed.map((s) => s.id)).not.toContain(id);
    }
    for (const HOME of ['', 'x', undefined]) {
      const ctx = makeCtx(HOME === undefined ? {} : { HOME });
      expect(path.isAbsolute(ctx.home)).toBe(true);
      expect(path.isAbsolute(cacheDir(ctx))).toBe(true);
    }
    expect(makeCtx({ HOME: '/some/where' }).home).toBe('/some/where');
    fs.rmSync(cwd, { recursive: true, force: true });
  });
});
