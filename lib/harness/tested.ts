// The newest client version each adapter was checked against: the versions whose transcripts are
// recorded in test/fixtures/real/ (kept in sync with test/real/clients.json; the fixture tests
// check it). `resume doctor` reports an installed client newer than this as possible drift.
import type { Harness } from '../types.js';

export const TESTED: Record<Harness, string | null> = {
  claude: '2.1.332',
  codex: '0.171.0',
  pi: '0.73.1',
  opencode: '1.18.33',
  gemini: '0.61.0',
  // Cursor CLI is not on npm: no recorded version
  cursor: null,
};

/** Compare dotted versions numerically (`0.171.0` > `0.99.3`); non-numeric parts compare as 0. */
export function newerThan(a: string, b: string): boolean {
  const pa = a.split(/[.+-]/).map((x) => Number.parseInt(x, 10) || 0);
  const pb = b.split(/[.+-]/).map((x) => Number.parseInt(x, 10) || 0);
  for (let i = 0; i < Math.max(pa.length, pb.length, 3); i++) {
    const d = (pa[i] ?? 0) - (pb[i] ?? 0);
    if (d !== 0) return d > 0;
  }
  return false;
}

/** The first dotted version number in a `--version` line (`2.1.332 (Claude Code)`, `codex-cli 0.171.0`). */
export function versionIn(line: string | null): string | null {
  const m = line ? /(\d+\.\d+(?:\.\d+)?)/.exec(line) : null;
  return m ? m[1]! : null;
}
