// Version comparison for `resume doctor`: an installed client newer than its adapter's
// `testedVersion` is reported as possible drift.

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
