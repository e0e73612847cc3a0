// The offset index and the listing commands (issue 2), through the built CLI on temp HOMEs.

import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { openDatabase } from '../lib/os/sqlite.js';
import { BIN, envFor, indexStderr, jsonl, lsJson, must, put, run, tempHome, write } from './helpers.js';
import type { Listed } from './json.js';
import { LS_JSON_FIELDS as FIELDS } from './json.js';

const CLAUDE_ID = '0a1b2c3d-4e5f-4061-8071-2a3b4c5d6e7f';
const PI_ID = '019e19b4-eb48-746a-aa6b-8dfcfa37954b';

function claudeHome(): { home: string; file: string } {
  const home = tempHome();
  put(home, 'claude/projects/-tmp', '.claude/projects/-tmp');
  return { home, file: path.join(home, '.claude/projects/-tmp', `${CLAUDE_ID}.jsonl`) };
}

function piHome(home = tempHome()): { home: string; file: string } {
  put(home, 'pi/sessions', '.pi/agent/sessions');
  const dir = path.join(home, '.pi/agent/sessions/--tmp-as-agent-fixture-project--');
  return { home, file: path.join(dir, fs.readdirSync(dir)[0]) };
}

function claudeUser(text: string, ts: string, extra: Record<string, unknown> = {}) {
  return {
    parentUuid: null,
    isSidechain: false,
    userType: 'external',
    cwd: '/tmp',
    sessionId: CLAUDE_ID,
    version: '2.1.207',
    gitBranch: 'main',
    type: 'user',
    message: { role: 'user', content: text },
    uuid: `u-${ts}`,
    timestamp: ts,
    entrypoint: 'cli',
    ...extra,
  };
}

const indexCounts = indexStderr;

/** Every path, size and mtime under a directory: to prove nothing was written there. */
function snapshot(dir: string): string[] {
  const out: string[] = [];
  const walk = (d: string) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, e.name);
      const st = fs.lstatSync(p);
      out.push(`${p} ${st.size} ${st.mtimeMs} ${st.mode}`);
      if (e.isDirectory()) walk(p);
    }
  };
  walk(dir);
  return out.sort();
}

describe('ls --json', () => {
  it('has exactly the DESIGN.md fields with the right types, newest first', () => {
    const { home } = claudeHome();
    piHome(home);
    const list = lsJson(home);
    expect(list.map((s) => s.harness)).toEqual(['pi', 'claude']);
    for (const s of list) {
      expect(Object.keys(s).sort()).toEqual([...FIELDS].sort());
      expect(typeof s.id).toBe('string');
      expect(s.short.length).toBeGreaterThanOrEqual(8);
      expect(s.id.startsWith(s.short)).toBe(true);
      expect(typeof s.prompts).toBe('number');
      expect(typeof s.hidden).toBe('boolean');
      expect(typeof s.live).toBe('boolean');
      expect(s.updated).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
      expect(s.started).toMatch(/Z$/);
      expect(Array.isArray(must(s.resume).argv)).toBe(true);
      expect(must(s.resume).cwd).toBe(s.cwd);
    }
    const c = list.find((s) => s.harness === 'claude');
    expect(c).toMatchObject({
      id: CLAUDE_ID,
      cwd: '/tmp',
      branch: 'main',
      prompts: 1,
      title: 'Delegate a repo search to a subagent',
      hidden: false,
      hiddenReason: null,
      parent: null,
      forkedFrom: null,
      resume: { cwd: '/tmp', argv: ['claude', '--resume', CLAUDE_ID] },
    });
    const p = must(list.find((s) => s.harness === 'pi'));
    expect(p).toMatchObject({
      id: PI_ID,
      cwd: '/tmp/as-agent-fixture/project',
      prompts: 2,
      model: 'pi-fixture-model',
      firstPrompt: 'Read hello.py and summarize what it prints without editing files.',
      lastPrompt: 'Add one concise follow-up sentence.',
      started: '2026-05-12T01:02:27.657Z',
      updated: '2026-05-12T01:02:45.843Z',
    });
    expect(must(p.resume).argv).toEqual(['pi', '--session', p.file]);
  });

  it('does not list Claude subagent transcripts as sessions', () => {
    const { home } = claudeHome();
    const list = lsJson(home);
    expect(list).toHaveLength(1);
    expect(list[0].file.includes('subagents')).toBe(false);
  });
});

