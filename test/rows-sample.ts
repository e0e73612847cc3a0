// Sessions for the tests of what is written from rows.bin's bytes (printAligned, printCandidates):
// plain ASCII rows and every kind that is not (wide and combining characters, labels that end in a
// blank or are empty, snapshot names, ids out of ASCII), with titles of every length around the
// candidates' clip.

import { byRecency } from '../lib/index/index.js';
import { type RowBin, readRowBin, rowBinChunks } from '../lib/index/rowbin.js';
import type { Harness, Session } from '../lib/types.js';
import { must } from './helpers.js';

export const home = '/home/u';
export const now = Date.parse('2026-06-01T00:00:00Z');
export const uuid = (n: number) => `${String(n).padStart(8, '0')}-3333-4333-8333-333333333333`;

export function mk(n: number, o: Partial<Session> = {}): Session {
  const harness: Harness = (['claude', 'pi', 'codex'] as const)[n % 3];
  const t = n % 11 === 0 ? null : now - n * 3_600_000;
  return {
    key: `${harness}:${uuid(n)}`,
    id: uuid(n),
    harness,
    cwd: `/home/u/p${n}`,
    title: `title ${n}`,
    firstPrompt: `title ${n}`,
    lastPrompt: null,
    lastReply: null,
    prompts: 1,
    branch: n % 4 === 0 ? null : `b${n}`,
    model: null,
    started: t,
    updated: t,
    file: `/f/${n}`,
    hidden: n % 5 === 0,
    hiddenReason: n % 5 === 0 ? 'empty' : null,
    parent: null,
    forkedFrom: null,
    ...o,
  } as Session;
}

/** an untitled Claude session (its snapshot name, when `names` has one, replaces the label) */
const untitled = (n: number) => mk(n, { harness: 'claude', key: `claude:${uuid(n)}`, title: null } as Partial<Session>);

export const odd: Session[] = [
  mk(1),
  mk(2, { cwd: '/srv/日本語のプロジェクト', title: 'ascii title' }),
  mk(3, { branch: 'feature/漢字-branch', title: '表の題' }),
  mk(4, { cwd: '/home/u/cafe\u0301', title: 'combining' }),
  mk(6, { title: 'ends in a space ', firstPrompt: 'ends in a space ' }),
  mk(7, { title: 'ends in nbsp\u00a0', firstPrompt: 'ends in nbsp\u00a0' }),
  mk(8, { title: null, firstPrompt: null } as Partial<Session>),
  mk(9, { cwd: null } as Partial<Session>),
  mk(10, { cwd: `/home/u/${'deep/'.repeat(12)}x`, branch: 'a-branch-name-longer-than-the-cap-of-24' }),
  mk(13, { cwd: `/home/u/${'deep/'.repeat(30)}x`, branch: 'a-branch-name-longer-than-usual' }),
  untitled(12),
  untitled(15),
  untitled(18),
  untitled(21),
  untitled(24),
  mk(19, { id: 'ABCDEF12-upper', key: 'pi:ABCDEF12-upper', harness: 'pi' } as Partial<Session>),
  // an id out of ASCII that lower-cases into ASCII (the Kelvin sign: `k`)
  mk(22, { id: '\u212aelvin-22', key: 'pi:\u212aelvin-22', harness: 'pi' } as Partial<Session>),
  mk(23, { title: `${'wide 表 '.repeat(20)}end` }),
  ...Array.from({ length: 30 }, (_, i) => mk(30 + i)),
  // titles of every length from 40 to 124 characters: with the rest of a candidate's description, each side of its clip
  ...Array.from({ length: 85 }, (_, i) => mk(60 + i, { title: `${'word '.repeat(30).slice(0, 40 + i)}x` })),
];
/** the snapshot names: one with a trailing blank, one wide, one long */
export const names = {
  [uuid(12)]: 'named session',
  [uuid(15)]: 'trailing blank ',
  [uuid(18)]: '名前',
  [uuid(24)]: `${'a long snapshot name '.repeat(8)}`,
};

/** rows.bin of these sessions, as a build writes it, read back. */
export function render(ss: Session[]): RowBin {
  const sorted = [...ss].sort(byRecency);
  return must(
    readRowBin(
      Buffer.concat(
        must(
          rowBinChunks(
            'b',
            home,
            sorted.map((s) => ({ s, short: s.id.slice(0, 8) })),
          ),
        ),
      ),
    ),
  );
}
