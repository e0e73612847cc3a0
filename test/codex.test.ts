// Codex CLI adapter (issue 3): the fixtures in a temp HOME through the built CLI, plus synthetic
// rollouts for what the fixtures lack (archived duplicates, .zst, forks with copied history, exec,
// every root variable, incremental appends, broken lines).

import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { codex } from '../lib/harness/codex/index.js';
import type { Session } from '../lib/types.js';
import { byId, indexStderr, jsonl, lsJson, must, put, run, tempHome, write } from './helpers.js';
import type { Doctor, Found, Listed } from './json.js';

const ID1 = '11111111-1111-4111-8111-111111111111';
const ID2 = '22222222-2222-4222-8222-222222222222';
const ID3 = '33333333-3333-4333-8333-333333333333';
const ID5 = '55555555-5555-4555-8555-555555555555';
const MODERN = '019fc8be-3658-7ca3-9e29-000000000000';
const NAMED = '019b2ea4-0000-7000-8000-000000000001';

function uuid(n: number): string {
  const h = n.toString(16).padStart(12, '0');
  return `019c0000-0000-7000-8000-${h}`;
}

function meta(id: string, ts: string, extra: Record<string, unknown> = {}) {
  return {
    timestamp: ts,
    type: 'session_meta',
    payload: { id, timestamp: ts, cwd: '/work/proj', originator: 'codex_cli_rs', cli_version: '0.146.0', source: 'cli', ...extra },
  };
}
const user = (message: string, ts: string, extra: Record<string, unknown> = {}) => ({
  timestamp: ts,
  type: 'event_msg',
  payload: { type: 'user_message', message, images: [], local_images: [], text_elements: [] },
  ...extra,
});
const reply = (message: string, ts: string) => ({ timestamp: ts, type: 'event_msg', payload: { type: 'agent_message', message } });
const turn = (model: string, ts: string) => ({
  timestamp: ts,
  type: 'turn_context',
  payload: { cwd: '/work/proj', model, approval_policy: 'never' },
});

function rollout(id: string, day = '2026/02/01', stamp = '2026-02-01T10-00-00'): string {
  return `.codex/sessions/${day}/rollout-${stamp}-${id}.jsonl`;
}

/** A zstd frame of raw (stored) blocks: a valid .zst file without needing a zstd encoder. */
function zstdFrame(data: Buffer): Buffer {
  const parts: Buffer[] = [Buffer.from([0x28, 0xb5, 0x2f, 0xfd])];
  // frame header descriptor: Frame_Content_Size 4 bytes, single segment, no checksum, no dictionary
  const fcs = Buffer.alloc(4);
  fcs.writeUInt32LE(data.length);
  parts.push(Buffer.from([0xa0]), fcs);
  const MAX = 128 * 1024;
  let off = 0;
  do {
    const n = Math.min(MAX, data.length - off);
    const last = off + n >= data.length ? 1 : 0;
    const h = (n << 3) | last; // block type 0 = raw
    parts.push(Buffer.from([h & 0xff, (h >> 8) & 0xff, (h >> 16) & 0xff]), data.subarray(off, off + n));
    off += n;
  } while (off < data.length);
  return Buffer.concat(parts);
}

function fixtureHome(): string {
  const home = tempHome();
  put(home, 'codex/sessions', '.codex/sessions');
  put(home, 'codex/archived_sessions', '.codex/archived_sessions');
  put(home, 'codex/rollout-modern-0.146-excerpt.jsonl', `.codex/sessions/2026/08/03/rollout-2026-08-03T10-48-56-${MODERN}.jsonl`);
  put(home, 'codex/session_index.CONSTRUCTED.jsonl', '.codex/session_index.jsonl');
  return home;
}