describe('incremental index', () => {
  it('reuses unchanged files without reading them, parses only appended lines', () => {
    const { home, file } = claudeHome();
    expect(indexCounts(home)).toMatch(/1 parsed, 0 appended, 0 unchanged/);
    expect(indexCounts(home)).toMatch(/0 parsed, 0 appended, 1 unchanged/);
    const before = fs.statSync(file).size;
    fs.appendFileSync(
      file,
      jsonl(
        claudeUser('second question about the webhook', '2025-12-17T00:00:00.000Z'),
        claudeUser('third question', '2025-12-17T00:01:00.000Z'),
        { type: 'custom-title', customTitle: 'Webhook retries', sessionId: CLAUDE_ID },
        claudeUser('fourth', '2025-12-17T00:02:00.000Z'),
      ),
    );
    const err = indexCounts(home);
    expect(err).toMatch(/0 parsed, 1 appended, 0 unchanged/);
    const mib = Number(must(/([\d.]+) MiB read/.exec(err))[1]);
    expect(mib * 1048576).toBeLessThan(fs.statSync(file).size - before + 1024 * 1024 * 0.01);
    const [s] = lsJson(home);
    expect(s).toMatchObject({ prompts: 4, title: 'Webhook retries', lastPrompt: 'fourth', updated: '2025-12-17T00:02:00.000Z' });
    expect(s.firstPrompt).toBe('Delegate a repo search to a subagent');
  });

  it('leaves a partial last line for the next run', () => {
    const { home, file } = claudeHome();
    indexCounts(home);
    const line = JSON.stringify(claudeUser('half written prompt', '2025-12-18T00:00:00.000Z'));
    fs.appendFileSync(file, line.slice(0, 60));
    expect(lsJson(home)[0].prompts).toBe(1);
    fs.appendFileSync(file, `${line.slice(60)}\n`);
    expect(indexCounts(home)).toMatch(/1 appended/);
    const [s] = lsJson(home);
    expect(s.prompts).toBe(2);
    expect(s.lastPrompt).toBe('half written prompt');
  });

  it('parses a truncated file from the start', () => {
    const { home, file } = claudeHome();
    fs.appendFileSync(file, jsonl(claudeUser('extra', '2025-12-18T00:00:00.000Z')));
    expect(lsJson(home)[0].prompts).toBe(2);
    const lines = fs.readFileSync(file, 'utf8').split('\n');
    fs.writeFileSync(file, `${lines.slice(0, 2).join('\n')}\n`);
    expect(indexCounts(home)).toMatch(/1 parsed, 0 appended/);
    expect(lsJson(home)[0]).toMatchObject({ prompts: 1, lastPrompt: 'Delegate a repo search to a subagent' });
  });

  it('notices a rewrite that kept or grew the size (bytes before the offset changed)', () => {
    const { home, file } = claudeHome();
    indexCounts(home);
    const text = fs.readFileSync(file, 'utf8').replace('Delegate a repo search to a subagent', 'Delegate a repo SEARCH to a subagent');
    fs.writeFileSync(file, text + jsonl(claudeUser('more', '2025-12-19T00:00:00.000Z')));
    expect(indexCounts(home)).toMatch(/1 parsed, 0 appended/);
    expect(lsJson(home)[0].firstPrompt).toBe('Delegate a repo SEARCH to a subagent');
  });

  it('updates one source on an append and keeps every other session as it was', () => {
    const home = tempHome();
    const ids = Array.from({ length: 40 }, (_, i) => `4444${String(i).padStart(4, '0')}-0000-4000-8000-000000000000`);
    for (const [i, id] of ids.entries())
      write(
        home,
        `.claude/projects/-s${i}/${id}.jsonl`,
        jsonl({ ...claudeUser(`prompt ${i}`, `2026-02-01T00:${String(i).padStart(2, '0')}:00.000Z`), cwd: `/s${i}`, sessionId: id }),
      );
    const before = lsJson(home);
    const target = path.join(home, `.claude/projects/-s3/${ids[3]}.jsonl`);
    fs.appendFileSync(target, jsonl({ ...claudeUser('newest words', '2026-03-01T00:00:00.000Z'), cwd: '/s3', sessionId: ids[3] }));
    expect(indexCounts(home)).toMatch(/0 parsed, 1 appended, 39 unchanged/);
    const after = lsJson(home);
    expect(after[0]).toMatchObject({ id: ids[3], lastPrompt: 'newest words', prompts: 2 });
    expect(after.slice(1)).toEqual(before.filter((s) => s.id !== ids[3]));
    // the same result as a rebuild
    run(home, ['index', '--rebuild']);
    expect(lsJson(home)).toEqual(after);
  });

  it('drops deleted files', () => {
    const { home, file } = claudeHome();
    piHome(home);
    expect(lsJson(home)).toHaveLength(2);
    fs.unlinkSync(file);
    expect(indexCounts(home)).toMatch(/1 dropped/);
    expect(lsJson(home).map((s) => s.harness)).toEqual(['pi']);
  });

  it('rebuilds a corrupt, truncated or old-version cache silently', () => {
    const { home } = claudeHome();
    const want = lsJson(home);
    const cache = path.join(home, '.cache', 'resume');
    const db = path.join(cache, 'index.db');
    const whole = fs.readFileSync(db);
    // garbage, an empty file, one cut short, one with zeroed pages; check.bin and rows.bin damaged beside it
    const cases: Array<[string, Buffer]> = [
      ['garbage', Buffer.from('{not json')],
      ['empty', Buffer.alloc(0)],
      ['truncated', whole.subarray(0, Math.floor(whole.length / 2))],
      ['zeroed pages', Buffer.concat([whole.subarray(0, 100), Buffer.alloc(whole.length - 100)])],
    ];
    for (const [, bad] of cases) {
      for (const f of ['index.db-wal', 'index.db-shm']) fs.rmSync(path.join(cache, f), { force: true });
      fs.writeFileSync(db, bad);
      fs.writeFileSync(path.join(cache, 'check.bin'), bad);
      fs.writeFileSync(path.join(cache, 'rows.bin'), bad);
      const r = run(home, ['ls', '--json', '-a']);
      expect(r.code).toBe(0);
      expect(r.stderr).toBe('');
      expect(JSON.parse(r.stdout)).toEqual(want);
    }
    // a database of another version: made anew
    const h = openDatabase(db);
    h.pragma('user_version = 1');
    h.exec("UPDATE sessions SET doc = '{}'");
    h.close();
    fs.rmSync(path.join(cache, 'check.bin'));
    const r = run(home, ['ls', '--json', '-a']);
    expect([r.code, r.stderr]).toEqual([0, '']);
    expect(JSON.parse(r.stdout)).toEqual(want);
  });

  it('writes the cache atomically with mode 0600 and honours XDG_CACHE_HOME', () => {
    const { home } = claudeHome();
    const xdg = path.join(home, 'xdg-cache');
    run(home, ['ls'], { RESUME_CACHE_DIR: undefined, XDG_CACHE_HOME: xdg });
    const names = fs.readdirSync(path.join(xdg, 'resume'));
    expect(names).toEqual(expect.arrayContaining(['index.db', 'check.bin', 'rows.bin']));
    for (const f of names.filter((n) => !fs.statSync(path.join(xdg, 'resume', n)).isDirectory() && n !== 'index.db-shm')) {
      const st = fs.statSync(path.join(xdg, 'resume', f));
      expect([f, st.mode & 0o777]).toEqual([f, 0o600]);
    }
    expect(fs.statSync(path.join(xdg, 'resume')).mode & 0o777).toBe(0o700);
    expect(names.filter((f) => f.includes('.tmp-'))).toEqual([]);
  });

  it('gives the same result parsing in parallel worker threads', () => {
    const home = tempHome();
    for (let i = 0; i < 12; i++) {
      const id = `1111111${i.toString(16)}-0000-4000-8000-00000000000${i % 10}`;
      write(
        home,
        `.claude/projects/-p${i}/${id}.jsonl`,
        jsonl(
          { ...claudeUser(`prompt ${i}`, `2026-01-0${1 + (i % 9)}T00:00:0${i % 10}.000Z`), cwd: `/p${i}`, sessionId: id },
          {
            type: 'assistant',
            timestamp: `2026-01-0${1 + (i % 9)}T00:00:1${i % 10}.000Z`,
            message: { model: 'm', content: [{ type: 'text', text: `reply ${i}` }] },
          },
        ),
      );
    }
    const seq = lsJson(home, { RESUME_THREADS: '1' });
    const home2 = tempHome();
    fs.cpSync(path.join(home, '.claude'), path.join(home2, '.claude'), { recursive: true });
    const par = lsJson(home2, { RESUME_THREADS: '2', RESUME_PARALLEL_MIN_BYTES: '0' });
    const strip = (l: Listed[]) => l.map((s) => ({ ...s, file: path.relative(s.harness, s.file).replace(/.*\.claude/, ''), resume: null }));
    expect(strip(par)).toEqual(strip(seq));
    expect(par).toHaveLength(12);
    // the same through the rows/preview bundle (run by the code-cache loader), on a cold cache
    const home3 = tempHome();
    fs.cpSync(path.join(home, '.claude'), path.join(home3, '.claude'), { recursive: true });
    const r = run(home3, ['preview', `claude:${seq[0].id}`], { RESUME_THREADS: '2', RESUME_PARALLEL_MIN_BYTES: '0' });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain(seq[0].firstPrompt);
  });
});

