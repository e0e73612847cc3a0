// Forks and clones list under their own first prompt (issue 10): Claude `--fork-session` copies the
// parent's records with the same uuids and no marker; pi `--fork`/`/clone` copies the parent's
// entries under a header naming the parent. The fork links its parent and counts only its own prompts.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { byId, claudeTurn, jsonl, lsJson, run, tempHome, write } from './helpers.js';

const CWD = '/tmp';
const P = 'aaaaaaaa-0000-4000-8000-000000000001';
const F = 'aaaaaaaa-0000-4000-8000-000000000002';
const G = 'aaaaaaaa-0000-4000-8000-000000000003';

function u(n: number): string {
  return `bbbbbbbb-0000-4000-8000-${n.toString(16).padStart(12, '0')}`;
}

/** The parent's history, written under `sid` (a fork copies it with the same uuids and times). */
function history(sid: string) {
  return [
    claudeTurn({ sid, uuid: u(1), parent: null, text: 'parent first prompt', at: '2026-03-01T10:00:00.000Z' }),
    claudeTurn({ sid, role: 'assistant', uuid: u(2), parent: u(1), text: 'ok', at: '2026-03-01T10:00:01.000Z' }),
    claudeTurn({ sid, uuid: u(3), parent: u(2), text: 'parent second prompt', at: '2026-03-01T10:00:02.000Z' }),
    claudeTurn({ sid, role: 'assistant', uuid: u(4), parent: u(3), text: 'ok', at: '2026-03-01T10:00:03.000Z' }),
    { type: 'ai-title', sessionId: sid, aiTitle: 'Parent work' },
  ];
}

const claudeFile = (id: string) => `.claude/projects/-tmp/${id}.jsonl`;

