// Deep search beyond the transcript of one session: Claude's prompt history, hidden stores
// (archived, SDK, workers) labelled, pi workers on their parent, and text only on an abandoned
// branch (Claude rewinds, pi trees, Gemini `$rewindTo`) labelled and ranked below live text.
// Real files in temp HOMEs, searched through the built CLI.
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { parseQuery } from '../lib/search/query.js';
import { loadExtractors } from '../lib/search/registry.js';
import { newGroup, scanGroups } from '../lib/search/search.js';
import type { Session } from '../lib/types.js';
import { jsonl, must, put, ROOT, run, tempHome, write } from './helpers.js';
import type { Found } from './json.js';

const homes: string[] = [];
afterEach(() => {
  for (const h of homes.splice(0)) fs.rmSync(h, { recursive: true, force: true });
});
function home(): string {
  const h = tempHome('resume-search-deep-');
  homes.push(h);
  return h;
}

function searchJson(h: string, args: string[], env: Record<string, string> = {}): Found[] {
  const r = run(h, ['search', '--json', ...args], env);
  expect(r.code, r.stderr).toBe(0);
  return JSON.parse(r.stdout);
}

// ---- Claude lines, chained by parentUuid as Claude Code writes them ------------------------

const CWD = '/w/proj';
// keys in the order Claude Code writes them (parentUuid first, type before message, uuid after it),
// so the branch pass reads them from the bytes; an assistant's tool input may hold a uuid of its own
function chain(
  id: string,
  turns: { role: 'user' | 'assistant'; text: string; uuid: string; parent: string | null; ts: string }[],
  extra: Record<string, unknown> = {},
) {
  return turns.map((t) => ({
    parentUuid: t.parent,
    isSidechain: false,
    userType: 'external',
    cwd: CWD,
    sessionId: id,
    version: '2.1.200',
    entrypoint: 'cli',
    type: t.role,
    message:
      t.role === 'user'
        ? { role: 'user', content: t.text }
        : {
            role: 'assistant',
            model: 'claude-x',
            content: [
              { type: 'text', text: t.text },
              { type: 'tool_use', id: 'tu', name: 'Lookup', input: { uuid: 'not-a-record' } },
            ],
          },
    uuid: t.uuid,
    timestamp: t.ts,
    ...extra,
  }));
}
const CA = 'aaaaaaaa-1111-4111-8111-111111111111';
const CB = 'bbbbbbbb-1111-4111-8111-111111111111';
const PA = '019a0000-0000-7000-8000-0000000000a1';

