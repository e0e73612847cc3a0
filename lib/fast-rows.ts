// `resume rows` without the CLI framework: bin/resume imports this single bundled file directly
// when its first argument is `rows` (every listing and every fzf reload runs it). Options are
// parsed with Node's `util.parseArgs`; anything it does not take falls back to the full CLI.
import path from 'node:path';
import { parseArgs } from 'node:util';
import { fileURLToPath } from 'node:url';
import { makeApp, ExitError } from './app.js';
import { rowsAction } from './commands/rows.js';

export async function main(argv: string[]): Promise<boolean> {
  let values: { all?: boolean; harness?: string; dir?: string; demo?: boolean };
  try {
    values = parseArgs({
      args: argv.slice(1),
      options: { all: { type: 'boolean', short: 'a' }, harness: { type: 'string' }, dir: { type: 'string' }, demo: { type: 'boolean' } },
      strict: true,
      allowPositionals: false,
    }).values;
  } catch {
    return false;
  }
  const app = makeApp({ demo: !!values.demo, distDir: path.dirname(fileURLToPath(import.meta.url)) });
  try {
    await rowsAction(app, values);
  } catch (err) {
    if (err instanceof ExitError) {
      process.stderr.write(`resume: ${err.message.replace(/\s*\n\s*/g, ' ').trim()}\n`);
      process.exit(err.code);
    }
    if (err && (err as NodeJS.ErrnoException).code === 'EPIPE') process.exit(0);
    process.stderr.write(`resume: internal error: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(2);
  }
  return true;
}
