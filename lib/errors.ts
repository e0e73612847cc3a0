// Errors that end a command: one line on stderr and the exit code DESIGN.md gives it. A module of
// its own, so pure modules (fzf flags, launch planning) can fail without importing the app container.

/** An error that ends the command with one line on stderr and this exit code (DESIGN.md). */
export class ExitError extends Error {
  constructor(
    public code: number,
    message: string,
  ) {
    super(message);
  }
}

/** A usage error (exit 2). */
export const usage = (msg: string) => new ExitError(2, msg);

/** End the run with one line on stderr and its exit code (an empty message: quietly, as the picker's cancel). */
function fail(code: number, msg: string): never {
  if (msg) process.stderr.write(`resume: ${msg.replace(/\s*\n\s*/g, ' ').trim()}\n`);
  process.exit(code);
}

/**
 * The one way a run ends on an error, on the lean path and in the CLI alike: an ExitError with its
 * code, commander's usage errors with 2 (its --help and --version with 0), a closed pipe quietly
 * with 0, anything else as an internal error with 2. (Commander's errors are told by their code, so
 * the lean path needs no commander to tell them.)
 */
export function exitOn(err: unknown): never {
  if (err instanceof ExitError) fail(err.code, err.message);
  const code = (err as { code?: unknown } | null)?.code;
  if (typeof code === 'string' && code.startsWith('commander.')) {
    if (code === 'commander.helpDisplayed' || code === 'commander.version' || code === 'commander.help') process.exit(0);
    fail(2, (err as Error).message.replace(/^error: /, ''));
  }
  if (code === 'EPIPE') process.exit(0);
  fail(2, `internal error: ${err instanceof Error ? err.message : String(err)}`);
}
