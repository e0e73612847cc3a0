// Reading the links of a transcript tree from the bytes of its lines (deep search's branch pass):
// a key's string value found without decoding the line, when the key occurs once in it.

export const bytes = (s: string) => Buffer.from(s);

/** The value of the first `"key":"…"` in a line (for formats that write their own keys first); null when absent. */
export function firstString(line: Buffer, key: Buffer): string | null {
  const i = line.indexOf(key);
  if (i < 0) return null;
  const b = line.indexOf(0x22, i + key.length);
  return b < 0 ? null : line.toString('latin1', i + key.length, b);
}

/** The first `"key":null` or `"key":"…"` in a line: the value (null for JSON null); `undefined` when absent. */
export function firstLink(line: Buffer, key: Buffer): string | null | undefined {
  const i = line.indexOf(key);
  if (i < 0) return undefined;
  const a = i + key.length;
  if (line[a] === 0x6e) return null;
  if (line[a] !== 0x22) return undefined;
  const b = line.indexOf(0x22, a + 1);
  return b < 0 ? undefined : line.toString('latin1', a + 1, b);
}

/** `line` holds `b[s, e)` at `at` (a loop: Buffer#compare's checks cost more than these few bytes) */
export function same(line: Buffer, at: number, b: Buffer, s: number, e: number): boolean {
  if (at < 0 || at + e - s > line.length) return false;
  for (let i = s; i < e; i++) if (line[at + i - s] !== b[i]) return false;
  return true;
}
