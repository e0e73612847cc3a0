// The picker's own commands, for the shell integration and for fzf's callbacks (hidden from help):
//
//   resume __pick [QUERY...]            the picker; prints the chosen session's id (130 on cancel)
//   resume __fzf-flags picker|tab       the fzf flags of a context, one shell-quoted line (bash/zsh
//                                       quoting). Whoever runs fzf with the picker flags sets
//                                       RESUME_PICK_DIR to a fresh private directory and, for fzf
//                                       before 0.51 (no --with-shell), SHELL=sh.
//   resume __feed [--toggle-hidden|--next-harness|--search Q]
//                                       the picker's list after a key changed its state
//                                       (needs $RESUME_PICK_DIR, set by the picker for fzf)
import type { Command } from 'commander';
import type { App } from '../app.js';
import { ExitError, usage } from '../errors.js';
import { filtersOf, out, withFilters, type FilterOpts } from './common.js';
import { pick, flagsFor } from '../../fzf/picker.js';
import { quotePosix } from '../util/quote.js';
import { alignRows, feedLines, listColor, nextHarness, readState, writeState, type PickState } from '../../fzf/feed.js';
import { oneLine } from '../util/text.js';
import { findSession } from './preview.js';
import { renderTranscript, transcriptPieces } from '../../fzf/transcript.js';
import { loadExtractors } from '../search/registry.js';
import { spawn, spawnSync } from 'node:child_process';

/** Text into `$PAGER` (default less) on the terminal; straight to stdout when that is not a terminal. */
async function page(text: string): Promise<void> {
  if (!process.stdout.isTTY) {
    out(text);
    return;
  }
  const pager = process.env.PAGER?.trim() || 'less';
  const child = spawn('sh', ['-c', pager], { stdio: ['pipe', 'inherit', 'inherit'] });
  child.stdin.on('error', () => {
    /* the pager quit before reading everything */
  });
  child.stdin.end(text);
  await new Promise<void>((resolve, reject) => {
    child.on('error', reject);
    child.on('close', () => resolve());
  });
}

/** `resume search --rows QUERY` with the picker's filters, as picker lines under a status line. */
function deepSearchLines(app: App, query: string, state: PickState): string[] {
  const args = [app.self, ...(app.demo ? ['--demo'] : []), 'search', '--rows'];
  if (state.all) args.push('--all');
  if (state.harness) args.push('--harness', state.harness.join(','));
  if (state.dir) args.push('--dir', state.dir);
  args.push('--', query);
  const r = spawnSync(process.execPath, args, { encoding: 'utf8', maxBuffer: 256 << 20, stdio: ['ignore', 'pipe', 'pipe'] });
  const rows = (r.stdout ?? '').split('\n').filter((l) => l.includes('\t')).map((l) => l.split('\t'));
  const q = oneLine(query);
  let status: string;
  if (rows.length) status = `deep search: ${q} · ${rows.length} session${rows.length === 1 ? '' : 's'} (best first)`;
  else if (r.status === 1 || r.status === 0) status = `deep search: ${q} · no session mentions it`;
  else status = `deep search failed: ${oneLine((r.stderr ?? '').replace(/^resume: /, '')) || `exit ${r.status ?? r.signal}`}`;
  return ['\t' + status, ...alignRows(rows, listColor(process.env))];
}

export function register(program: Command, app: App): void {
  withFilters(program.command('__pick', { hidden: true }).description('pick a session in fzf and print its id'))
    .argument('[query...]', 'the initial query')
    .action(async (query: string[], o: FilterOpts) => {
      const r = await pick(app, { query: query.join(' '), filters: filtersOf(o) });
      if (r.kind === 'cancel') {
        // Esc / Ctrl-C: quiet, like fzf itself
        process.exitCode = 130;
        return;
      }
      if (r.kind === 'nomatch') throw new ExitError(1, 'nothing picked');
      const s = await findSession(app, r.key);
      if (!s) throw new ExitError(1, 'the picked session is gone');
      out(s.id + '\n');
    });

  program
    .command('__fzf-flags', { hidden: true })
    .description('the fzf flags for a context (picker or tab), one shell-quoted line')
    .argument('<context>', 'picker or tab')
    .action((context: string) => {
      if (context !== 'picker' && context !== 'tab') throw usage(`__fzf-flags takes picker or tab, not '${context}'`);
      const f = flagsFor(app, context);
      out(f.args.map(quotePosix).join(' ') + '\n');
    });

  program
    .command('__transcript', { hidden: true })
    .description('the whole transcript of one session, readable and redacted, in $PAGER')
    .argument('<key>', 'harness:id')
    .action(async (key: string) => {
      const s = await findSession(app, key);
      if (!s) throw new ExitError(1, 'no such session');
      let pieces;
      await loadExtractors();
      try {
        pieces = transcriptPieces(s);
      } catch (err) {
        throw new ExitError(2, `cannot read the transcript: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
      }
      await page(renderTranscript(s, pieces, app.ctx.home));
    });

  program
    .command('__feed', { hidden: true })
    .description("the picker's list after a key changed its state (fzf reload)")
    .option('--toggle-hidden', 'show or hide hidden sessions')
    .option('--next-harness', 'the next harness filter: all, then each harness, then all')
    .option('--search <query>', 'deep-search results for the query (resume search --rows); empty: the list')
    .action(async (o: { toggleHidden?: boolean; nextHarness?: boolean; search?: string }) => {
      const dir = process.env.RESUME_PICK_DIR;
      if (!dir) throw usage('__feed runs inside the picker only (RESUME_PICK_DIR is not set)');
      const state = readState(dir);
      if (o.search != null && o.search.trim() !== '') {
        out(deepSearchLines(app, o.search, state).join('\n') + '\n');
        return;
      }
      const all = (await app.index({ quiet: true })).sessions;
      if (o.toggleHidden) state.all = !state.all;
      if (o.nextHarness) state.harness = nextHarness(state.harness, all);
      writeState(dir, state);
      out(feedLines(all, state, app.ctx.home, listColor(process.env)).join('\n') + '\n');
    });
}
