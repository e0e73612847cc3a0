// Whether output carries colour: the one decision, for every command and the picker.
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