describe('Claude forks (shared uuids, no marker)', () => {
  it('the fork is listed by its own first prompt, links the parent, counts its own prompts; the parent is unchanged', () => {
    const home = tempHome();
    write(
      home,
      claudeFile(P),
      jsonl(
        ...history(P),
        // the parent went on after the fork was made
        claudeTurn({ sid: P, uuid: u(20), parent: u(4), text: 'parent after the fork', at: '2026-03-01T12:00:00.000Z' }),
      ),
    );
    write(
      home,
      claudeFile(F),
      jsonl(
        ...history(F),
        claudeTurn({ sid: F, uuid: u(10), parent: u(4), text: 'fork own prompt', at: '2026-03-01T11:00:00.000Z' }),
        claudeTurn({ sid: F, role: 'assistant', uuid: u(11), parent: u(10), text: 'fork reply', at: '2026-03-01T11:00:01.000Z' }),
        claudeTurn({ sid: F, uuid: u(12), parent: u(11), text: 'fork second own prompt', at: '2026-03-01T12:30:00.000Z' }),
      ),
    );
    // a fork of the fork (made before the fork went on): its parent is the fork, which it shares most with
    write(
      home,
      claudeFile(G),
      jsonl(
        ...history(G),
        claudeTurn({ sid: G, uuid: u(10), parent: u(4), text: 'fork own prompt', at: '2026-03-01T11:00:00.000Z' }),
        claudeTurn({ sid: G, role: 'assistant', uuid: u(11), parent: u(10), text: 'fork reply', at: '2026-03-01T11:00:01.000Z' }),
        claudeTurn({ sid: G, uuid: u(30), parent: u(11), text: 'grandchild prompt', at: '2026-03-01T11:30:00.000Z' }),
      ),
    );
    const list = lsJson(home);
    expect(byId(list, P)).toMatchObject({
      forkedFrom: null,
      prompts: 3,
      firstPrompt: 'parent first prompt',
      title: 'Parent work',
      hidden: false,
    });
    expect(byId(list, F)).toMatchObject({
      forkedFrom: P,
      prompts: 2,
      firstPrompt: 'fork own prompt',
      lastPrompt: 'fork second own prompt',
      title: 'fork own prompt',
      hidden: false,
      started: '2026-03-01T11:00:00.000Z',
      resume: { cwd: CWD, argv: ['claude', '--resume', F] },
    });
    expect(byId(list, G)).toMatchObject({ forkedFrom: F, prompts: 1, firstPrompt: 'grandchild prompt', title: 'grandchild prompt' });

    // show and the preview say whose fork it is
    const short = byId(list, P).short;
    expect(run(home, ['show', F]).stdout).toMatch(new RegExp(`forked from: +${P}`));
    expect(run(home, ['preview', `claude:${F}`]).stdout).toContain(`fork of ${short}`);
    expect(run(home, ['show', F]).stdout).toContain(`fork of ${short}`);
  });

  it('a parent that did not go on: the file with prompts after the shared ones is the fork', () => {
    const home = tempHome();
    write(home, claudeFile(P), jsonl(...history(P)));
    write(
      home,
      claudeFile(F),
      jsonl(...history(F), claudeTurn({ sid: F, uuid: u(10), parent: u(4), text: 'only the fork', at: '2026-03-02T09:00:00.000Z' })),
    );
    const list = lsJson(home);
    expect(byId(list, P)).toMatchObject({ forkedFrom: null, prompts: 2 });
    expect(byId(list, F)).toMatchObject({ forkedFrom: P, prompts: 1, firstPrompt: 'only the fork' });
  });

  it('two sessions that merely start with the same words are not forks', () => {
    const home = tempHome();
    write(home, claudeFile(P), jsonl(claudeTurn({ sid: P, uuid: u(1), parent: null, text: 'hello', at: '2026-03-01T10:00:00.000Z' })));
    write(
      home,
      claudeFile(F),
      jsonl(
        claudeTurn({ sid: F, uuid: u(2), parent: null, text: 'hello', at: '2026-03-01T10:05:00.000Z' }),
        claudeTurn({ sid: F, uuid: u(3), parent: u(2), text: 'more', at: '2026-03-01T10:06:00.000Z' }),
      ),
    );
    const list = lsJson(home);
    expect(byId(list, F)).toMatchObject({ forkedFrom: null, prompts: 2, firstPrompt: 'hello' });
  });

  it('a fork still links after its parent and itself grow (appends)', () => {
    const home = tempHome();
    write(home, claudeFile(P), jsonl(...history(P)));
    const f = write(
      home,
      claudeFile(F),
      jsonl(...history(F), claudeTurn({ sid: F, uuid: u(10), parent: u(4), text: 'fork own prompt', at: '2026-03-01T11:00:00.000Z' })),
    );
    expect(byId(lsJson(home), F)).toMatchObject({ forkedFrom: P, prompts: 1 });
    require('node:fs').appendFileSync(
      f,
      jsonl(claudeTurn({ sid: F, uuid: u(12), parent: u(10), text: 'fork later prompt', at: '2026-03-01T11:10:00.000Z' })),
    );
    expect(byId(lsJson(home), F)).toMatchObject({
      forkedFrom: P,
      prompts: 2,
      firstPrompt: 'fork own prompt',
      lastPrompt: 'fork later prompt',
    });
  });
});

const PI_DIR = '.pi/agent/sessions/--tmp--';
function piHeader(id: string, ts: string, parent?: string) {
  return { type: 'session', version: 3, id, timestamp: ts, cwd: CWD, ...(parent ? { parentSession: parent } : {}) };
}
function piMsg(id: string, parentId: string | null, role: string, text: string, ts: string) {
  return { type: 'message', id, parentId, timestamp: ts, message: { role, content: [{ type: 'text', text }], timestamp: Date.parse(ts) } };
}