describe('codex fixtures', () => {
  it('lists every rollout with the fields from session_meta, turn_context and user_message events', () => {
    const home = fixtureHome();
    const list = lsJson(home).filter((s) => s.harness === 'codex');
    expect(list.map((s) => s.id).sort()).toEqual([ID1, ID2, ID3, ID5, MODERN].sort());

    const s1 = byId(list, ID1);
    expect(s1).toMatchObject({
      cwd: '/workspace/synthetic-project',
      prompts: 1,
      firstPrompt: 'List the synthetic files.',
      lastPrompt: 'List the synthetic files.',
      title: 'List the synthetic files.',
      model: 'synthetic-model',
      branch: null,
      hidden: false,
      hiddenReason: null,
      started: '2026-01-02T03:04:05.000Z',
      updated: '2026-01-02T03:04:16.000Z',
      parent: null,
      forkedFrom: null,
      resume: { cwd: '/workspace/synthetic-project', argv: ['codex', 'resume', ID1] },
    });
    expect(s1.file).toBe(path.join(home, '.codex/sessions/2026/01/02', `rollout-2026-01-02T03-04-05-${ID1}.jsonl`));

    // the response_item copy of the prompt is not a second prompt; the model is the last turn_context's
    expect(byId(list, MODERN)).toMatchObject({
      cwd: '/tmp/repo',
      prompts: 1,
      firstPrompt: 'List the files',
      model: 'gpt-5.6-luna',
      hidden: false,
    });

    // spawned child: hidden, linked to its parent; its copied parent prompt is not its own
    expect(byId(list, ID3)).toMatchObject({
      hidden: true,
      hiddenReason: 'subagent',
      parent: ID2,
      forkedFrom: null,
      prompts: 1,
      firstPrompt: 'Inspect fixtures.',
      started: '2026-01-03T04:05:10.000Z',
      updated: '2026-01-03T04:05:12.000Z',
    });
    expect(byId(list, ID2)).toMatchObject({ hidden: false, prompts: 1, firstPrompt: 'Spawn a synthetic researcher.' });
    expect(byId(list, ID5)).toMatchObject({ hidden: true, hiddenReason: 'archived', prompts: 1, cwd: '/workspace/synthetic-project' });
  });

  it('hides archived and subagent threads without --all and counts them on stderr', () => {
    const home = fixtureHome();
    const r = run(home, ['ls', '--json']);
    expect(r.code).toBe(0);
    const ids = (JSON.parse(r.stdout) as Listed[]).map((s) => s.id);
    expect(ids).toContain(ID1);
    expect(ids).not.toContain(ID3);
    expect(ids).not.toContain(ID5);
    const plain = run(home, ['ls']);
    expect(plain.stdout).not.toContain('33333333');
    expect(plain.stderr).toMatch(/\+2 hidden: .*1 archived/);
  });

  it('takes the thread name from session_index.jsonl, the last entry for an id winning', () => {
    const home = fixtureHome();
    write(home, rollout(NAMED), jsonl(meta(NAMED, '2026-01-02T03:00:00.000Z'), user('fix the auth test', '2026-01-02T03:00:01.000Z')));
    const s = byId(lsJson(home), NAMED);
    expect(s.title).toBe('Fix flaky auth test (renamed)');
    expect(s.firstPrompt).toBe('fix the auth test');
  });

  it("tolerates every record kind (record-shapes): only the first session_meta is the rollout's own", () => {
    const home = tempHome();
    const id = uuid(90);
    const file = put(home, 'codex/record-shapes.jsonl', rollout(id));
    fs.utimesSync(file, 1_780_000_000, 1_780_000_000);
    const r = run(home, ['ls', '--json', '-a']);
    expect(r.code).toBe(0);
    const list = JSON.parse(r.stdout);
    expect(list).toHaveLength(1);
    // its first line is a turn_context: the id comes from the file name, the placeholder texts are no directory
    expect(list[0]).toMatchObject({ id, cwd: null, prompts: 1, parent: null, forkedFrom: null, hidden: false });
    // no readable time stamp anywhere: the file's mtime is the last activity
    expect(list[0].updated).toBe(new Date(1_780_000_000_000).toISOString());
  });

  it('the adapter refuses nothing: resume and fork argv', () => {
    const s = { id: ID1 } as Session;
    expect(codex.launch(s, { fork: false })).toEqual({ argv: ['codex', 'resume', ID1] });
    expect(codex.launch(s, { fork: true })).toEqual({ argv: ['codex', 'fork', ID1] });
  });
});

