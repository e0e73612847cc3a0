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
