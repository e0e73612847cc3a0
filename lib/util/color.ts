// Whether output carries colour: the one decision, for every command and the picker; and the
// escapes that make it.
// Colour only where a terminal shows it, never with NO_COLOR (https://no-color.org: any non-empty
// value); FORCE_COLOR (other than 0) turns it on where no terminal is seen.

/** NO_COLOR is set to a non-empty value. */
export function noColor(env: NodeJS.ProcessEnv = process.env): boolean {
  return env.NO_COLOR != null && env.NO_COLOR !== '';
}

/**
 * Colour for output that a terminal shows when `shown` is true (stdout is a TTY, or fzf renders the
 * text on the terminal: its list, its preview window).
 */
export function colorOn(shown: boolean, env: NodeJS.ProcessEnv = process.env): boolean {
  if (noColor(env)) return false;
  if (env.FORCE_COLOR && env.FORCE_COLOR !== '0') return true;
  return shown;
}

// The escapes (SGR, ECMA-48): the one place they are spelled. (lib/util/text.ts strips any that come
// from a transcript.)
export const RESET = '\x1b[0m';
export const BOLD = '\x1b[1m';
export const DIM = '\x1b[2m';
/** a search term where it occurs: bold green, as fzf marks a match */
export const MATCH = '\x1b[1;32m';
/** a matched word in a search's evidence: bold yellow (docs/search.md) */
export const EVIDENCE = '\x1b[1;33m';

/** Foreground colour `c` of xterm's 256. */
export function fg256(c: number): string {
  return `\x1b[38;5;${c}m`;
}

/** Back to the line's start and erase it (a progress line redrawn in place). */
export const REDRAW = '\r\x1b[K';