describe('bad input', () => {
  it('lists every good session whatever else is in the roots', () => {
    const { home } = claudeHome();
    piHome(home);
    const proj = path.join(home, '.claude/projects/-bad');
    fs.mkdirSync(proj, { recursive: true });
    // not JSON, not objects, invalid UTF-8, a partial last line
    const id1 = '22222222-0000-4000-8000-000000000001';
    fs.writeFileSync(
      path.join(proj, `${id1}.jsonl`),
      Buffer.concat([
        Buffer.from('not json at all\n[1,2,3]\n"a string"\nnull\n'),
        Buffer.from([0xff, 0xfe, 0x80, 0x0a]),
        Buffer.from(jsonl({ ...claudeUser('survives the junk', '2026-02-01T00:00:00.000Z'), cwd: '/bad', sessionId: id1 })),
        Buffer.from('{"type":"user","message":{"role":"us'),
      ]),
    );
    // empty file
    fs.writeFileSync(path.join(proj, '22222222-0000-4000-8000-000000000002.jsonl'), '');
    // FIFO named like a session: never opened (opening would block this test)
    execFileSync('mkfifo', [path.join(proj, '22222222-0000-4000-8000-000000000003.jsonl')]);
    // a dangling symlink and a symlink loop
    fs.symlinkSync(path.join(proj, 'nowhere.jsonl'), path.join(proj, '22222222-0000-4000-8000-000000000004.jsonl'));
    fs.symlinkSync(path.join(home, '.claude/projects'), path.join(home, '.claude/projects/loop'));
    // a directory named like a session
    fs.mkdirSync(path.join(proj, '22222222-0000-4000-8000-000000000005.jsonl'));
    const r = run(home, ['ls', '--json', '-a']);
    expect(r.code).toBe(0);
    const list: Listed[] = JSON.parse(r.stdout);
    const ids = list.map((s) => s.id);
    expect(ids).toContain(CLAUDE_ID);
    expect(ids).toContain(PI_ID);
    expect(ids).toContain(id1);
    const bad = list.find((s) => s.id === id1);
    expect(bad).toMatchObject({ prompts: 1, firstPrompt: 'survives the junk', cwd: '/bad' });
    const idx = run(home, ['index', '--rebuild']);
    expect(idx.stderr).toMatch(/skipped: 1 not regular files, 1 unreadable/);
  });

  it('keeps memory bounded on a single line of tens of megabytes', () => {
    const { home, file } = claudeHome();
    const big = 'x'.repeat(40 << 20);
    fs.appendFileSync(file, `{"type":"user","message":{"role":"user","content":"${big}`);
    fs.appendFileSync(
      file,
      `"},"timestamp":"2025-12-20T00:00:00.000Z"}\n${jsonl(claudeUser('after the huge line', '2025-12-21T00:00:00.000Z'))}`,
    );
    const r = spawnSync(process.execPath, ['--max-old-space-size=160', BIN, 'ls', '--json'], { env: envFor(home), encoding: 'utf8' });
    expect(r.status).toBe(0);
    const [s] = JSON.parse(r.stdout);
    expect(s.lastPrompt).toBe('after the huge line');
    // a 40 MiB line without any newline (a harness writing it): memory bounded, nothing lost
    fs.appendFileSync(file, `{"type":"user","message":{"role":"user","content":"${big}`);
    const r2 = spawnSync(process.execPath, ['--max-old-space-size=160', BIN, 'ls', '--json'], { env: envFor(home), encoding: 'utf8' });
    expect(r2.status).toBe(0);
    expect(JSON.parse(r2.stdout)[0].lastPrompt).toBe('after the huge line');
  });

  it('never lets control characters from a transcript reach the terminal', () => {
    const home = tempHome();
    const id = '33333333-0000-4000-8000-000000000001';
    const evil = 'Fix \x1b[31mred\x1b[0m\ttab\nnewline\r\x07bell \x1b]0;title\x07 \u202eRTL \x9b31m';
    write(
      home,
      `.claude/projects/-evil/${id}.jsonl`,
      jsonl(
        { ...claudeUser(evil, '2026-03-01T00:00:00.000Z'), cwd: '/evil', sessionId: id, gitBranch: 'feat/\x1b[2Jx' },
        { type: 'custom-title', customTitle: 'T\x1b[1mitle\nsplit', sessionId: id },
      ),
    );
    for (const args of [['rows'], ['ls'], ['ls', '--json'], ['show', id]]) {
      const r = run(home, args);
      expect(r.code).toBe(0);
      expect(r.stdout).not.toMatch(/[\x00-\x08\x0b-\x1f\x7f\x9b]/);
      expect(r.stdout).not.toContain('\\u001b');
    }
    const rows = run(home, ['rows']).stdout.split('\n').filter(Boolean);
    expect(rows).toHaveLength(1);
    expect(rows[0].split('\t')).toHaveLength(7);
  });

  it('writes nothing under any harness root', () => {
    const { home } = claudeHome();
    piHome(home);
    const before = [...snapshot(path.join(home, '.claude')), ...snapshot(path.join(home, '.pi'))];
    run(home, ['index', '--rebuild']);
    run(home, ['ls', '-a']);
    run(home, ['rows']);
    run(home, ['show', CLAUDE_ID]);
    const after = [...snapshot(path.join(home, '.claude')), ...snapshot(path.join(home, '.pi'))];
    expect(after).toEqual(before);
  });
});

