// Prompt text as the index keeps it: folded white space and a clip at 400 code points. The fast
// paths (no fold when there is nothing to fold; counting code points without an array) must give
// what the plain definitions give, for any text.
import { describe, expect, it } from 'vitest';
import { breakAt, clip, cut, promptText, width, wrapWords } from '../lib/util/text.js';

const plainClip = (s: string, n: number): string => {
  const arr = Array.from(s);
  return arr.length <= n ? s : `${arr.slice(0, n - 1).join('')}…`;
};
const plainPrompt = (s: string): string => {
  const head = s.length > 2000 ? s.slice(0, 2000) : s;
  const t = plainClip(head.replace(/\s+/g, ' ').trim(), 400);
  return head.length < s.length && !t.endsWith('…') ? `${t}…` : t;
};

// a deterministic generator of awkward text: spaces of every kind, surrogate pairs, lone surrogates
function* texts(): Generator<string> {
  const parts = ['a', 'word ', ' ', '  ', '\t', '\n', '\r\n', '\u00a0', '\u2028', '\ufeff', '😀', '\ud83d', '\ude00', 'é', '中文', '…'];
  let seed = 7;
  const next = () => (seed = (seed * 1103515245 + 12345) % 2147483648);
  for (let k = 0; k < 600; k++) {
    const len = [0, 1, 5, 399, 400, 401, 402, 1999, 2000, 2001, 3000][k % 11];
    let s = '';
    while (s.length < len) s += parts[next() % parts.length];
    yield s.slice(0, len);
  }
}

describe('clip', () => {
  it('cuts at code points as Array.from counts them, around the limit', () => {
    for (const s of texts()) for (const n of [1, 2, 3, 399, 400, 401]) expect(clip(s, n)).toBe(plainClip(s, n));
    expect(clip('😀'.repeat(400), 400)).toBe('😀'.repeat(400));
    expect(clip('😀'.repeat(401), 400)).toBe(`${'😀'.repeat(399)}…`);
    expect(clip(`${'x'.repeat(399)}\ud83d`, 400)).toBe(`${'x'.repeat(399)}\ud83d`);
  });
});

describe('promptText', () => {
  it('folds and clips as the plain definition does', () => {
    let folded = 0;
    for (const s of texts()) {
      const t = promptText(s);
      expect(t).toBe(plainPrompt(s));
      if (t !== s.trim()) folded++;
    }
    expect(folded).toBeGreaterThan(100);
    expect(promptText('  fix\tthe\n\nbuild  ')).toBe('fix the build');
    expect(promptText('one two')).toBe('one two');
  });
});

describe('display width', () => {
  it('counts what a terminal shows: wide characters and emoji 2, a family emoji one grapheme, marks 0', () => {
    expect(width('webshop')).toBe(7);
    expect(width('☕')).toBe(2);
    expect(width('👨‍👩‍👧')).toBe(2);
    expect(width('日本語')).toBe(6);
    expect(width('Cafe\u0301')).toBe(4);
  });

  it('cuts between graphemes, never inside one', () => {
    expect(cut('👨‍👩‍👧👨‍👩‍👧👨‍👩‍👧', 5)).toBe('👨‍👩‍👧👨‍👩‍👧…');
    expect(width(cut('日本語のタイトル', 7))).toBeLessThanOrEqual(7);
    expect(cut('webshop-admin', 8)).toBe('webshop…');
  });

  it('breaks a line into a first row that fits, at its last space, and the rest', () => {
    expect(breakAt('Fix cart total rounding', 30)).toEqual(['Fix cart total rounding', '']);
    expect(breakAt('Fix cart total rounding', 14)).toEqual(['Fix cart total', 'rounding']);
    // a space right after the row: all of it fits
    expect(breakAt('Fix cart total rounding', 8)).toEqual(['Fix cart', 'total rounding']);
    // no space to break at: inside the word
    expect(breakAt('webhookretrierbackoff', 10)).toEqual(['webhookret', 'rierbackoff']);
    // by columns, never inside a grapheme
    const [row, rest] = breakAt('日本語の タイトルを直す', 9);
    expect(row).toBe('日本語の');
    expect(rest).toBe('タイトルを直す');
    expect(width(breakAt('日本語のタイトルを直す', 7)[0])).toBeLessThanOrEqual(7);
    expect(breakAt('👨‍👩‍👧👨‍👩‍👧👨‍👩‍👧', 5)).toEqual(['👨‍👩‍👧👨‍👩‍👧', '👨‍👩‍👧']);
  });

  it('wraps text at spaces, the first line to its own width, a long text as a short one', () => {
    expect(wrapWords('Fix cart total rounding in the checkout', 14, 10)).toEqual(['Fix cart', 'total rounding', 'in the', 'checkout']);
    expect(wrapWords('short', 40)).toEqual(['short']);
    // no width to wrap to (a terminal of a few columns, less an indent): as it is
    for (const [w, first] of [
      [0, 0],
      [-3, 5],
      [5, 0],
    ])
      expect(wrapWords('a few words here', w, first)).toEqual(['a few words here']);
    // a pasted log of thousands of words on one line (each line is found in a window of what is left)
    const words = Array.from({ length: 5000 }, (_, i) => `word${i % 97}${'x'.repeat(i % 7)}`);
    const lines = wrapWords(words.join(' '), 40);
    for (const l of lines) expect(width(l)).toBeLessThanOrEqual(40);
    expect(lines.join(' ')).toBe(words.join(' '));
    // text with no spaces (Japanese): by columns, between graphemes, nothing lost
    const ja = '日本語のタイトルを直す'.repeat(300);
    const jaLines = wrapWords(ja, 41);
    for (const l of jaLines) expect(width(l)).toBeLessThanOrEqual(41);
    expect(jaLines.join('')).toBe(ja);
    expect(wrapWords(`${'a'.repeat(100)} end`, 30)).toEqual(['a'.repeat(30), 'a'.repeat(30), 'a'.repeat(30), `${'a'.repeat(10)} end`]);
  });
});
