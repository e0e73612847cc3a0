// Version comparison for `resume doctor`: an installed client newer than its adapter's
// `testedVersion` is reported as possible drift.

/** <0, 0, >0 like a comparator over numeric parts; missing parts count as 0 (2.1 == 2.1.0). */
export function compareVersions(a: number[], b: number[]): number {
  for (let i = 0; i < Math.max(a.length, b.length); i++) {
    const d = (a[i] ?? 0) - (b[i] ?? 0);
    if (d) return d;
  }
  return 0;
}

/** Compare dotted versions numerically (`0.171.0` > `0.99.3`); non-numeric parts compare as 0. */
export function newerThan(a: string, b: string): boolean {
  const parts = (v: string) => v.split(/[.+-]/).map((x) => Number.parseInt(x, 10) || 0);
  return compareVersions(parts(a), parts(b)) > 0;
}
