// A change to Codex sources updates the index without a pass over every source. Codex's finish pass
// (thread names from session_index.jsonl, forks and spawned threads measured against their parents)
// runs over what the change concerns (Finish.some). Every step is compared with a listing
// built from nothing.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { jsonl, must, run, tempDir, tempHome, write } from './helpers.js';

const uuid = (n: number) => `019c0000-0000-7000-8000-${n.toString(16).padStart(12, '0')}`;
const day = (n: number) => `2026-03-${String(1 + (n % 28)).padStart(2, '0')}`;
const at = (n: number, s = 0) => `${day(n)}T10:${String(Math.floor(s / 60)).padStart(2, '0')}:${String(s % 60).padStart(2, '0')}.000Z`;
const rel = (n: number) => `.codex/sessions/${day(n).replace(/-/g, '/')}/rollout-${day(n)}T10-00-00-${uuid(n)}.jsonl`;
const meta = (n: number, ts: string, extra: Record<string, unknown> = {}) => ({
  timestamp: ts,
  type: 'session_meta',
  payload: { id: uuid(n), timestamp: ts, cwd: `/work/p${n}`, originator: 'codex_cli_rs', cli_version: '0.171.0', source: 'cli', ...extra },
});
const user = (message: string, ts: string) => ({
  timestamp: ts,
  type: 'event_msg',
  payload: { type: 'user_message', message, images: [] },
});
const reply = (message: string, ts: string) => ({ timestamp: ts, type: 'event_msg', payload: { type: 'agent_message', message } });
const name = (n: number, thread_name: string, s: number) => jsonl({ id: uuid(n), thread_name, updated_at: at(n, s) });

const PARENT = 200;
const FORK = 201;
const SPAWNED = 202;

function store(): string {
  const h = tempHome();
  for (let n = 1; n <= 140; n++)
    write(h, rel(n), jsonl(meta(n, at(n)), user(`thread ${n} asks`, at(n, 1)), reply(`answer ${n}`, at(n, 2))));
  write(h, rel(PARENT), jsonl(meta(PARENT, at(PARENT)), user('parent one', at(PARENT, 1)), user('parent two', at(PARENT, 2))));
  // a fork: the parent's prompts copied (new time stamps), then its own
  write(
    h,
    rel(FORK),
    jsonl(
      meta(FORK, at(FORK), { forked_from_id: uuid(PARENT) }),
      meta(PARENT, at(FORK)),
      user('parent one', at(FORK)),
      user('parent two', at(FORK)),
      user('fork own words', at(FORK, 5)),
    ),
  );
  // a spawned thread: hidden, its history measured against the parent's too
  write(
    h,
    rel(SPAWNED),
    jsonl(
      meta(SPAWNED, at(SPAWNED), {
        parent_thread_id: uuid(PARENT),
        source: { subagent: { thread_spawn: { parent_thread_id: uuid(PARENT), depth: 1 } } },
      }),
      user('parent one', at(SPAWNED)),
      user('spawned task', at(SPAWNED, 3)),
    ),
  );
  // names: threads 1–10, the parent, and the fork with the parent's name (as Codex writes it)
  let idx = '';
  for (let n = 1; n <= 10; n++) idx += name(n, `named thread ${n}`, 30);
  idx += name(PARENT, 'the parent thread', 30) + name(FORK, 'the parent thread', 40);
  write(h, '.codex/session_index.jsonl', idx);
  return h;
}

function ok(h: string, args: string[], env: Record<string, string> = {}): string {
  const r = run(h, args, env);
  expect(r.code, r.stderr).toBe(0);
  return r.stdout;
}
const views = (h: string, env: Record<string, string> = {}) => ({
  rows: ok(h, ['rows', '-a'], env),
  align: ok(h, ['rows', '-a', '--align'], env),
  ls: JSON.parse(ok(h, ['ls', '--json', '-a'], env)),
});
/** The views of a listing built from nothing (by `index`: a cold `rows` streams, its short ids unique among the rows so far). */
function fresh(h: string, env: Record<string, string> = {}) {
  const e = { ...env, RESUME_CACHE_DIR: tempDir('resume-fresh-') };
  ok(h, ['index'], e);
  return views(h, e);
}
const expectFresh = (h: string, env: Record<string, string> = {}) => expect(views(h, env)).toEqual(fresh(h, env));
const byId = (h: string, n: number) =>
  must((JSON.parse(ok(h, ['ls', '--json', '-a'])) as Record<string, unknown>[]).find((s) => s.id === uuid(n)));
/** `index`'s summary (what it parsed, appended, kept and dropped). */
function indexed(h: string): string {
  const r = run(h, ['index']);
  expect(r.code, r.stderr).toBe(0);
  return r.stderr;
}

