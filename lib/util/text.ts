// Text hygiene for anything that came out of a transcript.

// C0 controls (except none: tab and newline are replaced too), DEL, C1 controls, and the Unicode
// line/paragraph separators and bidi overrides that can reorder a terminal line.
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;
// ANSI escape sequences (CSI/OSC/…): removed whole so their parameters do not remain as text.
// eslint-disable-next-line no-control-regex
const ANSI = /\u001b(?:\[[0-?]*[ -/]*[@-~]|\][^\u0007\u001b]*(?:\u0007|\u001b\\)|[@-Z\\-_])/g;

/** One line of display text: escapes removed, controls and newlines become spaces, runs folded. */
// eslint-disable-next-line no-control-regex
const CLEAN = /^[^\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]*$/;

export function oneLine(s: string): string {
  // Most values are clean already (the index folds prompts): one test instead of three rewrites.
  if (CLEAN.test(s) && !s.includes('  ')) return s.trim();
  return s.replace(ANSI, '').replace(CONTROL, ' ').replace(/ {2,}/g, ' ').trim();
}

/** Multi-line display text: escapes and controls removed, but newlines kept. */
export function safeText(s: string): string {
  return s
    .replace(ANSI, '')
    .replace(/\r\n?/g, '\n')
    .replace(/\t/g, '  ')
    // eslint-disable-next-line no-control-regex
    .replace(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g, ' ');
}

/** Clip to n characters (code points), adding an ellipsis when cut. */
export function clip(s: string, n: number): string {
  if (s.length <= n) return s;
  const arr = Array.from(s);
  if (arr.length <= n) return s;
  return arr.slice(0, n - 1).join('') + '…';
}

/**
 * A cheap cut of text whose display form is made later with promptText (a reply may be replaced by
 * the next one thousands of times in a session: fold only the one that is kept).
 */
export function rawClip(s: string): string {
  return s.length > 800 ? s.slice(0, 800) : s;
}

/** Clipped, whitespace-folded prompt text for the index (400 characters). */
export function promptText(s: string): string {
  // Only the start can be kept: fold and clip a bounded slice, not a reply of megabytes.
  const head = s.length > 2000 ? s.slice(0, 2000) : s;
  const t = clip(head.replace(/\s+/g, ' ').trim(), 400);
  return head.length < s.length && !t.endsWith('…') ? t + '…' : t;
}

/** Display width of a string in a terminal (wide East Asian characters and emoji count 2). */
export function width(s: string): number {
  let w = 0;
  for (const ch of s) {
    const cp = ch.codePointAt(0)!;
    if (cp < 0x300) w += 1;
    else if (cp >= 0x300 && cp <= 0x36f) w += 0; // combining marks
    else if (isWide(cp)) w += 2;
    else w += 1;
  }
  return w;
}

function isWide(cp: number): boolean {
  return (
    (cp >= 0x1100 && cp <= 0x115f) ||
    (cp >= 0x2e80 && cp <= 0xa4cf && cp !== 0x303f) ||
    (cp >= 0xac00 && cp <= 0xd7a3) ||
    (cp >= 0xf900 && cp <= 0xfaff) ||
    (cp >= 0xfe30 && cp <= 0xfe4f) ||
    (cp >= 0xff00 && cp <= 0xff60) ||
    (cp >= 0xffe0 && cp <= 0xffe6) ||
    (cp >= 0x1f300 && cp <= 0x1faff) ||
    (cp >= 0x20000 && cp <= 0x3fffd)
  );
}

/** Cut to at most `w` display columns (ellipsis when cut). */
export function cut(s: string, w: number): string {
  if (width(s) <= w) return s;
  let out = '';
  let cur = 0;
  for (const ch of s) {
    const cw = width(ch);
    if (cur + cw > w - 1) break;
    out += ch;
    cur += cw;
  }
  return out + '…';
}

/** Pad or cut to exactly `w` display columns. */
export function fit(s: string, w: number): string {
  const c = cut(s, w);
  return c + ' '.repeat(Math.max(0, w - width(c)));
}