describe('listing commands', () => {
  function mixedHome(): string {
    const home = tempHome();
    type Made = { rel: string; id: string; cwd: string; prompts: string[]; ts: string; extra?: Record<string, unknown> };
    const mk = ({ rel, id, cwd, prompts, ts, extra = {} }: Made) =>
      write(
        home,
        rel,
        jsonl(...prompts.map((p, i) => ({ ...claudeUser(p, ts.replace(/\d\d\.000Z$/, `${10 + i}.000Z`)), cwd, sessionId: id, ...extra }))),
      );
    mk({
      rel: `.claude/projects/-a/aaaaaaaa-0000-4000-8000-000000000001.jsonl`,
      id: 'aaaaaaaa-0000-4000-8000-000000000001',
      cwd: '/src/alpha',
      prompts: ['one', 'two'],
      ts: '2026-04-01T00:00:00.000Z',
    });
    mk({
      rel: `.claude/projects/-b/bbbbbbbb-0000-4000-8000-000000000002.jsonl`,
      id: 'bbbbbbbb-0000-4000-8000-000000000002',
      cwd: '/src/beta',
      prompts: ['sdk run'],
      ts: '2026-04-02T00:00:00.000Z',
      extra: { entrypoint: 'sdk-cli' },
    });
    const piHeader = (id: string, cwd: string, ts: string) => ({ type: 'session', version: 3, id, timestamp: ts, cwd });
    const piMsg = (text: string, ts: string) => ({
      type: 'message',
      id: 'x',
      parentId: null,
      timestamp: ts,
      message: { role: 'user', content: text },
    });
    write(
      home,
      '.pi/agent/sessions/--src-alpha--/2026-04-03T00-00-00-000Z_p1.jsonl',
      jsonl(
        piHeader('p1', '/src/alpha/sub', '2026-04-03T00:00:00.000Z'),
        piMsg('first', '2026-04-03T00:00:01.000Z'),
        piMsg('second', '2026-04-03T00:00:02.000Z'),
      ),
    );
    write(
      home,
      '.pi/agent/sessions/--src-alpha--/2026-04-04T00-00-00-000Z_p2.jsonl',
      jsonl(piHeader('p2', '/src/alpha', '2026-04-04T00:00:00.000Z'), piMsg('probe', '2026-04-04T00:00:00.300Z')),
    );
    write(
      home,
      '.pi/agent/sessions/--src-alpha--/subagents/2026-04-05T00-00-00-000Z_p3.jsonl',
      jsonl(
        piHeader('p3', '/src/alpha', '2026-04-05T00:00:00.000Z'),
        piMsg('worker task', '2026-04-05T00:00:01.000Z'),
        piMsg('more', '2026-04-05T00:00:02.000Z'),
      ),
    );
    write(
      home,
      '.pi/agent/sessions/--src-gamma--/2026-04-06T00-00-00-000Z_p4.jsonl',
      jsonl(piHeader('p4', '/src/gamma', '2026-04-06T00:00:00.000Z'), piMsg('named one', '2026-04-06T00:00:01.000Z'), {
        type: 'session_info',
        id: 'y',
        parentId: 'x',
        timestamp: '2026-04-06T00:00:02.000Z',
        name: 'Gamma work',
      }),
    );
    return home;
  }

  it('hides subagents, print-mode and SDK sessions, counting them on stderr only', () => {
    const home = mixedHome();
    const r = run(home, ['ls', '--json']);
    const shown = (JSON.parse(r.stdout) as Listed[]).map((s) => s.id);
    expect(shown).toEqual(['p4', 'p1', 'aaaaaaaa-0000-4000-8000-000000000001']);
    const all = lsJson(home);
    const reasons = Object.fromEntries(all.map((s) => [s.id, s.hiddenReason]));
    expect(reasons).toMatchObject({ p3: 'subagent', p2: 'headless', 'bbbbbbbb-0000-4000-8000-000000000002': 'sdk', p4: null });
    const plain = run(home, ['ls']);
    expect(plain.stderr).toBe('+3 hidden: 1 workers, 1 print-mode, 1 SDK; --all shows them\n');
    expect(plain.stdout).not.toContain('hidden');
    expect(must(all.find((s) => s.id === 'p4')).title).toBe('Gamma work');
  });

  it('filters by -n, --harness and --dir', () => {
    const home = mixedHome();
    const ids = (args: string[], cwd?: string) =>
      (JSON.parse(run(home, ['ls', '--json', ...args], {}, { cwd }).stdout) as Listed[]).map((s) => s.id);
    expect(ids(['-n', '1'])).toEqual(['p4']);
    expect(ids(['--harness', 'claude', '-a'])).toEqual(['bbbbbbbb-0000-4000-8000-000000000002', 'aaaaaaaa-0000-4000-8000-000000000001']);
    expect(ids(['--harness', 'pi,claude'])).toEqual(['p4', 'p1', 'aaaaaaaa-0000-4000-8000-000000000001']);
    expect(ids(['--dir', '/src/alpha'])).toEqual(['p1', 'aaaaaaaa-0000-4000-8000-000000000001']);
    expect(ids(['--dir', '/src/alp'])).toEqual([]);
    fs.mkdirSync(path.join(home, 'x'), { recursive: true });
    expect(ids(['--dir', '.'], '/')).toEqual(['p4', 'p1', 'aaaaaaaa-0000-4000-8000-000000000001']);
    expect(ids(['--dir', '.'], path.join(home, 'x'))).toEqual([]);
    const bad = run(home, ['ls', '--harness', 'vim']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/^resume: unknown harness 'vim'/);
    expect(bad.stderr.split('\n')).toHaveLength(2);
  });

  it('prints plain tab-separated columns when piped', () => {
    const home = mixedHome();
    const lines = run(home, ['ls']).stdout.trim().split('\n');
    expect(lines).toHaveLength(3);
    expect(lines[0].split('\t')).toEqual(['p4', '2026-04-06T00:00:02.000Z', 'pi', '/src/gamma', '', '1', 'Gamma work']);
  });

  it('streams rows with a hidden key field and ends quietly on a closed pipe', () => {
    const home = mixedHome();
    const rows = run(home, ['rows']).stdout.trim().split('\n');
    expect(rows[0].split('\t')).toEqual([
      'pi:p4',
      'p4',
      expect.stringMatching(/^\d+(s|m|h|d|w|mo|y)$/),
      'pi',
      '/src/gamma',
      '',
      'Gamma work',
    ]);
    for (let i = 0; i < 3000; i++) {
      const id = `c${i.toString().padStart(7, '0')}-0000-4000-8000-000000000000`;
      write(
        home,
        `.claude/projects/-many/${id}.jsonl`,
        jsonl({ ...claudeUser(`prompt number ${i} `.repeat(8), '2026-01-01T00:00:00.000Z'), sessionId: id }),
      );
    }
    const r = spawnSync('sh', ['-c', `"${process.execPath}" "${BIN}" rows | head -n 1`], { env: envFor(home), encoding: 'utf8' });
    expect(r.status).toBe(0);
    expect(r.stderr).toBe('');
    expect(r.stdout.split('\n').filter(Boolean)).toHaveLength(1);
    const r2 = spawnSync('bash', ['-c', `set -o pipefail; "${process.execPath}" "${BIN}" ls --json -a | head -c 10 >/dev/null`], {
      env: envFor(home),
      encoding: 'utf8',
    });
    expect(r2.status).toBe(0);
    expect(r2.stderr).toBe('');
  });

  it('shows one session by id or prefix', () => {
    const home = mixedHome();
    const r = run(home, ['show', 'aaaaaaaa-0000']);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^title: +one$/m);
    expect(r.stdout).toMatch(/^directory: +\/src\/alpha$/m);
    expect(r.stdout).toMatch(/^resume: +cd \/src\/alpha && claude --resume aaaaaaaa-0000-4000-8000-000000000001$/m);
    const j = JSON.parse(run(home, ['show', '--json', 'p4']).stdout);
    expect(Object.keys(j).sort()).toEqual([...FIELDS].sort());
    expect(run(home, ['show', 'zzzzzzzz']).code).toBe(1);
  });
});

