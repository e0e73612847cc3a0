// Gemini CLI adapter (issue 3): the fixtures in a temp HOME through the built CLI, plus synthetic
// chats for what the fixtures lack ($rewindTo, re-appended messages, duplicate files, missing
// .project_root, subagents, every root variable, incremental appends, broken lines).

import { execFileSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { gemini } from '../lib/harness/gemini/index.js';
import type { Session } from '../lib/types.js';
import { byId, indexStderr, jsonl, lsJson, must, put, run, tempHome, write } from './helpers.js';

const JSONL_ID = 'gemini_stage0_jsonl';
const LEGACY_ID = 'session-2026-01-16T18-34-3739ef95';
const SID = 'a1b2c3d4-e5f6-4890-abcd-ef1234567890';

function metaLine(id = SID, extra: Record<string, unknown> = {}) {
  return {
    sessionId: id,
    projectHash: 'f'.repeat(64),
    startTime: '2026-03-01T10:00:00.000Z',
    lastUpdated: '2026-03-01T10:00:00.000Z',
    kind: 'main',
    ...extra,
  };
}
const userMsg = (id: string, content: unknown, ts: string, extra: Record<string, unknown> = {}) => ({
  id,
  timestamp: ts,
  type: 'user',
  content,
  ...extra,
});
const modelMsg = (id: string, content: string, ts: string, extra: Record<string, unknown> = {}) => ({
  id,
  timestamp: ts,
  type: 'gemini',
  content,
  thoughts: [],
  tokens: { input: 1, output: 1, total: 2 },
  model: 'gemini-2.5-pro',
  ...extra,
});

/** A project temp dir under a Gemini home, with its .project_root unless `root` is null. */
function project(home: string, gem: string, slug: string, root: string | null): string {
  const dir = path.join(home, gem, 'tmp', slug);
  fs.mkdirSync(path.join(dir, 'chats'), { recursive: true });
  if (root != null) fs.writeFileSync(path.join(dir, '.project_root'), root);
  return dir;
}

function chat(dir: string, name: string, text: string): string {
  return write('', path.join(dir, 'chats', name), text);
}

describe('gemini fixtures', () => {
  it('lists the JSONL and the legacy JSON session with the directory from .project_root', () => {
    const home = tempHome();
    const dir = project(home, '.gemini', 'agent-sessions', '/home/me/src/agent-sessions\n');
    put(home, 'gemini/session-jsonl-v040.jsonl', path.relative(home, path.join(dir, 'chats/session-2026-04-29T21-39-gemini_s.jsonl')));
    put(home, 'gemini/legacy-session.json', path.relative(home, path.join(dir, 'chats/session-2026-01-16T18-34-3739ef95.json')));
    put(home, 'gemini/logs.CONSTRUCTED.json', path.relative(home, path.join(dir, 'logs.json')));
    const list = lsJson(home);
    expect(list.map((s) => s.id)).toEqual([JSONL_ID, LEGACY_ID]);
    expect(byId(list, JSONL_ID)).toMatchObject({
      harness: 'gemini',
      cwd: '/home/me/src/agent-sessions',
      title: 'Say hello and list files.',
      firstPrompt: 'Say hello and list files.',
      prompts: 1,
      model: 'gemini-3-flash-preview',
      branch: null,
      hidden: false,
      hiddenReason: null,
      parent: null,
      forkedFrom: null,
      started: '2026-04-29T21:39:22.319Z',
      updated: '2026-04-29T21:39:45.996Z',
      resume: { cwd: '/home/me/src/agent-sessions', argv: ['gemini', '--resume', JSONL_ID] },
    });
    expect(byId(list, LEGACY_ID)).toMatchObject({
      cwd: '/home/me/src/agent-sessions',
      prompts: 1,
      firstPrompt: 'Hello',
      model: 'gemini-3-flash-preview',
      started: '2026-01-16T18:34:00.000Z',
      updated: '2026-01-16T18:34:10.000Z',
    });
  });

  it('has no fork: the adapter refuses it with a message', () => {
    const s = { id: SID } as Session;
    expect(gemini.launch(s, { fork: false })).toEqual({ argv: ['gemini', '--resume', SID] });
    expect(typeof gemini.launch(s, { fork: true })).toBe('string');
  });
});

describe('gemini chats', () => {
  it('replays $set, $rewindTo and re-appended messages; filters prompts like Gemini does', () => {
    const home = tempHome();
    const dir = project(home, '.gemini', 'proj', '/w/proj');
    chat(
      dir,
      'session-2026-03-01T10-00-a1b2c3d4.jsonl',
      jsonl(
        metaLine(),
        userMsg('u1', [{ text: 'first real prompt' }], '2026-03-01T10:00:01.000Z'),
        modelMsg('m1', 'answer one', '2026-03-01T10:00:02.000Z'),
        userMsg('u2', '/help', '2026-03-01T10:00:03.000Z'),
        userMsg('u3', '?', '2026-03-01T10:00:04.000Z'),
        userMsg('u4', '<session_context>injected</session_context>', '2026-03-01T10:00:05.000Z'),
        userMsg('u5', 'processed @file expansion', '2026-03-01T10:00:06.000Z', { displayContent: 'what I typed' }),
        userMsg('u6', 'to be rewound', '2026-03-01T10:00:07.000Z'),
        modelMsg('m2', 'rewound answer', '2026-03-01T10:00:08.000Z'),
        { $rewindTo: 'u6' },
        // the same message re-appended with a change keeps its first position
        userMsg('u1', [{ text: 'first prompt, edited' }], '2026-03-01T10:00:01.000Z'),
        { $set: { lastUpdated: '2026-03-01T10:30:00.000Z', summary: 'Fix the flaky test' } },
      ),
    );
    const s = byId(lsJson(home), SID);
    expect(s).toMatchObject({
      cwd: '/w/proj',
      prompts: 2,
      firstPrompt: 'first prompt, edited',
      lastPrompt: 'what I typed',
      title: 'Fix the flaky test',
      model: 'gemini-2.5-pro',
      started: '2026-03-01T10:00:00.000Z',
      updated: '2026-03-01T10:30:00.000Z',
      hidden: false,
    });
  });

  it('a $set with messages replaces the whole history', () => {
    const home = tempHome();
    const dir = project(home, '.gemini', 'proj', '/w/proj');
    chat(
      dir,
      'session-2026-03-01T10-00-a1b2c3d4.jsonl',
      jsonl(
        metaLine(),
        userMsg('u1', 'one', '2026-03-01T10:00:01.000Z'),
        userMsg('u2', 'two', '2026-03-01T10:00:02.000Z'),
        { $set: { messages: [userMsg('s1', 'summary of the earlier conversation', '2026-03-01T10:00:03.000Z')] } },
        userMsg('u3', 'three', '2026-03-01T10:00:04.000Z'),
      ),
    );
    expect(byId(lsJson(home), SID)).toMatchObject({ prompts: 2, firstPrompt: 'summary of the earlier conversation', lastPrompt: 'three' });
  });

  it('lists one session id in two files once, from the file holding the conversation', () => {
    const home = tempHome();
    const dir = project(home, '.gemini', 'proj', '/w/proj');
    const legacy = { ...metaLine(), messages: [userMsg('u1', 'legacy prompt', '2026-03-01T10:00:01.000Z')] };
    chat(dir, 'session-2026-03-01T10-00-a1b2c3d4.json', JSON.stringify(legacy));
    chat(
      dir,
      'session-2026-03-01T10-00-a1b2c3d4.jsonl',
      jsonl(
        metaLine(),
        userMsg('u1', 'legacy prompt', '2026-03-01T10:00:01.000Z'),
        userMsg('u2', 'continued after resume', '2026-03-01T11:00:00.000Z'),
      ),
    );
    const other = '00000000-1111-4222-8333-444444444444';
    // a legacy file whose .jsonl holds only the metadata line: the .json has the conversation
    chat(
      dir,
      'session-2026-03-02T10-00-00000000.json',
      JSON.stringify({ ...metaLine(other), messages: [userMsg('x', 'only here', '2026-03-02T10:00:01.000Z')] }),
    );
    chat(dir, 'session-2026-03-02T10-00-00000000.jsonl', jsonl(metaLine(other)));
    const list = lsJson(home);
    const a = list.filter((s) => s.id === SID);
    expect(a).toHaveLength(1);
    expect(a[0].file.endsWith('.jsonl')).toBe(true);
    expect(a[0]).toMatchObject({ prompts: 2, lastPrompt: 'continued after resume' });
    const b = list.filter((s) => s.id === other);
    expect(b).toHaveLength(1);
    expect(b[0].file.endsWith('.json')).toBe(true);
    expect(b[0].firstPrompt).toBe('only here');
  });

  it('hides a one-shot run: one prompt that came with the start; lists a session a person typed into', () => {
    const home = tempHome();
    const dir = project(home, '.gemini', 'proj', '/w/proj');
    const ids = [
      '10000000-0000-4000-8000-000000000001',
      '20000000-0000-4000-8000-000000000002',
      '30000000-0000-4000-8000-000000000003',
      '40000000-0000-4000-8000-000000000004',
    ];
    // `gemini -p A`: the prompt 1.2 s after the header (the longest gap the real 0.61.0 showed)
    chat(
      dir,
      'session-2026-03-01T10-00-10000000.jsonl',
      jsonl(metaLine(ids[0]), userMsg('a', 'one shot', '2026-03-01T10:00:01.200Z'), modelMsg('b', 'ok', '2026-03-01T10:00:02.000Z')),
    );
    // `gemini A`, then a prompt typed: two prompts
    chat(
      dir,
      'session-2026-03-01T10-00-20000000.jsonl',
      jsonl(
        metaLine(ids[1]),
        userMsg('a', 'started with', '2026-03-01T10:00:00.500Z'),
        modelMsg('b', 'ok', '2026-03-01T10:00:01.000Z'),
        userMsg('c', 'typed', '2026-03-01T10:00:09.000Z'),
      ),
    );
    // one prompt typed into the UI seconds after it started
    chat(dir, 'session-2026-03-01T10-00-30000000.jsonl', jsonl(metaLine(ids[2]), userMsg('a', 'typed', '2026-03-01T10:00:06.000Z')));
    // a run whose messages Gemini wrote again in a `$set` (as on --resume): their own times still count
    chat(
      dir,
      'session-2026-03-01T10-00-40000000.jsonl',
      jsonl(metaLine(ids[3]), { $set: { messages: [userMsg('a', 'one shot again', '2026-03-01T10:00:00.300Z')] } }),
    );
    const list = lsJson(home);
    const reason = (id: string) => byId(list, id).hiddenReason;
    expect(ids.map(reason)).toEqual(['headless', null, null, 'headless']);
    expect(
      lsJson(home, {}, [])
        .map((s) => s.id)
        .sort(),
    ).toEqual([ids[1], ids[2]]);
  });

  it('hides subagents in chats/<parent>/ and links them to the parent', () => {
    const home = tempHome();
    const dir = project(home, '.gemini', 'proj', '/w/proj');
    // the parent was typed into (its prompt seconds after its start: a person's session, listed)
    chat(dir, 'session-2026-03-01T10-00-a1b2c3d4.jsonl', jsonl(metaLine(), userMsg('u1', 'delegate', '2026-03-01T10:00:08.000Z')));
    const child = 'c0c0c0c0-0000-4000-8000-000000000001';
    // (its summary, as Gemini writes it, is the result it handed back: it is named by its task)
    const result = { $set: { summary: '{\n  "response": "It checks the header, then the token."\n}' } };
    chat(
      dir,
      `${SID}/${child}.jsonl`,
      jsonl(metaLine(child, { kind: 'subagent' }), userMsg('t', 'subtask', '2026-03-01T10:00:09.000Z'), result),
    );
    const list = lsJson(home);
    expect(byId(list, child)).toMatchObject({ hidden: true, hiddenReason: 'subagent', parent: SID, cwd: '/w/proj', title: 'subtask' });
    expect(lsJson(home, {}, []).map((s) => s.id)).toEqual([SID]);
  });

  it('never takes the directory from the folder name: registry, sha256 dirs, else null', () => {
    const home = tempHome();
    const gem = path.join(home, '.gemini');
    // no .project_root, but the registry maps the slug
    const a = project(home, '.gemini', 'mapped-slug', null);
    chat(
      a,
      'session-2026-03-01T10-00-aaaaaaaa.jsonl',
      jsonl(metaLine('aaaaaaaa-0000-4000-8000-000000000000'), userMsg('1', 'mapped', '2026-03-01T10:00:01.000Z')),
    );
    // an older sha256(path) directory whose path is known to the registry
    const hashed = '/home/me/old project';
    const h = crypto.createHash('sha256').update(hashed).digest('hex');
    const b = project(home, '.gemini', h, null);
    chat(
      b,
      'session-2026-03-01T10-00-bbbbbbbb.jsonl',
      jsonl(metaLine('bbbbbbbb-0000-4000-8000-000000000000', { projectHash: h }), userMsg('1', 'hashed', '2026-03-01T10:00:01.000Z')),
    );
    // nothing known: a folder named like a path is still no directory
    const c = project(home, '.gemini', 'home-me-src-looks-like-a-path', null);
    chat(
      c,
      'session-2026-03-01T10-00-cccccccc.jsonl',
      jsonl(metaLine('cccccccc-0000-4000-8000-000000000000'), userMsg('1', 'unknown', '2026-03-01T10:00:01.000Z')),
    );
    fs.writeFileSync(
      path.join(gem, 'projects.json'),
      JSON.stringify({ projects: { '/home/me/src/mapped': 'mapped-slug', [hashed]: 'old-project' } }),
    );
    const list = lsJson(home);
    expect(byId(list, 'aaaaaaaa-0000-4000-8000-000000000000').cwd).toBe('/home/me/src/mapped');
    expect(byId(list, 'bbbbbbbb-0000-4000-8000-000000000000').cwd).toBe(hashed);
    const u = byId(list, 'cccccccc-0000-4000-8000-000000000000');
    expect(u.cwd).toBeNull();
    expect(must(u.resume).cwd).toBeNull();
  });

  it('a broken projects.json or a junk .project_root leaves the directory unknown, the listing intact', () => {
    const home = tempHome();
    const a = project(home, '.gemini', 'p1', 'relative/not/absolute');
    chat(a, 'session-2026-03-01T10-00-a1b2c3d4.jsonl', jsonl(metaLine(), userMsg('1', 'hi', '2026-03-01T10:00:01.000Z')));
    fs.writeFileSync(path.join(home, '.gemini', 'projects.json'), '{broken');
    // a FIFO named .project_root is never opened (it would block)
    const b = project(home, '.gemini', 'p2', null);
    execFileSync('mkfifo', [path.join(b, '.project_root')]);
    const other = 'dddddddd-0000-4000-8000-000000000000';
    chat(b, 'session-2026-03-01T10-00-dddddddd.jsonl', jsonl(metaLine(other), userMsg('1', 'fifo', '2026-03-01T10:00:01.000Z')));
    const r = run(home, ['ls', '--json', '-a']);
    expect(r.code).toBe(0);
    const list = JSON.parse(r.stdout);
    expect(byId(list, SID).cwd).toBeNull();
    expect(byId(list, other).cwd).toBeNull();
  });

  it('skips broken lines, keeps a partial last line for later, and parses only appended lines', () => {
    const home = tempHome();
    const dir = project(home, '.gemini', 'proj', '/w/proj');
    const file = chat(
      dir,
      'session-2026-03-01T10-00-a1b2c3d4.jsonl',
      [
        JSON.stringify(metaLine()),
        'not json',
        '"a string"',
        JSON.stringify(userMsg('u1', 'one', '2026-03-01T10:00:01.000Z')),
        '{"id":"u2","timestamp":"2026-03-01T10:00:02.000Z","type":"user","content":"half',
      ].join('\n'),
    );
    expect(indexStderr(home)).toMatch(/1 parsed, 0 appended/);
    expect(byId(lsJson(home), SID)).toMatchObject({ prompts: 1, lastPrompt: 'one' });

    fs.appendFileSync(file, ` written"}\n${jsonl(modelMsg('m1', 'reply', '2026-03-01T10:00:03.000Z'))}`);
    expect(indexStderr(home)).toMatch(/0 parsed, 1 appended/);
    expect(byId(lsJson(home), SID)).toMatchObject({ prompts: 2, lastPrompt: 'half written', updated: '2026-03-01T10:00:03.000Z' });

    // a rewind and a re-appended message arrive in a later append: the stored state replays them
    fs.appendFileSync(file, jsonl({ $rewindTo: 'u2' }, userMsg('u1', 'one, edited', '2026-03-01T10:00:01.000Z')));
    expect(indexStderr(home)).toMatch(/0 parsed, 1 appended/);
    expect(byId(lsJson(home), SID)).toMatchObject({ prompts: 1, firstPrompt: 'one, edited', lastPrompt: 'one, edited' });
    expect(indexStderr(home)).toMatch(/0 parsed, 0 appended, 1 unchanged/);
  });

  it('a huge reply (tool output) is skipped undecoded but still rewound by id', () => {
    const home = tempHome();
    const dir = project(home, '.gemini', 'proj', '/w/proj');
    const big = modelMsg('m1', 'x'.repeat(400_000), '2026-03-01T10:00:02.000Z');
    chat(
      dir,
      'session-2026-03-01T10-00-a1b2c3d4.jsonl',
      jsonl(metaLine(), userMsg('u1', 'one', '2026-03-01T10:00:01.000Z'), big, userMsg('u2', 'two', '2026-03-01T10:00:03.000Z'), {
        $rewindTo: 'm1',
      }),
    );
    expect(byId(lsJson(home), SID)).toMatchObject({ prompts: 1, lastPrompt: 'one' });
  });
});

describe('gemini demo', () => {
  it('the bundled demo HOME holds chats the real Gemini CLI wrote (JSONL, a subagent)', () => {
    const home = tempHome();
    const list = lsJson(home, {}, ['-a', '--demo', '--harness', 'gemini']);
    expect(list.length).toBeGreaterThanOrEqual(3);
    // recorded in /home/demo/src/…; --demo lists them in the directories it creates under its cache
    for (const s of list) expect(s.cwd).toMatch(/\/\.cache\/resume\/demo\/home\/src\//);
    const parent = must(list.find((s) => s.firstPrompt === 'Explain what the auth middleware does'));
    expect(list.some((s) => s.hiddenReason === 'subagent' && s.parent === parent.id)).toBe(true);
    expect(list.some((s) => s.title === 'Add an RSS feed to the blog' && s.prompts === 2)).toBe(true);
  });
});

describe('gemini roots', () => {
  const one = (home: string, gemDir: string, id: string, prompt: string) => {
    const dir = path.join(home, gemDir, 'tmp', 'p');
    fs.mkdirSync(path.join(dir, 'chats'), { recursive: true });
    fs.writeFileSync(path.join(dir, '.project_root'), '/w/p');
    write(
      '',
      path.join(dir, 'chats', `session-2026-03-01T10-00-${id.slice(0, 8)}.jsonl`),
      jsonl(metaLine(id), userMsg('u', prompt, '2026-03-01T10:00:01.000Z')),
    );
  };
  const A = 'aaaaaaaa-1111-4111-8111-111111111111';
  const B = 'bbbbbbbb-1111-4111-8111-111111111111';
  const C = 'cccccccc-1111-4111-8111-111111111111';

  it('GEMINI_CLI_HOME moves the root to <it>/.gemini (and ~/.gemini is not read)', () => {
    const home = tempHome();
    one(home, '.gemini', A, 'default');
    one(home, 'alt/.gemini', B, 'moved');
    expect(lsJson(home).map((s) => s.id)).toEqual([A]);
    expect(lsJson(home, { GEMINI_CLI_HOME: path.join(home, 'alt') }).map((s) => s.id)).toEqual([B]);
    const roots = gemini.roots({ env: { GEMINI_CLI_HOME: path.join(home, 'alt') }, home });
    expect(roots).toEqual([{ path: path.join(home, 'alt/.gemini'), via: 'GEMINI_CLI_HOME', exists: true }]);
  });

  it('RESUME_GEMINI_DIRS adds Gemini homes', () => {
    const home = tempHome();
    one(home, '.gemini', A, 'default');
    one(home, 'x/gem', B, 'extra one');
    one(home, 'y/gem', C, 'extra two');
    const ids = lsJson(home, { RESUME_GEMINI_DIRS: `${path.join(home, 'x/gem')}:${path.join(home, 'y/gem')}` }).map((s) => s.id);
    expect(ids.sort()).toEqual([A, B, C]);
  });
});
