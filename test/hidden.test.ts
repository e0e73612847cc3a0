// pi's rule for a print run (it writes no marker): hidden as headless only when every prompt came in
// the burst that started the session, each straight after the entry before it. The recorded files
// (real-fixtures.test.ts) have replies of a few milliseconds; these have the gaps a real model makes.
import { describe, expect, it } from 'vitest';
import { byId, jsonl, lsJson, tempHome, write } from './helpers.js';

const T0 = Date.parse('2026-03-01T10:00:00.000Z');
const at = (ms: number) => new Date(T0 + ms).toISOString();

/** A pi session: its header at T0, then entries at the given offsets (ms). */
function pi(home: string, id: string, entries: object[], withTimes = true): void {
  const header = { type: 'session', version: 3, id, timestamp: withTimes ? at(0) : undefined, cwd: '/w/p' };
  write(home, `.pi/agent/sessions/--w-p--/2026-03-01T10-00-00-000Z_${id}.jsonl`, jsonl(header, ...entries));
}
const user = (id: string, text: string, ms: number | null) => ({
  type: 'message',
  id,
  parentId: null,
  ...(ms == null ? {} : { timestamp: at(ms) }),
  message: { role: 'user', content: [{ type: 'text', text }], ...(ms == null ? {} : { timestamp: T0 + ms }) },
});
/** A reply that began at `began` and was written when it ended, at `ms` (pi's entry time). */
const reply = (id: string, began: number | null, ms: number | null) => ({
  type: 'message',
  id,
  parentId: null,
  ...(ms == null ? {} : { timestamp: at(ms) }),
  message: { role: 'assistant', content: [{ type: 'text', text: 'ok' }], model: 'm', ...(began == null ? {} : { timestamp: T0 + began }) },
});
const named = (name: string, ms: number) => ({ type: 'session_info', id: 'n', parentId: null, timestamp: at(ms), name });

describe('pi: print run or a person', () => {
  it('a second message sent when a 30-second reply was written is in the burst; one typed after it is not', () => {
    const home = tempHome();
    // `pi -p A B`: B goes as soon as A's reply is written, 30 s after that reply began
    pi(home, 'p1', [user('u1', 'A', 40), reply('a1', 100, 30_100), user('u2', 'B', 30_110), reply('a2', 30_120, 31_000)]);
    // `pi "A"`, then B typed 4 s after the reply
    pi(home, 'p2', [user('u1', 'A', 40), reply('a1', 100, 30_100), user('u2', 'B', 34_100), reply('a2', 34_200, 35_000)]);
    // typed from the start
    pi(home, 'p3', [user('u1', 'A', 5_000), reply('a1', 5_100, 6_000)]);
    // `pi -p A`, then named with /name in a later session: a person named it
    pi(home, 'p4', [user('u1', 'A', 40), reply('a1', 100, 900), named('kept', 60_000)]);
    // no times at all: one prompt is taken for a print run, two for a person's session
    pi(home, 'p5', [user('u1', 'A', null), reply('a1', null, null)], false);
    pi(home, 'p6', [user('u1', 'A', null), reply('a1', null, null), user('u2', 'B', null)], false);
    const list = lsJson(home);
    expect(['p1', 'p2', 'p3', 'p4', 'p5', 'p6'].map((id) => byId(list, id).hiddenReason)).toEqual([
      'headless',
      null,
      null,
      null,
      'headless',
      null,
    ]);
    expect(
      lsJson(home, {}, [])
        .map((s) => s.id)
        .sort(),
    ).toEqual(['p2', 'p3', 'p4', 'p6']);
  });
});