describe('pi forks and clones', () => {
  it('a fork copies the parent entries (older time stamps): only the later prompts are its own', () => {
    const home = tempHome();
    const pfile = write(
      home,
      `${PI_DIR}/2026-03-01T10-00-00-000Z_${P}.jsonl`,
      jsonl(
        piHeader(P, '2026-03-01T10:00:00.000Z'),
        piMsg('e1', null, 'user', 'pi parent prompt', '2026-03-01T10:00:01.000Z'),
        piMsg('e2', 'e1', 'assistant', 'done', '2026-03-01T10:00:02.000Z'),
        piMsg('e3', 'e2', 'user', 'pi parent second', '2026-03-01T10:00:03.000Z'),
        { type: 'session_info', id: 'e4', parentId: 'e3', timestamp: '2026-03-01T10:00:04.000Z', name: 'parent name' },
      ),
    );
    write(
      home,
      `${PI_DIR}/2026-03-01T11-00-00-000Z_${F}.jsonl`,
      jsonl(
        piHeader(F, '2026-03-01T11:00:00.000Z', pfile),
        piMsg('e1', null, 'user', 'pi parent prompt', '2026-03-01T10:00:01.000Z'),
        piMsg('e2', 'e1', 'assistant', 'done', '2026-03-01T10:00:02.000Z'),
        piMsg('e3', 'e2', 'user', 'pi parent second', '2026-03-01T10:00:03.000Z'),
        { type: 'session_info', id: 'e4', parentId: 'e3', timestamp: '2026-03-01T10:00:04.000Z', name: 'parent name' },
        piMsg('f1', 'e4', 'user', 'pi fork prompt', '2026-03-01T11:00:05.000Z'),
        piMsg('f2', 'f1', 'assistant', 'ok', '2026-03-01T11:00:06.000Z'),
        piMsg('f3', 'f2', 'user', 'pi fork second', '2026-03-01T11:00:07.000Z'),
      ),
    );
    const list = lsJson(home);
    expect(byId(list, P)).toMatchObject({ prompts: 2, title: 'parent name', forkedFrom: null });
    expect(byId(list, F)).toMatchObject({
      forkedFrom: P,
      prompts: 2,
      firstPrompt: 'pi fork prompt',
      lastPrompt: 'pi fork second',
      title: 'pi fork prompt',
      started: '2026-03-01T11:00:00.000Z',
      hidden: false,
    });
  });

  it('a clone with nothing of its own yet is hidden as empty, and still linked', () => {
    const home = tempHome();
    const pfile = write(
      home,
      `${PI_DIR}/a_${P}.jsonl`,
      jsonl(
        piHeader(P, '2026-03-01T10:00:00.000Z'),
        piMsg('e1', null, 'user', 'only prompt', '2026-03-01T10:00:01.000Z'),
        piMsg('e2', 'e1', 'user', 'second', '2026-03-01T10:00:02.000Z'),
      ),
    );
    write(
      home,
      `${PI_DIR}/b_${F}.jsonl`,
      jsonl(
        piHeader(F, '2026-03-01T11:00:00.000Z', pfile),
        piMsg('e1', null, 'user', 'only prompt', '2026-03-01T10:00:01.000Z'),
        piMsg('e2', 'e1', 'user', 'second', '2026-03-01T10:00:02.000Z'),
      ),
    );
    expect(byId(lsJson(home), F)).toMatchObject({ forkedFrom: P, prompts: 0, firstPrompt: null, hidden: true, hiddenReason: 'empty' });
  });

  it('the preview names the source by the short id the listing gives it, or by its id among the listed ones when it is gone', () => {
    const home = tempHome();
    const pfile = write(
      home,
      `${PI_DIR}/a_${P}.jsonl`,
      jsonl(piHeader(P, '2026-03-01T10:00:00.000Z'), piMsg('e1', null, 'user', 'the source', '2026-03-01T10:00:01.000Z')),
    );
    write(
      home,
      `${PI_DIR}/b_${F}.jsonl`,
      jsonl(
        piHeader(F, '2026-03-01T11:00:00.000Z', pfile),
        piMsg('e1', null, 'user', 'the source', '2026-03-01T10:00:01.000Z'),
        piMsg('f1', 'e1', 'user', 'the fork', '2026-03-01T11:00:01.000Z'),
      ),
    );
    // the ids share all but their last character: the source's short id is its whole id
    expect(byId(lsJson(home), P).short).toBe(P);
    expect(run(home, ['preview', `pi:${F}`]).stdout).toContain(`fork of ${P}\n`);
    // the source gone: still named, by as much of its id as tells it from the listed ids (F's)
    fs.rmSync(pfile);
    expect(run(home, ['rows']).code).toBe(0);
    expect(run(home, ['preview', `pi:${F}`]).stdout).toContain(`fork of ${P}\n`);
    write(
      home,
      `${PI_DIR}/c_${G}.jsonl`,
      jsonl(
        piHeader(G, '2026-03-02T11:00:00.000Z', path.join(home, PI_DIR, 'gone_019a0000-0000-7000-8000-000000000123.jsonl')),
        piMsg('g1', null, 'user', 'a fork of a file long gone', '2026-03-02T11:00:01.000Z'),
      ),
    );
    expect(run(home, ['rows']).code).toBe(0);
    expect(run(home, ['preview', `pi:${G}`]).stdout).toContain('fork of 019a0000\n');
  });
});