describe('codex synthetic rollouts', () => {
  it('skips multi-megabyte tool output without assembling it, and keeps what follows', () => {
    const home = tempHome();
    const a = uuid(40);
    const big = 'o'.repeat(5 << 20);
    write(
      home,
      rollout(a),
      jsonl(
        meta(a, '2026-02-01T10:00:00.000Z'),
        user('make the build green', '2026-02-01T10:00:01.000Z'),
        {
          timestamp: '2026-02-01T10:00:02.000Z',
          type: 'response_item',
          payload: { type: 'function_call_output', call_id: 'c1', output: big },
        },
        { timestamp: '2026-02-01T10:00:03.000Z', type: 'event_msg', payload: { type: 'exec_command_end', stdout: big } },
        reply('it is green now', '2026-02-01T10:00:04.000Z'),
        user('thanks', '2026-02-01T10:00:05.000Z'),
      ),
    );
    const s = byId(lsJson(home), a);
    expect(s).toMatchObject({ prompts: 2, firstPrompt: 'make the build green', lastPrompt: 'thanks', updated: '2026-02-01T10:00:05.000Z' });
    const doctor: Doctor = JSON.parse(run(home, ['doctor', '--json']).stdout);
    expect(must(doctor.harnesses.find((h) => h.name === 'codex')).skipped.hugeLines).toBe(2);
  });

  it('hides exec runs and internal review subagents; reads git branch, thread_name_updated and replies', () => {
    const home = tempHome();
    const [a, b, c] = [uuid(1), uuid(2), uuid(3)];
    write(
      home,
      rollout(a),
      jsonl(
        meta(a, '2026-02-01T10:00:00.000Z', { git: { branch: 'feat/x', commit_hash: 'abc' } }),
        turn('gpt-5', '2026-02-01T10:00:01.000Z'),
        user('first', '2026-02-01T10:00:02.000Z'),
        reply('done with first', '2026-02-01T10:00:03.000Z'),
        { timestamp: '2026-02-01T10:00:04.000Z', type: 'event_msg', payload: { type: 'thread_name_updated', thread_name: 'Named thread' } },
        turn('gpt-5.5', '2026-02-01T10:00:05.000Z'),
        user('second', '2026-02-01T10:00:06.000Z'),
      ),
    );
    write(home, rollout(b), jsonl(meta(b, '2026-02-01T11:00:00.000Z', { source: 'exec' }), user('run tests', '2026-02-01T11:00:01.000Z')));
    write(
      home,
      rollout(c),
      jsonl(meta(c, '2026-02-01T12:00:00.000Z', { source: { subagent: 'review' } }), user('review this', '2026-02-01T12:00:01.000Z')),
    );
    const list = lsJson(home);
    expect(byId(list, a)).toMatchObject({
      branch: 'feat/x',
      title: 'Named thread',
      prompts: 2,
      firstPrompt: 'first',
      lastPrompt: 'second',
      model: 'gpt-5.5',
      hidden: false,
    });
    expect(byId(list, b)).toMatchObject({ hidden: true, hiddenReason: 'exec' });
    expect(byId(list, c)).toMatchObject({ hidden: true, hiddenReason: 'subagent', parent: null });
    const shown = lsJson(home, {}, []).map((s) => s.id);
    expect(shown).toEqual([a]);
  });

  it('a fork whose copied history has fresh time stamps counts only its own prompts', () => {
    const home = tempHome();
    const [p, f] = [uuid(10), uuid(11)];
    write(
      home,
      rollout(p),
      jsonl(
        meta(p, '2026-02-01T10:00:00.000Z'),
        user('parent one', '2026-02-01T10:00:01.000Z'),
        user('parent two', '2026-02-01T10:00:02.000Z'),
      ),
    );
    // codex writes the copies at fork time: same texts, new time stamps, the parent's session_meta first
    write(
      home,
      rollout(f, '2026/02/02', '2026-02-02T09-00-00'),
      jsonl(
        meta(f, '2026-02-02T09:00:00.000Z', { forked_from_id: p }),
        meta(p, '2026-02-02T09:00:00.000Z'),
        user('parent one', '2026-02-02T09:00:00.000Z'),
        user('parent two', '2026-02-02T09:00:00.000Z'),
        user('fork own prompt', '2026-02-02T09:01:00.000Z'),
      ),
    );
    const list = lsJson(home);
    expect(byId(list, f)).toMatchObject({
      forkedFrom: p,
      parent: null,
      hidden: false,
      prompts: 1,
      firstPrompt: 'fork own prompt',
      lastPrompt: 'fork own prompt',
      title: 'fork own prompt',
      cwd: '/work/proj',
      started: '2026-02-02T09:00:00.000Z',
      resume: { argv: ['codex', 'resume', f] },
    });
    expect(byId(list, p)).toMatchObject({ prompts: 2, firstPrompt: 'parent one' });
  });

  it('honours subagent_history_start_ordinal: lines before it are inherited', () => {
    const home = tempHome();
    const [p, c] = [uuid(20), uuid(21)];
    const lines = [
      {
        ordinal: 0,
        ...meta(c, '2026-02-03T09:00:00.000Z', {
          parent_thread_id: p,
          subagent_history_start_ordinal: 3,
          source: { subagent: { thread_spawn: { parent_thread_id: p, depth: 1 } } },
        }),
      },
      { ordinal: 1, ...meta(p, '2026-02-03T09:00:00.000Z') },
      { ordinal: 2, ...user('inherited prompt', '2026-02-03T09:00:00.000Z') },
      { ordinal: 3, ...user('child task', '2026-02-03T09:00:01.000Z') },
    ];
    write(home, rollout(c), jsonl(...lines));
    expect(byId(lsJson(home), c)).toMatchObject({
      parent: p,
      hidden: true,
      hiddenReason: 'subagent',
      prompts: 1,
      firstPrompt: 'child task',
    });
  });

  it('lists a rollout in both sessions/ and archived_sessions/ once, from sessions/', () => {
    const home = tempHome();
    const id = uuid(30);
    const name = `rollout-2026-02-01T10-00-00-${id}.jsonl`;
    write(
      home,
      `.codex/sessions/2026/02/01/${name}`,
      jsonl(meta(id, '2026-02-01T10:00:00.000Z'), user('live copy', '2026-02-01T10:00:01.000Z')),
    );
    write(
      home,
      `.codex/archived_sessions/${name}`,
      jsonl(meta(id, '2026-02-01T10:00:00.000Z'), user('archived copy', '2026-02-01T10:00:01.000Z')),
    );
    const only = uuid(31);
    write(
      home,
      `.codex/archived_sessions/rollout-2026-01-01T10-00-00-${only}.jsonl`,
      jsonl(meta(only, '2026-01-01T10:00:00.000Z'), user('old', '2026-01-01T10:00:01.000Z')),
    );
    const list = lsJson(home).filter((s) => s.id === id);
    expect(list).toHaveLength(1);
    expect(list[0]).toMatchObject({ hidden: false, firstPrompt: 'live copy' });
    expect(list[0].file).toContain(`${path.sep}sessions${path.sep}`);
    expect(byId(lsJson(home), only)).toMatchObject({ hidden: true, hiddenReason: 'archived' });
  });

  it('decodes cold .jsonl.zst rollouts, multi-block and with lines across blocks; a plain .jsonl of the same name wins', () => {
    const home = tempHome();
    const [z, both, arch] = [uuid(40), uuid(41), uuid(42)];
    const big = {
      timestamp: '2026-02-01T10:00:03.000Z',
      type: 'response_item',
      payload: { type: 'function_call_output', call_id: 'c1', output: 'x'.repeat(300_000) },
    };
    const text = jsonl(
      meta(z, '2026-02-01T10:00:00.000Z', { git: { branch: 'cold' } }),
      user('compressed prompt', '2026-02-01T10:00:01.000Z'),
      big,
      user('after the big line', '2026-02-01T10:00:04.000Z'),
      turn('gpt-5-codex', '2026-02-01T10:00:05.000Z'),
    );
    const zfile = write(home, `${rollout(z)}.zst`, zstdFrame(Buffer.from(text)));
    // the hand-made frame is a real zstd frame: the reference decoder agrees when it is installed
    const ref = spawnSync('zstd', ['-dc', zfile], { encoding: 'utf8', maxBuffer: 8 << 20 });
    if (!ref.error) expect(ref.stdout).toBe(text);

    write(
      home,
      `${rollout(both)}.zst`,
      zstdFrame(Buffer.from(jsonl(meta(both, '2026-02-01T10:00:00.000Z'), user('zst copy', '2026-02-01T10:00:01.000Z')))),
    );
    write(home, rollout(both), jsonl(meta(both, '2026-02-01T10:00:00.000Z'), user('plain copy', '2026-02-01T10:00:01.000Z')));
    write(
      home,
      `.codex/archived_sessions/rollout-2026-01-05T10-00-00-${arch}.jsonl.zst`,
      zstdFrame(Buffer.from(jsonl(meta(arch, '2026-01-05T10:00:00.000Z'), user('archived cold', '2026-01-05T10:00:01.000Z')))),
    );

    const list = lsJson(home);
    expect(byId(list, z)).toMatchObject({
      prompts: 2,
      firstPrompt: 'compressed prompt',
      lastPrompt: 'after the big line',
      branch: 'cold',
      model: 'gpt-5-codex',
      updated: '2026-02-01T10:00:05.000Z',
      hidden: false,
      file: zfile,
      resume: { argv: ['codex', 'resume', z] },
    });
    const b = list.filter((s) => s.id === both);
    expect(b).toHaveLength(1);
    expect(b[0]).toMatchObject({ firstPrompt: 'plain copy' });
    expect(b[0].file.endsWith('.jsonl')).toBe(true);
    expect(byId(list, arch)).toMatchObject({ hidden: true, hiddenReason: 'archived', firstPrompt: 'archived cold' });
  });

  it('a corrupt .zst costs only itself', () => {
    const home = tempHome();
    const [bad, good] = [uuid(50), uuid(51)];
    write(home, `${rollout(bad)}.zst`, Buffer.from('this is not zstd at all\n'));
    write(home, rollout(good), jsonl(meta(good, '2026-02-01T10:00:00.000Z'), user('fine', '2026-02-01T10:00:01.000Z')));
    const r = run(home, ['ls', '--json', '-a']);
    expect(r.code).toBe(0);
    const ids = (JSON.parse(r.stdout) as Listed[]).map((s) => s.id);
    expect(ids).toEqual([good]);
    expect(indexStderr(home)).toMatch(/codex: /);
  });

  it('skips broken lines, never decodes a prompt out of tool output, and keeps a partial last line for later', () => {
    const home = tempHome();
    const id = uuid(60);
    const file = write(
      home,
      rollout(id),
      [
        JSON.stringify(meta(id, '2026-02-01T10:00:00.000Z')),
        '{"timestamp":"2026-02-01T10:00:01.000Z","type":"event_msg","payload":{"type":"user_message","message":"cut',
        'not json at all',
        '[1,2,3]',
        JSON.stringify(user('mentions "type":"function_call_output" in text', '2026-02-01T10:00:02.000Z')),
        JSON.stringify({
          timestamp: '2026-02-01T10:00:03.000Z',
          type: 'response_item',
          payload: {
            type: 'function_call_output',
            call_id: 'c',
            output: '{"type":"event_msg","payload":{"type":"user_message","message":"fake"}}',
          },
        }),
        JSON.stringify({ timestamp: '2026-02-01T10:00:04.000Z', type: 'future_record_kind', payload: {} }),
        '{"timestamp":"2026-02-01T10:00:05.000Z","type":"event_msg","payload":{"type":"user_message","message":"partial',
      ].join('\n'),
    );
    let s = byId(lsJson(home), id);
    expect(s).toMatchObject({
      prompts: 1,
      firstPrompt: 'mentions "type":"function_call_output" in text',
      updated: '2026-02-01T10:00:04.000Z',
    });
    fs.appendFileSync(file, ' now complete"}}\n');
    s = byId(lsJson(home), id);
    expect(s).toMatchObject({ prompts: 2, lastPrompt: 'partial now complete', updated: '2026-02-01T10:00:05.000Z' });
  });

  it('parses only what was appended, continuing the stored state (prompts, titles from session_index)', () => {
    const home = tempHome();
    const id = uuid(70);
    const file = write(home, rollout(id), jsonl(meta(id, '2026-02-01T10:00:00.000Z'), user('one', '2026-02-01T10:00:01.000Z')));
    const idx = write(home, '.codex/session_index.jsonl', jsonl({ id, thread_name: 'First name', updated_at: '2026-02-01T10:00:02Z' }));
    expect(indexStderr(home)).toMatch(/2 parsed, 0 appended/);
    expect(byId(lsJson(home), id)).toMatchObject({ prompts: 1, title: 'First name' });

    fs.appendFileSync(file, jsonl(user('two', '2026-02-01T10:01:00.000Z'), reply('ok', '2026-02-01T10:01:01.000Z')));
    expect(indexStderr(home)).toMatch(/0 parsed, 1 appended, 1 unchanged/);
    expect(byId(lsJson(home), id)).toMatchObject({
      prompts: 2,
      firstPrompt: 'one',
      lastPrompt: 'two',
      title: 'First name',
      updated: '2026-02-01T10:01:01.000Z',
    });

    fs.appendFileSync(idx, jsonl({ id, thread_name: 'Second name', updated_at: '2026-02-01T10:05:00Z' }));
    expect(indexStderr(home)).toMatch(/0 parsed, 1 appended, 1 unchanged/);
    expect(byId(lsJson(home), id).title).toBe('Second name');
    expect(indexStderr(home)).toMatch(/0 parsed, 0 appended, 2 unchanged/);
  });
});

