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

/**
 * A branch reader's chain: the ids of a transcript's records while each is the child of the one
 * before (a session that never branched), kept as bytes, so that the next record's link is compared
 * with the last id where it lies in its line, without a string or a map entry per record.
 */
export class IdChain {
  private ids = Buffer.allocUnsafe(1024);
  private ends: number[] = [];

  get length(): number {
    return this.ends.length;
  }

  /** Bytes `from[a, b)` as the next id. */
  push(from: Buffer, a: number, b: number): void {
    const end = this.ends.at(-1) ?? 0;
    if (end + b - a > this.ids.length) {
      const grown = Buffer.allocUnsafe(2 * (end + b - a));
      this.ids.copy(grown, 0, 0, end);
      this.ids = grown;
    }
    from.copy(this.ids, end, a, b);
    this.ends.push(end + b - a);
  }

  /** Id `i` as text. */
  id(i: number): string {
    return this.ids.toString('latin1', i ? this.ends[i - 1] : 0, this.ends[i]);
  }

  /** The last id as text; null when there is none. */
  last(): string | null {
    return this.ends.length ? this.id(this.ends.length - 1) : null;
  }

  /** `line` holds the last id at `at`, its closing quote right after it and before `within`. */
  lastAt(line: Buffer, at: number, within = line.length): boolean {
    const n = this.ends.length;
    const e = this.ends[n - 1];
    if (e === undefined) return false;
    const s = this.ends[n - 2] ?? 0;
    const q = at + e - s;
    return q < within && line[q] === 0x22 && same(line, at, this.ids, s, e);
  }
}
