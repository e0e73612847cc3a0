// The text a command's help prints after its options (the command table's `after`), flowed to the
// terminal's width as commander flows the options above it: written once, read at 80 columns or
// 200. Prose lines are joined into paragraphs and wrapped again (a line that begins `Exit ` starts
// its own); a `  term   description` line wraps its description under itself; any other indented
// line (a config example, a comment after code) is kept as written.
import { width as cells } from '../util/text.js';

/** The width help is flowed to when not a terminal, and the most prose is ever given. */
export const HELP_WIDTH = 80;

let fixed: number | null = null;

/** Flow every help text to `n` columns whatever the terminal (the man page: the same on every machine). */
export function fixHelpWidth(n: number | null): void {
  fixed = n;
}

/** The columns help is flowed to: the terminal's, up to HELP_WIDTH (prose wider than that is hard to read). */
export function helpWidth(): number {
  if (fixed !== null) return fixed;
  const cols = process.stdout.isTTY ? process.stdout.columns : 0;
  return cols > 0 ? Math.min(cols, HELP_WIDTH) : HELP_WIDTH;
}

/** `text` in lines of at most `w` cells, broken at spaces (a word longer than that has a line of its own). */
function wrap(text: string, w: number): string[] {
  const out: string[] = [];
  let line = '';
  for (const word of text.split(/ +/)) {
    if (!word) continue;
    if (line && cells(line) + 1 + cells(word) > w) {
      out.push(line);
      line = word;
    } else line = line ? `${line} ${word}` : word;
  }
  if (line) out.push(line);
  return out;
}

/** A `  term   description` line: its term (with its indent), the gap, and the description. */
const ITEM = /^( {2}\S(?:\S| (?! ))*)( {2,})([^\s#].*)$/;

export function flowHelp(text: string, w = helpWidth()): string {
  const out: string[] = [];
  let para: string[] = [];
  const flush = () => {
    if (para.length) out.push(...wrap(para.join(' '), w));
    para = [];
  };
  for (const line of text.split('\n')) {
    if (line.trim() === '') {
      flush();
      out.push('');
    } else if (!line.startsWith(' ')) {
      if (line.startsWith('Exit ')) flush();
      para.push(line.trim());
    } else {
      flush();
      const item = ITEM.exec(line);
      if (!item || cells(line) <= w) {
        out.push(line);
        continue;
      }
      const col = item[1].length + item[2].length;
      // (a column too narrow to wrap into: the description goes on under the term instead)
      if (w - col >= 20) {
        const lines = wrap(item[3], w - col);
        out.push(`${item[1]}${item[2]}${lines[0]}`, ...lines.slice(1).map((l) => ' '.repeat(col) + l));
      } else out.push(item[1], ...wrap(item[3], w - 4).map((l) => `    ${l}`));
    }
  }
  flush();
  return out.join('\n');
}