describe('a Codex change runs the finish pass over what it concerns (Finish.some)', () => {
  it('appends, renames, forks, new and removed threads: each listing as a build from nothing', { timeout: 120_000 }, () => {
    const h = store();
    ok(h, ['index']);
    expectFresh(h);
    expect(byId(h, FORK)).toMatchObject({ forkedFrom: uuid(PARENT), prompts: 1, firstPrompt: 'fork own words', title: 'fork own words' });
    expect(byId(h, SPAWNED)).toMatchObject({ parent: uuid(PARENT), prompts: 1, firstPrompt: 'spawned task', hidden: true });

    // a reply and a prompt appended to a plain thread: patched over the listing
    fs.appendFileSync(path.join(h, rel(5)), jsonl(reply('more of five', at(5, 9))));
    expect(indexed(h)).toMatch(/0 parsed, 1 appended/);
    fs.appendFileSync(path.join(h, rel(5)), jsonl(user('the okapi question', at(5, 10))));
    expect(indexed(h)).toMatch(/0 parsed, 1 appended/);
    expect(byId(h, 5)).toMatchObject({ prompts: 2, lastPrompt: 'the okapi question', title: 'named thread 5' });
    expectFresh(h);

    // a thread renamed: session_index.jsonl grows; the renamed thread's row is patched too
    fs.appendFileSync(path.join(h, '.codex/session_index.jsonl'), name(7, 'the tapir plan', 50));
    expect(indexed(h)).toMatch(/0 parsed, 1 appended/);
    expect(byId(h, 7)).toMatchObject({ title: 'the tapir plan' });
    expectFresh(h);

    // a reply to the parent of a fork: nothing the fork is measured by changed (patched)
    fs.appendFileSync(path.join(h, rel(PARENT)), jsonl(reply('parent reply', at(PARENT, 3))));
    expect(indexed(h)).toMatch(/0 parsed, 1 appended/);
    expectFresh(h);

    // a prompt to it, the one the fork typed: the fork's own prompts are now copies of the parent's
    // (its row changes with the parent's): the fork and the spawned thread, found in reach.json,
    // are finished again and patched too
    fs.appendFileSync(path.join(h, rel(PARENT)), jsonl(user('fork own words', at(PARENT, 4))));
    expect(indexed(h)).toMatch(/0 parsed, 1 appended/);
    expect(byId(h, FORK)).toMatchObject({ prompts: 0, firstPrompt: null });
    expectFresh(h);

    // the parent renamed: the fork, named as the parent was, is now listed by that name
    fs.appendFileSync(path.join(h, '.codex/session_index.jsonl'), name(PARENT, 'the parent renamed', 60));
    expect(indexed(h)).toMatch(/0 parsed, 1 appended/);
    expect(byId(h, PARENT)).toMatchObject({ title: 'the parent renamed' });
    expect(byId(h, FORK)).toMatchObject({ title: 'the parent thread' });
    expectFresh(h);

    // another prompt to the parent
    fs.appendFileSync(path.join(h, rel(PARENT)), jsonl(user('parent three', at(PARENT, 6))));
    expect(indexed(h)).toMatch(/0 parsed, 1 appended/);
    expectFresh(h);

    // a new thread with its auto title: patched over the listing too (its id's first 8 characters
    // its own, so no short id changes with it; the ids above all begin 019c0000)
    const own = '7e57ab1e-0000-7000-8000-000000000150';
    const ownRel = `.codex/sessions/2026/03/20/rollout-2026-03-20T10-00-00-${own}.jsonl`;
    write(
      h,
      ownRel,
      jsonl({ ...meta(150, at(150)), payload: { ...meta(150, at(150)).payload, id: own } }, user('the pangolin audit', at(150, 1))),
    );
    fs.appendFileSync(
      path.join(h, '.codex/session_index.jsonl'),
      jsonl({ id: own, thread_name: 'pangolin audit', updated_at: at(150, 20) }),
    );
    expect(indexed(h)).toMatch(/1 parsed, 1 appended/);
    const ls = JSON.parse(ok(h, ['ls', '--json', '-a'])) as Record<string, unknown>[];
    expect(ls.find((s) => s.id === own)).toMatchObject({ title: 'pangolin audit', prompts: 1 });
    expect(ok(h, ['resolve', '-a', 'pangolin'])).toBe(`codex:${own}\n`);
    expectFresh(h);
    // one whose id begins as the others': the listing is written again
    write(h, rel(150), jsonl(meta(150, at(150)), user('the second audit', at(150, 1))));
    expect(indexed(h)).toMatch(/1 parsed, 0 appended/);
    expectFresh(h);
    // a thread that goes (no fork of it, its short id no other's longer for it): patched
    fs.rmSync(path.join(h, ownRel));
    expect(indexed(h)).toMatch(/0 parsed, 0 appended, .* 1 dropped/);
    expectFresh(h);

    // a new fork of thread 9, then thread 9 removed: the fork is measured against nothing now
    write(
      h,
      rel(151),
      jsonl(meta(151, at(151), { forked_from_id: uuid(9) }), user('thread 9 asks', at(151)), user('fork of nine', at(151, 4))),
    );
    expect(indexed(h)).toMatch(/1 parsed, 0 appended/);
    expect(byId(h, 151)).toMatchObject({ forkedFrom: uuid(9), prompts: 1, firstPrompt: 'fork of nine' });
    expectFresh(h);
    fs.rmSync(path.join(h, rel(9)));
    expect(indexed(h)).toMatch(/0 parsed, 0 appended, .* 1 dropped/);
    expect(byId(h, 151)).toMatchObject({ prompts: 2, firstPrompt: 'thread 9 asks' });
    expectFresh(h);

    // the parent removed: its fork and spawned thread count every prompt as their own
    fs.rmSync(path.join(h, rel(PARENT)));
    expect(indexed(h)).toMatch(/1 dropped/);
    expect(byId(h, SPAWNED)).toMatchObject({ prompts: 2, firstPrompt: 'parent one' });
    expectFresh(h);
  });

  it('a thread named in two rollouts (copies in two CODEX_HOMEs) takes the full pass', { timeout: 60_000 }, () => {
    const h = store();
    const other = path.join(h, 'other-codex');
    // the same thread copied into a second home, with a different prompt
    write(
      h,
      `other-codex/sessions/${day(5).replace(/-/g, '/')}/rollout-${day(5)}T10-00-00-${uuid(5)}.jsonl`,
      jsonl(meta(5, at(5)), user('the copy of five', at(5, 1))),
    );
    const env = { RESUME_CODEX_DIRS: other };
    ok(h, ['index'], env);
    expectFresh(h, env);
    fs.appendFileSync(path.join(h, rel(5)), jsonl(user('five grows', at(5, 8))));
    expectFresh(h, env);
  });
});