describe('codex demo', () => {
  it('the bundled demo HOME holds rollouts the real Codex wrote: two prompts, a renamed fork, a hidden exec', () => {
    const home = tempHome();
    const list = lsJson(home, {}, ['-a', '--demo', '--harness', 'codex']);
    expect(list.length).toBeGreaterThanOrEqual(3);
    // recorded in /home/demo/src/…; --demo lists them in the directories it creates under its cache
    for (const s of list) expect(s.cwd).toMatch(/\/\.cache\/resume\/demo\/home\/src\//);
    const parent = must(list.find((s) => s.title === 'Fix cart total rounding'));
    expect(parent).toMatchObject({ prompts: 2, hidden: false });
    expect(list.find((s) => s.forkedFrom === parent.id)).toMatchObject({ title: 'Cart total in integer cents', prompts: 1, hidden: false });
    expect(new Set(list.filter((s) => s.hidden).map((s) => s.hiddenReason))).toEqual(new Set(['exec']));
  });
});

describe('codex roots', () => {
  const one = (home: string, dir: string, n: number, prompt: string): string => {
    const id = uuid(n);
    write(
      home,
      path.join(dir, `sessions/2026/02/01/rollout-2026-02-01T10-00-00-${id}.jsonl`),
      jsonl(meta(id, '2026-02-01T10:00:00.000Z'), user(prompt, '2026-02-01T10:00:01.000Z')),
    );
    return id;
  };

  it('CODEX_HOME replaces ~/.codex', () => {
    const home = tempHome();
    const dflt = one(home, '.codex', 80, 'default home');
    const moved = one(home, 'elsewhere/codex', 81, 'moved home');
    expect(lsJson(home).map((s) => s.id)).toEqual([dflt]);
    expect(lsJson(home, { CODEX_HOME: path.join(home, 'elsewhere/codex') }).map((s) => s.id)).toEqual([moved]);
    // ~ in the variable is the home directory
    expect(lsJson(home, { CODEX_HOME: '~/elsewhere/codex' }).map((s) => s.id)).toEqual([moved]);
  });

  it('a CODEX_HOME that does not exist is a missing root, never a silent fall back to ~/.codex', () => {
    const home = tempHome();
    one(home, '.codex', 82, 'default home');
    const r = run(home, ['ls', '--json', '-a'], { CODEX_HOME: path.join(home, 'nope') });
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual([]);
    const roots = codex.roots({ env: { CODEX_HOME: path.join(home, 'nope') }, home });
    expect(roots).toEqual([{ path: path.join(home, 'nope'), via: 'CODEX_HOME', exists: false }]);
  });

  it('RESUME_CODEX_DIRS adds roots (colon-separated) before the default', () => {
    const home = tempHome();
    const dflt = one(home, '.codex', 83, 'default home');
    const x = one(home, 'acct2', 84, 'second account');
    const y = one(home, 'synced/codex', 85, 'synced');
    const ids = lsJson(home, { RESUME_CODEX_DIRS: `${path.join(home, 'acct2')}:${path.join(home, 'synced/codex')}` }).map((s) => s.id);
    expect(ids.sort()).toEqual([dflt, x, y].sort());
    const roots = codex.roots({ env: { RESUME_CODEX_DIRS: `${path.join(home, 'acct2')}` }, home });
    expect(roots.map((r) => [r.via, r.exists])).toEqual([
      ['RESUME_CODEX_DIRS', true],
      ['default', true],
    ]);
  });
});

// Codex 0.171 writes no event_msg user_message: the typed prompt is a response_item user message
// (after injected context messages) and an item_completed UserMessage event; every line has an ordinal.
const ritem = (role: string, text: string, ts: string, ordinal: number) => ({
  timestamp: ts,
  ordinal,
  type: 'response_item',
  payload: { type: 'message', role, content: [{ type: role === 'assistant' ? 'output_text' : 'input_text', text }] },
});
const completed = (text: string, ts: string, ordinal: number) => ({
  timestamp: ts,
  ordinal,
  type: 'event_msg',
  payload: {
    type: 'item_completed',
    thread_id: 'x',
    turn_id: 't',
    item: { type: 'UserMessage', id: `u${ordinal}`, content: [{ type: 'text', text, text_elements: [] }] },
  },
});

describe('codex 0.171 shapes', () => {
  it('reads the prompt from response_item and item_completed, once per turn, never an injected block', () => {
    const home = tempHome();
    const id = uuid(171);
    write(
      home,
      rollout(id),
      jsonl(
        { ordinal: 0, ...meta(id, '2026-02-01T10:00:00.000Z', { cli_version: '0.171.0' }) },
        {
          timestamp: '2026-02-01T10:00:00.100Z',
          ordinal: 1,
          type: 'response_item',
          payload: {
            type: 'message',
            role: 'developer',
            content: [{ type: 'input_text', text: '<permissions instructions>x</permissions instructions>' }],
          },
        },
        ritem(
          'user',
          '# AGENTS.md instructions for /work/proj\n\n<INSTRUCTIONS>\nbe brief\n</INSTRUCTIONS>',
          '2026-02-01T10:00:00.200Z',
          2,
        ),
        ritem('user', '<environment_context>\n  <cwd>/work/proj</cwd>\n</environment_context>', '2026-02-01T10:00:00.300Z', 3),
        { ordinal: 4, ...turn('gpt-test', '2026-02-01T10:00:01.000Z') },
        ritem('user', 'first typed prompt', '2026-02-01T10:00:01.100Z', 5),
        completed('first typed prompt', '2026-02-01T10:00:01.200Z', 6),
        ritem('assistant', 'first answer', '2026-02-01T10:00:02.000Z', 7),
        // the same words typed again are a new turn
        ritem('user', 'first typed prompt', '2026-02-01T10:00:03.000Z', 8),
        completed('first typed prompt', '2026-02-01T10:00:03.100Z', 9),
        completed('second typed prompt', '2026-02-01T10:00:04.000Z', 10),
        ritem('user', 'second typed prompt', '2026-02-01T10:00:04.100Z', 11),
        ritem('assistant', 'last answer', '2026-02-01T10:00:05.000Z', 12),
      ),
    );
    const s = byId(lsJson(home, {}, []), id);
    expect(s).toMatchObject({
      prompts: 3,
      firstPrompt: 'first typed prompt',
      lastPrompt: 'second typed prompt',
      title: 'first typed prompt',
      hidden: false,
      hiddenReason: null,
      model: 'gpt-test',
      updated: '2026-02-01T10:00:05.000Z',
    });
    expect(run(home, ['preview', `codex:${id}`]).stdout).toContain('last answer');
  });

  it('an old rollout (user_message + response_item copy) counts each turn once', () => {
    const home = tempHome();
    const id = uuid(146);
    write(
      home,
      rollout(id),
      jsonl(
        meta(id, '2026-02-01T10:00:00.000Z'),
        ritem('user', '<user_instructions>\nrules\n</user_instructions>', '2026-02-01T10:00:00.100Z', 1),
        ritem('user', 'hello there', '2026-02-01T10:00:01.000Z', 2),
        user('hello there', '2026-02-01T10:00:01.000Z'),
        user('bye', '2026-02-01T10:00:02.000Z'),
        ritem('user', 'bye', '2026-02-01T10:00:02.000Z', 4),
      ),
    );
    expect(byId(lsJson(home), id)).toMatchObject({ prompts: 2, firstPrompt: 'hello there', lastPrompt: 'bye' });
  });

  it('deep search finds a 0.171 prompt once, and not the injected context', () => {
    const home = tempHome();
    const id = uuid(172);
    write(
      home,
      rollout(id),
      jsonl(
        { ordinal: 0, ...meta(id, '2026-02-01T10:00:00.000Z', { cli_version: '0.171.0' }) },
        ritem('user', '<environment_context>\n  <cwd>/work/zebrafish</cwd>\n</environment_context>', '2026-02-01T10:00:00.300Z', 1),
        ritem('user', 'rename the walrus module', '2026-02-01T10:00:01.100Z', 2),
        completed('rename the walrus module', '2026-02-01T10:00:01.200Z', 3),
      ),
    );
    const r = run(home, ['search', '--json', 'walrus']);
    expect(r.code).toBe(0);
    const hits: Found[] = JSON.parse(r.stdout);
    expect(hits.map((h) => h.id)).toEqual([id]);
    expect(hits[0].evidence.filter((e) => e.role === 'user')).toHaveLength(1);
    expect(run(home, ['search', '--json', 'zebrafish']).code).toBe(1);
  });
});