describe('roots', () => {
  it('follows CLAUDE_CONFIG_DIR, RESUME_CLAUDE_DIRS and the XDG config dir', () => {
    const home = tempHome();
    put(home, 'claude/projects/-tmp', 'elsewhere/projects/-tmp');
    expect(lsJson(home)).toHaveLength(0);
    expect(lsJson(home, { CLAUDE_CONFIG_DIR: path.join(home, 'elsewhere') })).toHaveLength(1);
    expect(lsJson(home, { RESUME_CLAUDE_DIRS: `/nonexistent:${path.join(home, 'elsewhere')}` })).toHaveLength(1);
    const h2 = tempHome();
    put(h2, 'claude/projects/-tmp', '.config/claude/projects/-tmp');
    expect(lsJson(h2)).toHaveLength(1);
    const h3 = tempHome();
    put(h3, 'claude/projects/-tmp', 'xdg/claude/projects/-tmp');
    expect(lsJson(h3, { XDG_CONFIG_HOME: path.join(h3, 'xdg') })).toHaveLength(1);
  });

  it('follows PI_CODING_AGENT_DIR, PI_CODING_AGENT_SESSION_DIR, sessionDir and RESUME_PI_DIRS', () => {
    const home = tempHome();
    put(home, 'pi/sessions', 'agent2/sessions');
    expect(lsJson(home)).toHaveLength(0);
    expect(lsJson(home, { PI_CODING_AGENT_DIR: path.join(home, 'agent2') })).toHaveLength(1);
    // a custom session dir is flat
    const flat = tempHome();
    put(flat, 'pi/sessions/--tmp-as-agent-fixture-project--', 'flat');
    expect(lsJson(flat, { PI_CODING_AGENT_SESSION_DIR: path.join(flat, 'flat') })).toHaveLength(1);
    expect(lsJson(flat, { RESUME_PI_DIRS: path.join(flat, 'flat') })).toHaveLength(1);
    write(flat, '.pi/agent/settings.json', JSON.stringify({ sessionDir: path.join(flat, 'flat') }));
    expect(lsJson(flat)).toHaveLength(1);
    write(flat, '.pi/agent/settings.json', JSON.stringify({ sessionDir: '~/flat' }));
    expect(lsJson(flat)).toHaveLength(1);
  });
});

