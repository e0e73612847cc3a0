// Keys from stdin, for the stages that take KEY when given none (`resume rows | fzf | resume emit`,
// `resume resolve WORDS | resume emit`). A line is a key, or a whole row (the key is its first
// tab-separated field); blank lines and lines with an empty first field (a status line) are skipped.
// Split into lines by split2, loaded only when stdin is read.

/** The key a line carries, or null. */
export function keyOfLine(line: string): string | null {
  const k = line.split('\t', 1)[0].trim();
  return k === '' ? null : k;
}

/** Every key on stdin, in order; [] when stdin is a terminal (nothing was piped in). */
export async function stdinKeys(stdin: NodeJS.ReadStream = process.stdin): Promise<string[]> {
  if (stdin.isTTY) return [];
  const { default: split2 } = await import('split2');
  const keys: string[] = [];
  // split2 splits on /\r?\n/ by default, so CRLF input gives the same keys
  for await (const line of stdin.pipe(split2()) as AsyncIterable<string>) {
    const k = keyOfLine(line);
    if (k != null) keys.push(k);
  }
  return keys;
}