describe('lib/search knows no harness by name', () => {
  it('harness-specific layouts, stores and markers live in the harness folders', () => {
    const dir = path.join(ROOT, 'lib', 'search');
    for (const f of fs.readdirSync(dir).filter((n) => n.endsWith('.ts'))) {
      const src = fs.readFileSync(path.join(dir, f), 'utf8');
      expect(src, f).not.toMatch(/['"](claude|codex|pi|cursor|opencode|gemini)['"]/);
    }
  });
});

describe('Claude prompt history (history.jsonl)', () => {
  it('a prompt found only in history.jsonl is reported on its session, by sessionId or by directory and time', () => {
    const h = home();
    write(
      h,
      `.claude/projects/-w-proj/${CA}.jsonl`,
      jsonl(
        ...chain(CA, [
          { role: 'user', text: 'look at the parser', uuid: 'a1', parent: null, ts: '2026-02-01T10:00:00.000Z' },
          { role: 'assistant', text: 'Looked.', uuid: 'a2', parent: 'a1', ts: '2026-02-01T10:05:00.000Z' },
        ]),
      ),
    );
    write(
      h,
      `.claude/projects/-w-other/${CB}.jsonl`,
      jsonl(
        ...chain(CB, [
          { role: 'user', text: 'tidy the docs', uuid: 'b1', parent: null, ts: '2026-02-03T09:00:00.000Z' },
          { role: 'assistant', text: 'Tidied.', uuid: 'b2', parent: 'b1', ts: '2026-02-03T09:30:00.000Z' },
        ]).map((l) => ({ ...l, cwd: '/w/other' })),
      ),
    );
    write(
      h,
      '.claude/history.jsonl',
      jsonl(
        // pasted text never reached the transcript as typed
        {
          display: 'look at the parser [Pasted text #1]',
          pastedContents: { 1: { id: 1, type: 'text', content: 'stack trace from the marmoset build' } },
          timestamp: Date.parse('2026-02-01T10:00:00.000Z'),
          project: CWD,
          sessionId: CA,
        },
        // an older line without sessionId: the session of that directory going at that time
        {
          display: 'remember the capybara glossary',
          pastedContents: {},
          timestamp: Date.parse('2026-02-03T09:10:00.000Z'),
          project: '/w/other',
        },
        // a session the index does not know: not reported
        {
          display: 'capybara marmoset elsewhere',
          pastedContents: {},
          timestamp: Date.parse('2026-02-05T09:10:00.000Z'),
          project: '/w/gone',
          sessionId: 'cccccccc-1111-4111-8111-111111111111',
        },
      ),
    );
    const r = searchJson(h, ['marmoset']);
    expect(r.map((x) => x.id)).toEqual([CA]);
    expect(r[0].evidence[0]).toMatchObject({ role: 'user', via: 'prompt history', file: path.join(h, '.claude/history.jsonl') });
    expect(r[0].evidence[0].text).toContain('marmoset build');

    expect(searchJson(h, ['capybara']).map((x) => x.id)).toEqual([CB]);
    const human = run(h, ['search', 'capybara']);
    expect(human.stdout).toMatch(/prompt \(prompt history\): remember the «capybara» glossary/);
  });

  it('a history line of the same prompt as the transcript is one piece of evidence, not two', async () => {
    const h = home();
    write(
      h,
      `.claude/projects/-w-proj/${CA}.jsonl`,
      jsonl(
        ...chain(CA, [
          { role: 'user', text: 'rename the heron module', uuid: 'a1', parent: null, ts: '2026-02-01T10:00:00.000Z' },
          { role: 'assistant', text: 'Renamed the heron module.', uuid: 'a2', parent: 'a1', ts: '2026-02-01T10:05:00.000Z' },
        ]),
      ),
    );
    write(
      h,
      `.claude/projects/-w-proj/${CB}.jsonl`,
      jsonl(
        ...chain(CB, [{ role: 'user', text: 'what does the heron module do', uuid: 'b1', parent: null, ts: '2026-01-01T10:00:00.000Z' }]),
      ),
    );
    write(
      h,
      '.claude/history.jsonl',
      jsonl({
        display: 'rename the heron module',
        pastedContents: {},
        timestamp: Date.parse('2026-02-01T10:00:00.000Z'),
        project: CWD,
        sessionId: CA,
      }),
    );
    const all = searchJson(h, ['heron']);
    const r = must(all.find((x) => x.id === CA));
    expect(r.evidence.filter((e) => e.role === 'user')).toHaveLength(1);
    expect(r.evidence[0].via).toBeNull();
    // a thread that reads a transcript hands back its piece hashes for that (not for a pi session,
    // which no shared store adds to, unless it is a fork's source)
    await loadExtractors();
    const pi = write(
      h,
      `${PI_DIR}/2026-03-01T10-00-00-000Z_${PA}.jsonl`,
      jsonl(piHeader(PA, '2026-03-01T10:00:00.000Z'), piEntry('p1', null, '2026-03-01T10:00:01.000Z', 'user', 'the heron module again')),
    );
    const session = (harness: 'claude' | 'pi', id: string, file: string) =>
      ({
        harness,
        id,
        key: `${harness}:${id}`,
        file,
        cwd: CWD,
        title: null,
        firstPrompt: null,
        started: null,
        updated: null,
        hidden: false,
        hiddenReason: null,
        parent: null,
        forkedFrom: null,
      }) as unknown as Session;
    const groups = [session('claude', CA, path.join(h, `.claude/projects/-w-proj/${CA}.jsonl`)), session('pi', PA, pi)].map((s) =>
      newGroup(s, [s]),
    );
    const terms = parseQuery(['heron']);
    const keysOf = (need: string[]) =>
      new Map(
        scanGroups(
          groups.map((g) => newGroup(g.root, g.members)),
          terms,
          new Set(need),
        ).groups.map((g) => [g.key, g.keys.length]),
      );
    expect(keysOf([])).toEqual(
      new Map([
        [`claude:${CA}`, 2],
        [`pi:${PA}`, 0],
      ]),
    );
    expect(keysOf([`pi:${PA}`]).get(`pi:${PA}`)).toBe(1);
  });
});

describe('hidden stores are searched and labelled', () => {
  it('an archived Codex rollout and an SDK Claude session are found by default, with their label', () => {
    const h = home();
    put(h, 'codex/archived_sessions', '.codex/archived_sessions');
    write(
      h,
      `.claude/projects/-w-proj/${CA}.jsonl`,
      jsonl(
        ...chain(
          CA,
          [
            { role: 'user', text: 'synthetic prompt from a script', uuid: 'a1', parent: null, ts: '2026-02-01T10:00:00.000Z' },
            { role: 'assistant', text: 'Done.', uuid: 'a2', parent: 'a1', ts: '2026-02-01T10:05:00.000Z' },
          ],
          { entrypoint: 'sdk-cli' },
        ),
      ),
    );
    // neither is listed without --all
    expect(JSON.parse(run(h, ['ls', '--json']).stdout)).toEqual([]);
    const r = searchJson(h, ['synthetic', 'prompt']);
    const byId = Object.fromEntries(r.map((x) => [x.id, x.hidden]));
    expect(byId).toEqual({ '55555555-5555-4555-8555-555555555555': 'archived', [CA]: 'sdk' });
    const human = run(h, ['search', 'synthetic', 'prompt']).stdout;
    expect(human).toMatch(/\[archived\]/);
    expect(human).toMatch(/\[SDK\]/);
  });

  it('a visible session carries no label', () => {
    const h = home();
    write(
      h,
      `.claude/projects/-w-proj/${CA}.jsonl`,
      jsonl(
        ...chain(CA, [
          { role: 'user', text: 'plain ibis work', uuid: 'a1', parent: null, ts: '2026-02-01T10:00:00.000Z' },
          { role: 'assistant', text: 'Done.', uuid: 'a2', parent: 'a1', ts: '2026-02-01T10:05:00.000Z' },
          { role: 'user', text: 'more ibis work', uuid: 'a3', parent: 'a2', ts: '2026-02-01T10:06:00.000Z' },
        ]),
      ),
    );
    const [r] = searchJson(h, ['ibis']);
    expect(r.hidden).toBeNull();
    expect(run(h, ['search', 'ibis']).stdout).not.toMatch(/\[/);
  });
});

// ---- pi ---------------------------------------------------------------------------------------

const PI_DIR = '.pi/agent/sessions/--w-proj--';
const piHeader = (id: string, ts: string, extra: Record<string, unknown> = {}) => ({
  type: 'session',
  version: 3,
  id,
  timestamp: ts,
  cwd: '/w/proj',
  ...extra,
});
const piEntry = (id: string, parentId: string | null, ts: string, role: 'user' | 'assistant', text: string) => ({
  type: 'message',
  id,
  parentId,
  timestamp: ts,
  message: { role, content: [{ type: 'text', text }], timestamp: Date.parse(ts), ...(role === 'assistant' ? { model: 'm' } : {}) },
});

/**
 * Two sessions whose first prompt names the word, then a tool result after each of 25 replies:
 * `session(id, day, n)` writes one with the word in the first n results. The older (A, 25 results)
 * ranks first: twenty hits counted (the prompt and 19 results, held back to the end of the file and
 * decoded for the count) against three in B, 0.05 a hit.
 */
function expectHeldCounted(h: string, session: (id: string, day: number, outputs: number) => void, A: string, B: string): void {
  session(A, 1, 25);
  session(B, 2, 2);
  const r = searchJson(h, ['kinkajou']);
  expect(r.map((x) => x.id)).toEqual([A, B]);
  expect(Math.round((r[0].score - r[1].score) * 100) / 100).toBe(0.85);
  expect(r[0].evidence.map((e) => e.role)).toEqual(['user', 'tool-output']);
  expect(r[0].evidence[1].text).toBe('kinkajou.c:0: alloc');
}

describe('pi workers', () => {
  const P = '019a0000-0000-7000-8000-00000000aaaa';
  const W = '019a0000-0000-7000-8000-00000000bbbb';
  const L = '019a0000-0000-7000-8000-00000000cccc';

  it('a worker in <project>/subagents/ is reported on the session that was going when it started', () => {
    const h = home();
    write(
      h,
      `${PI_DIR}/2026-03-01T10-00-00-000Z_${P}.jsonl`,
      jsonl(
        piHeader(P, '2026-03-01T10:00:00.000Z'),
        piEntry('p1', null, '2026-03-01T10:00:01.000Z', 'user', 'survey the storage layer'),
        piEntry('p2', 'p1', '2026-03-01T10:00:05.000Z', 'assistant', 'Delegating to a scout.'),
        piEntry('p3', 'p2', '2026-03-01T10:30:00.000Z', 'user', 'summarise what the scout found'),
      ),
    );
    const worker = write(
      h,
      `${PI_DIR}/subagents/2026-03-01T10-01-00-000Z_${W}.jsonl`,
      jsonl(
        piHeader(W, '2026-03-01T10:01:00.000Z'),
        piEntry('w1', null, '2026-03-01T10:01:01.000Z', 'user', 'find every caller of the lemur cache'),
        piEntry('w2', 'w1', '2026-03-01T10:02:00.000Z', 'assistant', 'The lemur cache has three callers.'),
      ),
    );
    // a worker that started long after: not attributed, found on its own and labelled
    write(
      h,
      `${PI_DIR}/subagents/2026-03-09T10-00-00-000Z_${L}.jsonl`,
      jsonl(
        piHeader(L, '2026-03-09T10:00:00.000Z'),
        piEntry('l1', null, '2026-03-09T10:00:01.000Z', 'user', 'check the lemur cache again'),
      ),
    );
    const r = searchJson(h, ['lemur', 'cache']);
    // W is not a result of its own: its text is evidence on P
    expect(r.map((x) => x.id).sort()).toEqual([P, L]);
    const p = must(r.find((x) => x.id === P));
    expect(p.subagentFiles).toEqual([worker]);
    expect(p.evidence[0]).toMatchObject({ role: 'task', subagent: true, file: worker });
    expect(p.hidden).toBeNull();
    expect(must(r.find((x) => x.id === L)).hidden).toBe('subagent');
    expect(run(h, ['search', 'lemur', 'cache']).stdout).toMatch(/\[worker\]/);
  });

  it("of two sessions of the project going when a worker started, the one started later has it; another project's never", () => {
    const h = home();
    const E = '019a0000-0000-7000-8000-00000000eeee';
    const O = '019a0000-0000-7000-8000-00000000ffff';
    // E started first and was still going when the worker started; P started after E
    write(
      h,
      `${PI_DIR}/2026-03-01T09-00-00-000Z_${E}.jsonl`,
      jsonl(
        piHeader(E, '2026-03-01T09:00:00.000Z'),
        piEntry('e1', null, '2026-03-01T09:00:01.000Z', 'user', 'an earlier long session'),
        piEntry('e2', 'e1', '2026-03-01T11:00:00.000Z', 'user', 'still going'),
      ),
    );
    write(
      h,
      `${PI_DIR}/2026-03-01T10-00-00-000Z_${P}.jsonl`,
      jsonl(
        piHeader(P, '2026-03-01T10:00:00.000Z'),
        piEntry('p1', null, '2026-03-01T10:00:01.000Z', 'user', 'survey the storage layer'),
        piEntry('p2', 'p1', '2026-03-01T10:30:00.000Z', 'user', 'summarise'),
      ),
    );
    // another project's session, started later still: not a candidate
    write(
      h,
      `.pi/agent/sessions/--tmp-other--/2026-03-01T10-00-30-000Z_${O}.jsonl`,
      jsonl(
        piHeader(O, '2026-03-01T10:00:30.000Z', { cwd: '/tmp/other' }),
        piEntry('o1', null, '2026-03-01T10:00:31.000Z', 'user', 'elsewhere'),
        piEntry('o2', 'o1', '2026-03-01T10:40:00.000Z', 'user', 'still elsewhere'),
      ),
    );
    const worker = write(
      h,
      `${PI_DIR}/subagents/2026-03-01T10-01-00-000Z_${W}.jsonl`,
      jsonl(
        piHeader(W, '2026-03-01T10:01:00.000Z'),
        piEntry('w1', null, '2026-03-01T10:01:01.000Z', 'user', 'find every caller of the lemur cache'),
      ),
    );
    const r = searchJson(h, ['lemur']);
    expect(r.map((x) => x.id)).toEqual([P]);
    expect(r[0].subagentFiles).toEqual([worker]);
  });

  it("the parents hook: the latest started of the project's sessions still going, past later ones and ones ended", async () => {
    const { search: hooks } = await import('../lib/harness/pi/text.js');
    const at = (hm: string) => Date.parse(`2026-03-01T${hm}:00.000Z`);
    const dir = '/h/.pi/agent/sessions/--w--';
    const s = (id: string, started: number, updated: number, worker = false) =>
      ({
        harness: 'pi',
        id,
        key: `pi:${id}`,
        file: `${dir}/${worker ? 'subagents/' : ''}${id}.jsonl`,
        started,
        updated,
        hidden: worker,
        hiddenReason: worker ? 'subagent' : undefined,
      }) as unknown as Session;
    const all = [
      s('old', at('08:00'), at('12:00')), // going all morning
      s('ended', at('09:00'), at('09:10')), // started later than `old`, ended before the workers
      s('late', at('11:00'), at('11:30')), // started after the first worker
      s('w1', at('10:00'), at('10:05'), true), // `ended` is not going: `old` has it
      s('w2', at('09:05'), at('09:06'), true), // `ended` was going, and started after `old`
      s('w3', at('11:10'), at('11:12'), true), // `late` started before it
      s('w4', at('07:00'), at('07:01'), true), // before every session: nobody's
    ];
    const got = must(hooks.parents?.(all));
    expect(Object.fromEntries(got)).toEqual({ 'pi:w1': 'old', 'pi:w2': 'ended', 'pi:w3': 'late' });
  });
});

// ---- abandoned branches ------------------------------------------------------------------------

describe('text only on an abandoned branch', () => {
  it('Claude: a rewound prompt is labelled and ranks below the same text on the live thread (compaction bridged)', () => {
    const h = home();
    // the fixture: u1 → a1 → {b1u → b1a (abandoned), b2u → b2a → b2u2 → b2a2} → compact_boundary → … → p1a
    const file = put(h, 'claude/compact-after-rewind.jsonl', `.claude/projects/-tmp/${CA}.jsonl`);
    let r = searchJson(h, ['attempt']);
    expect(r).toHaveLength(1);
    const ev = r[0].evidence;
    expect(ev[0]).toMatchObject({ abandoned: false, file });
    expect(ev[0].text).toBe('Second attempt');
    expect(ev[1]).toMatchObject({ abandoned: true });
    expect(ev[1].text).toBe('First attempt');
    r = searchJson(h, ['first', 'answer']);
    expect(r[0].evidence[0].abandoned).toBe(true);
    expect(r[0].confidence).not.toBe('high');
    expect(run(h, ['search', 'first', 'answer']).stdout).toMatch(/reply \(abandoned branch\): .*«First» «answer»/);
    // text before the compaction is live (bridged by logicalParentUuid)
    expect(searchJson(h, ['kept', 'going'])[0].evidence[0].abandoned).toBe(false);
  });

  it('Claude: a session whose only mention was rewound ranks below an older one where it is live', () => {
    const h = home();
    write(
      h,
      `.claude/projects/-w-proj/${CA}.jsonl`,
      jsonl(
        ...chain(CA, [
          { role: 'user', text: 'start', uuid: 'a1', parent: null, ts: '2026-02-01T10:00:00.000Z' },
          { role: 'assistant', text: 'Ready.', uuid: 'a2', parent: 'a1', ts: '2026-02-01T10:00:05.000Z' },
        ]),
      ),
    );
    // newer session: the prompt naming the pangolin ledger was rewound and replaced
    write(
      h,
      `.claude/projects/-w-proj/${CB}.jsonl`,
      jsonl(
        ...chain(CB, [
          { role: 'user', text: 'start', uuid: 'b1', parent: null, ts: '2026-02-05T10:00:00.000Z' },
          { role: 'assistant', text: 'Ready.', uuid: 'b2', parent: 'b1', ts: '2026-02-05T10:00:05.000Z' },
          { role: 'user', text: 'migrate the pangolin ledger', uuid: 'b3', parent: 'b2', ts: '2026-02-05T10:01:00.000Z' },
          { role: 'assistant', text: 'Starting.', uuid: 'b4', parent: 'b3', ts: '2026-02-05T10:01:05.000Z' },
          { role: 'user', text: 'actually do something else', uuid: 'b5', parent: 'b2', ts: '2026-02-05T10:02:00.000Z' },
          { role: 'assistant', text: 'Sure.', uuid: 'b6', parent: 'b5', ts: '2026-02-05T10:02:05.000Z' },
        ]),
      ),
    );
    // the older session: the same prompt, live
    fs.appendFileSync(
      path.join(h, `.claude/projects/-w-proj/${CA}.jsonl`),
      jsonl(
        ...chain(CA, [{ role: 'user', text: 'migrate the pangolin ledger', uuid: 'a3', parent: 'a2', ts: '2026-02-01T10:01:00.000Z' }]),
      ),
    );
    const r = searchJson(h, ['pangolin', 'ledger']);
    expect(r.map((x) => x.id)).toEqual([CA, CB]);
    expect(r[1].evidence[0].abandoned).toBe(true);
    expect(r[0].score).toBeGreaterThan(r[1].score);
  });

  it('Claude: a prompt typed again after a rewind is live', () => {
    const h = home();
    write(
      h,
      `.claude/projects/-w-proj/${CA}.jsonl`,
      jsonl(
        ...chain(CA, [
          { role: 'user', text: 'start', uuid: 'a1', parent: null, ts: '2026-02-01T10:00:00.000Z' },
          { role: 'assistant', text: 'Ready.', uuid: 'a2', parent: 'a1', ts: '2026-02-01T10:00:05.000Z' },
          { role: 'user', text: 'index the gecko archive', uuid: 'a3', parent: 'a2', ts: '2026-02-01T10:01:00.000Z' },
          { role: 'user', text: 'index the gecko archive', uuid: 'a4', parent: 'a2', ts: '2026-02-01T10:02:00.000Z' },
          { role: 'assistant', text: 'Indexed.', uuid: 'a5', parent: 'a4', ts: '2026-02-01T10:02:05.000Z' },
        ]),
      ),
    );
    const [r] = searchJson(h, ['gecko']);
    expect(r.evidence[0].abandoned).toBe(false);
  });

  it('pi: entries off the path to the last entry are labelled and ranked below', () => {
    const h = home();
    const A = '019a0000-0000-7000-8000-0000000000a1';
    const B = '019a0000-0000-7000-8000-0000000000b1';
    // A (newer): the tapir prompt was left with /tree; the last entry continues from e2
    write(
      h,
      `${PI_DIR}/2026-03-05T10-00-00-000Z_${A}.jsonl`,
      jsonl(
        piHeader(A, '2026-03-05T10:00:00.000Z'),
        piEntry('e1', null, '2026-03-05T10:00:01.000Z', 'user', 'hello'),
        piEntry('e2', 'e1', '2026-03-05T10:00:02.000Z', 'assistant', 'Hi.'),
        piEntry('e3', 'e2', '2026-03-05T10:00:03.000Z', 'user', 'rewrite the tapir renderer'),
        piEntry('e4', 'e3', '2026-03-05T10:00:04.000Z', 'assistant', 'On it.'),
        piEntry('e5', 'e2', '2026-03-05T10:00:05.000Z', 'user', 'no, fix the tests first'),
        piEntry('e6', 'e5', '2026-03-05T10:00:06.000Z', 'assistant', 'Fixed.'),
      ),
    );
    // B (older): the same prompt on its live path
    write(
      h,
      `${PI_DIR}/2026-03-01T10-00-00-000Z_${B}.jsonl`,
      jsonl(
        piHeader(B, '2026-03-01T10:00:00.000Z'),
        piEntry('f1', null, '2026-03-01T10:00:01.000Z', 'user', 'hello'),
        piEntry('f2', 'f1', '2026-03-01T10:00:02.000Z', 'assistant', 'Hi.'),
        piEntry('f3', 'f2', '2026-03-01T10:00:03.000Z', 'user', 'rewrite the tapir renderer'),
        piEntry('f4', 'f3', '2026-03-01T10:00:04.000Z', 'assistant', 'Done.'),
      ),
    );
    const r = searchJson(h, ['tapir', 'renderer']);
    expect(r.map((x) => x.id)).toEqual([B, A]);
    expect(r[0].evidence[0].abandoned).toBe(false);
    expect(r[1].evidence[0].abandoned).toBe(true);
    expect(run(h, ['search', 'tapir']).stdout).toMatch(/prompt \(abandoned branch\): rewrite the «tapir» renderer/);
  });

  it('pi: the tree is read along with the search, also when the first hit is megabytes in and a long tool output lies on the live path', () => {
    const h = home();
    const A = '019a0000-0000-7000-8000-0000000000a3';
    const tool = (id: string, parentId: string, ts: string, text: string) => ({
      type: 'message',
      id,
      parentId,
      timestamp: ts,
      message: { role: 'toolResult', toolCallId: 'c', toolName: 'bash', content: [{ type: 'text', text }], timestamp: Date.parse(ts) },
    });
    write(
      h,
      `${PI_DIR}/2026-03-05T10-00-00-000Z_${A}.jsonl`,
      jsonl(
        piHeader(A, '2026-03-05T10:00:00.000Z'),
        piEntry('e1', null, '2026-03-05T10:00:01.000Z', 'user', 'hello'),
        // 2 MiB before the first hit: the lines before it are read again for the tree
        tool('e2', 'e1', '2026-03-05T10:00:02.000Z', 'log line\n'.repeat(230_000)),
        piEntry('e3', 'e2', '2026-03-05T10:00:03.000Z', 'user', 'rewrite the tapir renderer'),
        piEntry('e4', 'e3', '2026-03-05T10:00:04.000Z', 'assistant', 'On it.'),
        piEntry('e5', 'e2', '2026-03-05T10:00:05.000Z', 'user', 'no, fix the tests first'),
        // 3 MiB of tool output with a hit, read in pieces by the search: whole for the tree
        tool('e6', 'e5', '2026-03-05T10:00:06.000Z', `${'ok\n'.repeat(1_000_000)}tapir fixture loaded\n`),
        piEntry('e7', 'e6', '2026-03-05T10:00:07.000Z', 'assistant', 'Fixed.'),
      ),
    );
    const [r] = searchJson(h, ['tapir']);
    expect(r.id).toBe(A);
    const prompt = r.evidence.find((e) => e.role === 'user');
    expect(prompt).toMatchObject({ abandoned: true, text: 'rewrite the «tapir» renderer'.replace(/[«»]/g, '') });
    expect(r.evidence.find((e) => e.role === 'tool-output')).toMatchObject({ abandoned: false });
  });

  it('pi: tool output repeated on the live path after an abandoned copy keeps its evidence live, also once further tool output is no longer decoded', () => {
    const h = home();
    const A = '019a0000-0000-7000-8000-0000000000a5';
    // keys in the order pi writes them (0.73.1)
    const result = (id: string, parentId: string, ts: string, text: string) => ({
      type: 'message',
      id,
      parentId,
      timestamp: ts,
      message: { role: 'toolResult', toolCallId: 'c', toolName: 'bash', content: [{ type: 'text', text }], timestamp: Date.parse(ts) },
    });
    const ts = (n: number) => `2026-03-05T10:${String(n).padStart(2, '0')}:00.000Z`;
    const lines: unknown[] = [piHeader(A, ts(0)), piEntry('e0', null, ts(1), 'user', 'hello')];
    for (let i = 1; i <= 7; i++) lines.push(piEntry(`e${i}`, `e${i - 1}`, ts(1 + i), 'user', `ocelot step ${i}`));
    // left with /tree: the first copy of the output
    lines.push(result('b1', 'e7', ts(10), 'ocelot fixture output'));
    // the live path: twelve more outputs (the group is past what its score counts), then the same output again
    let parent = 'e7';
    for (let j = 1; j <= 12; j++) {
      lines.push(result(`f${j}`, parent, ts(10 + j), `ocelot log ${j}`));
      parent = `f${j}`;
    }
    lines.push(result('t2', parent, ts(30), 'ocelot fixture output'));
    lines.push(piEntry('z', 't2', ts(31), 'assistant', 'Done.'));
    write(h, `${PI_DIR}/2026-03-05T10-00-00-000Z_${A}.jsonl`, jsonl(...lines));
    const [r] = searchJson(h, ['ocelot']);
    expect(r.evidence[0]).toMatchObject({ role: 'user', abandoned: false });
    expect(r.evidence[1]).toMatchObject({ role: 'tool-output', abandoned: false, text: 'ocelot fixture output' });
  });

  it('pi: tool output held back to the end of the file still counts: the session that mentions the word more ranks first', () => {
    const h = home();
    const A = '019a0000-0000-7000-8000-0000000000a6';
    const B = '019a0000-0000-7000-8000-0000000000a7';
    const result = (id: string, parentId: string, ts: string, text: string) => ({
      type: 'message',
      id,
      parentId,
      timestamp: ts,
      message: { role: 'toolResult', toolCallId: 'c', toolName: 'bash', content: [{ type: 'text', text }], timestamp: Date.parse(ts) },
    });
    const ts = (d: number, n: number) => `2026-03-0${d}T10:${String(n).padStart(2, '0')}:00.000Z`;
    // the first prompt names it, then tool output between replies: 25 times in A (older), twice in B
    const session = (id: string, d: number, outputs: number) => {
      const lines: unknown[] = [piHeader(id, ts(d, 0)), piEntry('u1', null, ts(d, 1), 'user', 'trace the kinkajou leak')];
      let parent = 'u1';
      for (let i = 0; i < 25; i++) {
        lines.push(piEntry(`a${i}`, parent, ts(d, 2 + i), 'assistant', `looking ${i}`));
        lines.push(result(`t${i}`, `a${i}`, ts(d, 2 + i), i < outputs ? `kinkajou.c:${i}: alloc` : `other.c:${i}`));
        parent = `t${i}`;
      }
      write(h, `${PI_DIR}/${ts(d, 0).replace(/[:.]/g, '-')}_${id}.jsonl`, jsonl(...lines));
    };
    expectHeldCounted(h, session, A, B);
  });

  it('Claude: tool results held back to the end of the file still count: the session that mentions the word more ranks first', () => {
    const h = home();
    const A = 'aaaaaaaa-2222-4222-8222-222222222222';
    const B = 'bbbbbbbb-2222-4222-8222-222222222222';
    const ts = (d: number, n: number) => `2026-02-0${d}T10:${String(n).padStart(2, '0')}:00.000Z`;
    type Rec = { uuid: string; parent: string | null; at: string; type: 'user' | 'assistant'; content: unknown };
    const rec = (id: string, { uuid, parent, at, type, content }: Rec) => ({
      parentUuid: parent,
      isSidechain: false,
      userType: 'external',
      cwd: CWD,
      sessionId: id,
      version: '2.1.332',
      type,
      message: type === 'user' ? { role: 'user', content } : { role: 'assistant', model: 'claude-x', content },
      uuid,
      timestamp: at,
    });
    const result = (text: string) => [{ tool_use_id: 'toolu_1', type: 'tool_result', content: text }];
    // the first prompt names it, then a tool result after each reply: 25 times in A (older), twice in B
    const session = (id: string, d: number, outputs: number) => {
      const lines: unknown[] = [rec(id, { uuid: 'u1', parent: null, at: ts(d, 1), type: 'user', content: 'trace the kinkajou leak' })];
      let parent = 'u1';
      for (let i = 0; i < 25; i++) {
        lines.push(
          rec(id, {
            uuid: `a${i}`,
            parent,
            at: ts(d, 2 + i),
            type: 'assistant',
            content: [
              { type: 'text', text: `looking ${i}` },
              { type: 'tool_use', id: 'toolu_1', name: 'Bash', input: { command: 'grep -rn leak' } },
            ],
          }),
        );
        lines.push(
          rec(id, {
            uuid: `t${i}`,
            parent: `a${i}`,
            at: ts(d, 2 + i),
            type: 'user',
            content: result(i < outputs ? `kinkajou.c:${i}: alloc` : `other.c:${i}`),
          }),
        );
        parent = `t${i}`;
      }
      write(h, `.claude/projects/-w-proj/${id}.jsonl`, jsonl(...lines));
    };
    expectHeldCounted(h, session, A, B);
  });

  it('pi: a session whose only hits are held tool output has its tree read along, not the file read again', async () => {
    const h = home();
    const A = '019a0000-0000-7000-8000-0000000000a8';
    const ts = (n: number) => `2026-03-05T10:${String(n).padStart(2, '0')}:00.000Z`;
    const result = (id: string, parentId: string, t: string, text: string) => ({
      type: 'message',
      id,
      parentId,
      timestamp: t,
      message: { role: 'toolResult', toolCallId: 'c', toolName: 'bash', content: [{ type: 'text', text }], timestamp: Date.parse(t) },
    });
    const lines: unknown[] = [piHeader(A, ts(0)), piEntry('u0', null, ts(1), 'user', 'look at the logs')];
    let parent = 'u0';
    for (let i = 1; i <= 5; i++) {
      lines.push(piEntry(`a${i}`, parent, ts(2 * i), 'assistant', `reading ${i}`));
      lines.push(result(`t${i}`, `a${i}`, ts(2 * i + 1), `log ${i}: pangolin ${'x'.repeat(5_000)}`));
      parent = `t${i}`;
    }
    // a rewind: the last result is left on an abandoned branch
    lines.push(piEntry('u9', 't4', ts(20), 'user', 'go back'));
    const file = write(h, `${PI_DIR}/2026-03-05T10-00-00-000Z_${A}.jsonl`, jsonl(...lines));
    const [r] = searchJson(h, ['pangolin']);
    expect(r.evidence.map((e) => [e.role, e.abandoned])).toEqual([
      ['tool-output', false],
      ['tool-output', false],
    ]);
    expect(r.evidence[0].text).toMatch(/^log 1: pangolin x+/);
    // read once: the bytes read are the file's (a second read for its tree would count them twice)
    await loadExtractors();
    const s = {
      harness: 'pi',
      id: A,
      key: `pi:${A}`,
      file,
      cwd: CWD,
      title: null,
      firstPrompt: null,
      started: null,
      updated: null,
      hidden: false,
      hiddenReason: null,
      parent: null,
      forkedFrom: null,
    } as unknown as Session;
    const out = scanGroups([newGroup(s, [s])], parseQuery(['pangolin']), new Set());
    expect(out.stats.bytes).toBe(fs.statSync(file).size);
    expect(out.groups[0].nHits).toBe(5);
  });

  it('pi: a line longer than can be read on the path makes the tree unknown (all live)', () => {
    const h = home();
    const A = '019a0000-0000-7000-8000-0000000000a4';
    write(
      h,
      `${PI_DIR}/2026-03-05T10-00-00-000Z_${A}.jsonl`,
      jsonl(
        piHeader(A, '2026-03-05T10:00:00.000Z'),
        piEntry('e1', null, '2026-03-05T10:00:01.000Z', 'user', 'hello'),
        piEntry('e2', 'e1', '2026-03-05T10:00:02.000Z', 'user', 'rewrite the tapir renderer'),
        piEntry('e3', 'e1', '2026-03-05T10:00:03.000Z', 'user', 'no, fix the tests first'),
        {
          type: 'message',
          id: 'e4',
          parentId: 'e3',
          timestamp: '2026-03-05T10:00:04.000Z',
          message: { role: 'toolResult', content: [{ type: 'text', text: 'x'.repeat(9 << 20) }] },
        },
        piEntry('e5', 'e4', '2026-03-05T10:00:05.000Z', 'assistant', 'Fixed.'),
      ),
    );
    expect(searchJson(h, ['tapir'])[0].evidence[0]).toMatchObject({ role: 'user', abandoned: false });
  });

  it('Claude: when the evidence is enough early, the rest of the transcript is still read for its tree', () => {
    const h = home();
    // the first prompt and twenty more name the quokka; then the user rewinds to the first reply
    const turns: Parameters<typeof chain>[1] = [
      { role: 'user', text: 'fix the quokka parser', uuid: 'q0', parent: null, ts: '2026-02-01T10:00:00.000Z' },
      { role: 'assistant', text: 'Looking.', uuid: 'r0', parent: 'q0', ts: '2026-02-01T10:00:01.000Z' },
    ];
    for (let i = 1; i <= 25; i++) {
      turns.push({
        role: 'user',
        text: `quokka step ${i}`,
        uuid: `q${i}`,
        parent: `r${i - 1}`,
        ts: `2026-02-01T10:${String(i).padStart(2, '0')}:00.000Z`,
      });
      // a long reply after the twentieth: the rewind lies past the first megabyte read
      const text = `Step ${i} done.${i === 21 ? ' more'.repeat(300_000) : ''}`;
      turns.push({ role: 'assistant', text, uuid: `r${i}`, parent: `q${i}`, ts: `2026-02-01T10:${String(i).padStart(2, '0')}:30.000Z` });
    }
    turns.push({ role: 'user', text: 'start over from the first answer', uuid: 'z1', parent: 'r0', ts: '2026-02-01T11:00:00.000Z' });
    turns.push({ role: 'assistant', text: 'Starting over.', uuid: 'z2', parent: 'z1', ts: '2026-02-01T11:00:05.000Z' });
    write(h, `.claude/projects/-w-proj/${CA}.jsonl`, jsonl(...chain(CA, turns)));
    const [r] = searchJson(h, ['quokka']);
    expect(r.evidence[0]).toMatchObject({ role: 'user', abandoned: false, text: 'fix the quokka parser' });
    expect(r.evidence[1]).toMatchObject({ role: 'user', abandoned: true });
    expect(r.evidence[1].text).toMatch(/^quokka step \d+$/);
  });

  it('Claude: long lines read in pieces are placed in the tree by their head and tail, or read again whole when their own uuid is not in its tail', () => {
    const h = home();
    const ts = (n: number) => `2026-02-01T10:${String(n).padStart(2, '0')}:00.000Z`;
    const [start, ready, look, rewound, readyAgain, again, looking, done] = chain(CA, [
      { role: 'user', text: 'start', uuid: 'u1', parent: null, ts: ts(1) },
      { role: 'assistant', text: 'Ready.', uuid: 'a1', parent: 'u1', ts: ts(2) },
      { role: 'assistant', text: 'Looked.', uuid: 'a2', parent: 't1', ts: ts(4) },
      { role: 'user', text: 'migrate the capybara ledger', uuid: 'u2', parent: 'a2', ts: ts(5) },
      { role: 'assistant', text: 'Starting.', uuid: 'a3', parent: 'u2', ts: ts(6) },
      { role: 'user', text: 'move the capybara ledger by hand', uuid: 'u3', parent: 'a2', ts: ts(7) },
      { role: 'assistant', text: 'Looking.', uuid: 'a4', parent: 'u3', ts: ts(8) },
      { role: 'assistant', text: 'Done.', uuid: 'a5', parent: 't2', ts: ts(10) },
    ]);
    const out = (n: number, word: string) => Array.from({ length: n }, (_, i) => `row ${i} ${word}`).join('\n');
    // before the first hit (read again for the tree), 300 KB, its uuid near its end (older versions' order)
    const t1 = {
      parentUuid: 'a1',
      isSidechain: false,
      userType: 'external',
      cwd: CWD,
      sessionId: CA,
      version: '2.1.200',
      type: 'user',
      message: { role: 'user', content: [{ tool_use_id: 'tu', type: 'tool_result', content: out(20_000, 'plain') }] },
      uuid: 't1',
      timestamp: ts(3),
    };
    // on the live path after the rewind, 600 KB with a hit, in the order 2.1.332 writes: the tool's
    // result again after the uuid, so the uuid is not in the line's last bytes
    const big = out(20_000, 'capybara');
    const t2 = {
      parentUuid: 'a4',
      isSidechain: false,
      promptId: 'p',
      type: 'user',
      message: { role: 'user', content: [{ tool_use_id: 'tu', type: 'tool_result', content: big }] },
      uuid: 't2',
      timestamp: ts(9),
      toolUseResult: { stdout: big, stderr: '', interrupted: false },
      sessionId: CA,
      cwd: CWD,
      version: '2.1.332',
    };
    write(h, `.claude/projects/-w-proj/${CA}.jsonl`, jsonl(start, ready, t1, look, rewound, readyAgain, again, looking, t2, done));
    // (each time the tree is read along from the prompt on: t1 read again, t2 read in pieces by the search)
    const [r] = searchJson(h, ['migrate', 'capybara']);
    expect(r.id).toBe(CA);
    expect(r.evidence[0]).toMatchObject({ role: 'user', abandoned: true, text: 'migrate the capybara ledger' });
    expect(searchJson(h, ['hand', 'capybara'])[0].evidence[0]).toMatchObject({
      role: 'user',
      abandoned: false,
      text: 'move the capybara ledger by hand',
    });
  });

  it('Claude: a group that has every word only once a subagent is read still has its branches told apart', () => {
    const h = home();
    write(
      h,
      `.claude/projects/-w-proj/${CA}.jsonl`,
      jsonl(
        ...chain(CA, [
          { role: 'user', text: 'start', uuid: 'a1', parent: null, ts: '2026-02-01T10:00:00.000Z' },
          { role: 'assistant', text: 'Ready.', uuid: 'a2', parent: 'a1', ts: '2026-02-01T10:00:05.000Z' },
          { role: 'user', text: 'feed the walrus', uuid: 'a3', parent: 'a2', ts: '2026-02-01T10:01:00.000Z' },
          { role: 'assistant', text: 'Feeding.', uuid: 'a4', parent: 'a3', ts: '2026-02-01T10:01:05.000Z' },
          { role: 'user', text: 'something else', uuid: 'a5', parent: 'a2', ts: '2026-02-01T10:02:00.000Z' },
          { role: 'assistant', text: 'Sure.', uuid: 'a6', parent: 'a5', ts: '2026-02-01T10:02:05.000Z' },
        ]),
      ),
    );
    write(
      h,
      `.claude/projects/-w-proj/${CA}/subagents/agent-x1.jsonl`,
      jsonl(
        ...chain(CA, [{ role: 'user', text: 'polish the saddle', uuid: 's1', parent: null, ts: '2026-02-01T10:02:10.000Z' }], {
          isSidechain: true,
          agentId: 'x1',
        }),
      ),
    );
    const [r] = searchJson(h, ['walrus', 'saddle']);
    expect(r.id).toBe(CA);
    const walrus = r.evidence.find((e) => /walrus/.test(e.text));
    expect(walrus).toMatchObject({ abandoned: true });
  });

  it('pi: a linear (v1) file without ids has no branches', () => {
    const h = home();
    const A = '019a0000-0000-7000-8000-0000000000a2';
    write(
      h,
      `${PI_DIR}/2026-03-05T10-00-00-000Z_${A}.jsonl`,
      jsonl(
        { type: 'session', id: A, timestamp: '2026-03-05T10:00:00.000Z', cwd: '/w/proj' },
        { type: 'message', timestamp: '2026-03-05T10:00:01.000Z', message: { role: 'user', content: 'feed the axolotl', timestamp: 1 } },
        { type: 'message', timestamp: '2026-03-05T10:00:02.000Z', message: { role: 'user', content: 'and the newt', timestamp: 2 } },
      ),
    );
    expect(searchJson(h, ['axolotl'])[0].evidence[0].abandoned).toBe(false);
  });

  it('Gemini: messages a $rewindTo dropped are labelled and ranked below', () => {
    const h = home();
    const gdir = path.join(h, '.gemini/tmp/proj');
    write(h, path.join(gdir, '.project_root'), '/w/gemini-proj');
    const meta = (id: string, ts: string) => ({ sessionId: id, projectHash: 'x', startTime: ts, lastUpdated: ts, kind: 'main' });
    const msg = (id: string, type: string, content: string, ts: string) => ({ id, timestamp: ts, type, content });
    const G1 = 'a1b2c3d4-0000-4000-8000-000000000001';
    const G2 = 'b1b2c3d4-0000-4000-8000-000000000002';
    write(
      h,
      path.join(gdir, `chats/session-2026-03-05T10-00-${G1.slice(0, 8)}.jsonl`),
      jsonl(
        meta(G1, '2026-03-05T10:00:00.000Z'),
        msg('m1', 'user', 'hello', '2026-03-05T10:00:01.000Z'),
        msg('m2', 'gemini', 'Hi.', '2026-03-05T10:00:02.000Z'),
        msg('m3', 'user', 'port the okapi loader', '2026-03-05T10:00:03.000Z'),
        msg('m4', 'gemini', 'Porting.', '2026-03-05T10:00:04.000Z'),
        { $rewindTo: 'm3' },
        msg('m5', 'user', 'write the changelog instead', '2026-03-05T10:00:05.000Z'),
        msg('m6', 'gemini', 'Written.', '2026-03-05T10:00:06.000Z'),
      ),
    );
    write(
      h,
      path.join(gdir, `chats/session-2026-03-01T10-00-${G2.slice(0, 8)}.jsonl`),
      jsonl(
        meta(G2, '2026-03-01T10:00:00.000Z'),
        msg('n1', 'user', 'port the okapi loader', '2026-03-01T10:00:01.000Z'),
        msg('n2', 'gemini', 'Ported.', '2026-03-01T10:00:02.000Z'),
      ),
    );
    const r = searchJson(h, ['okapi', 'loader']);
    expect(r.map((x) => x.id)).toEqual([G2, G1]);
    expect(r[0].evidence[0].abandoned).toBe(false);
    expect(r[1].evidence[0].abandoned).toBe(true);
    expect(searchJson(h, ['changelog'])[0].evidence[0].abandoned).toBe(false);
  });
});

// ---- opencode 2.x ---------------------------------------------------------------------------

describe('opencode 2.x (session_v2 + session_message)', () => {
  it("entries are searched: prompts, replies, tool calls and output, shell runs; a fork's copies count as copied; a subagent is reported on its parent", async () => {
    const { opencodeDb, OPENCODE_V2_SCHEMA } = await import('./sqlite-fixtures.js');
    const h = home();
    const db = opencodeDb(path.join(h, '.local/share/opencode/opencode.db'));
    db.exec(OPENCODE_V2_SCHEMA);
    const sv =
      db.prepare(`INSERT INTO session_v2 (id, project_id, parent_id, fork_session_id, fork_boundary, slug, directory, title, version, time_created, time_updated)
      VALUES (?, 'global', ?, ?, ?, 's', '/w/new', ?, '2.0.0', ?, ?)`);
    sv.run('ses_main', null, null, null, 'Main', 1780000000000, 1780000100000);
    sv.run('ses_fork', null, 'ses_main', 2, 'Main (fork #1)', 1780000500000, 1780000600000);
    sv.run('ses_kid', 'ses_main', null, null, 'Child', 1780000050000, 1780000060000);
    const sm = db.prepare(
      'INSERT INTO session_message (id, session_id, type, seq, time_created, time_updated, data) VALUES (?, ?, ?, ?, 1, 1, ?)',
    );
    const u = (text: string) => JSON.stringify({ text, files: [], agents: [], references: [], time: { created: 1780000000000 } });
    const tool = {
      type: 'tool',
      id: 't1',
      name: 'write',
      state: {
        status: 'completed',
        input: { filePath: '/w/new/quetzal.ts', content: 'export const quetzalFeed = 1' },
        content: [{ type: 'text', text: 'wrote the file' }],
        structured: {},
        result: null,
      },
      time: { created: 1 },
    };
    const a = JSON.stringify({
      agent: 'build',
      model: { id: 'm', providerID: 'p' },
      content: [{ type: 'reasoning', id: 'r', text: 'think' }, { type: 'text', id: 't', text: 'The quetzal feed is written.' }, tool],
      time: { created: 1 },
    });
    sm.run('m1', 'ses_main', 'user', 1, u('build the quetzal feed'));
    sm.run('m2', 'ses_main', 'assistant', 2, a);
    sm.run(
      'm3',
      'ses_main',
      'shell',
      3,
      JSON.stringify({ callID: 'c', command: 'ls toucan-assets', output: 'toucan.png', time: { created: 1 } }),
    );
    sm.run('f1', 'ses_fork', 'user', 1, u('build the quetzal feed'));
    sm.run('f2', 'ses_fork', 'assistant', 2, a);
    sm.run('f3', 'ses_fork', 'user', 3, u('now paginate it'));
    sm.run('k1', 'ses_kid', 'user', 1, u('survey the macaw endpoints'));
    sm.run('bad', 'ses_main', 'user', 4, 'not json');
    db.close();

    const r = searchJson(h, ['quetzal', 'feed']);
    expect(r.map((x) => x.id)).toEqual(['ses_main', 'ses_fork']);
    expect(r[0].kind).toBe('original');
    expect(r[0].evidence.map((e) => e.role)).toContain('user');
    expect(r[1].evidence.every((e) => e.copied)).toBe(true);
    expect(searchJson(h, ['quetzalFeed'])[0].evidence[0]).toMatchObject({ role: 'tool-call' });
    expect(searchJson(h, ['toucan-assets'])[0]).toMatchObject({ id: 'ses_main' });
    const kid = searchJson(h, ['macaw']);
    expect(kid.map((x) => x.id)).toEqual(['ses_main']);
    expect(kid[0].evidence[0].role).toBe('task');
  });
});