describe('real samples of every record shape', () => {
  it('reads Claude Code record types, compaction after rewind, and pi v1/v3 files', () => {
    const home = tempHome();
    put(home, 'claude/record-types.jsonl', '.claude/projects/-x/11111111-aaaa-4aaa-8aaa-111111111111.jsonl');
    put(home, 'claude/compact-after-rewind.jsonl', '.claude/projects/-x/22222222-aaaa-4aaa-8aaa-222222222222.jsonl');
    put(home, 'pi/v1-legacy-excerpt-large-session.jsonl', '.pi/agent/sessions/--x--/2025-11-20T23-33-50-805Z_d703a1a9.jsonl');
    put(home, 'pi/docs-examples-v3.jsonl', '.pi/agent/sessions/--x--/2024-12-03T14-00-00-000Z_uuid.jsonl');
    const by = Object.fromEntries(lsJson(home).map((s) => [s.id, s]));
    // the mosaic: custom title wins over the AI title and the summary; its user lines' cwd is not
    // a path ('[trimmed for fixture]'), so the first absolute cwd of another line is used
    expect(by['11111111-aaaa-4aaa-8aaa-111111111111']).toMatchObject({
      title: 'Stage0 small fixture',
      cwd: '/tmp',
      model: 'claude-sonnet-5',
    });
    // compaction: the summary line is not a prompt; prompts after it count
    expect(by['22222222-aaaa-4aaa-8aaa-222222222222']).toMatchObject({
      cwd: '/tmp',
      firstPrompt: 'Start',
      lastPrompt: 'After compaction',
      title: 'Start',
    });
    // pi v1: header model, no ids; v3 docs example: session_info name, parent link
    expect(by['d703a1a9-1b7b-4fb1-b512-c9738b1fe617']).toMatchObject({
      cwd: '/Users/badlogic/workspaces/pi-mono',
      prompts: 2,
      model: 'claude-sonnet-4-5',
    });
    expect(by.uuid).toMatchObject({ title: 'Refactor auth module', firstPrompt: 'Hello', model: 'gpt-4o', forkedFrom: 'session' });
    const doctor = run(home, ['doctor', '--json']);
    expect(doctor.code).toBe(0);
  });
});

describe('streaming a cold index', () => {
  it("hands over each parsed file's sessions, newest files first, and returns the sorted list", async () => {
    const { updateIndex } = await import('../lib/index/index.js');
    const home = tempHome();
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) {
      const id = `5555555${i}-0000-4000-8000-000000000000`;
      ids.push(id);
      const f = write(
        home,
        `.claude/projects/-s${i}/${id}.jsonl`,
        jsonl({ ...claudeUser(`p${i}`, `2026-01-0${i + 1}T00:00:00.000Z`), cwd: `/s${i}`, sessionId: id }),
      );
      fs.utimesSync(f, 1_700_000_000 + i * 100, 1_700_000_000 + i * 100);
    }
    const seen: string[] = [];
    const ctx = { env: envFor(home), home };
    const r = await updateIndex(ctx, { onSessions: (ss) => seen.push(...ss.map((s) => s.key)) });
    expect(seen).toEqual([...ids].reverse().map((id) => `claude:${id}`));
    expect(r.sessions.map((s) => s.id)).toEqual([...ids].reverse());
    // a warm index hands nothing over
    const again: string[] = [];
    await updateIndex(ctx, { onSessions: (ss) => again.push(...ss.map((s) => s.key)) });
    expect(again).toEqual([]);
  });
});

describe('haveListing', () => {
  it('says whether a listing of this index version is stored, from its first bytes', async () => {
    const { haveListing, indexFiles } = await import('../lib/index/index.js');
    const { home } = claudeHome();
    const ctx = { env: envFor(home), home };
    expect(haveListing(ctx)).toBe(false);
    lsJson(home);
    expect(haveListing(ctx)).toBe(true);
    fs.writeFileSync(indexFiles(ctx).check, 'v0 x 0 2\n[]');
    expect(haveListing(ctx)).toBe(false);
  });
});
