// resume search WORDS... — deep full-text search over whole transcripts, ranked, with evidence.
import type { App } from '../app.js';
import { ExitError, usage } from '../errors.js';
import { harnessColor, label, row, useColor } from '../output.js';
import { labelledEvidence, wrapLabelled } from '../present/evidence.js';
import type { Term } from '../search/query.js';
import { parseQuery } from '../search/query.js';
import type { SearchStats } from '../search/read.js';
import { prestart, runSearch, searchFromIndex } from '../search/run.js';
import type { Result } from '../search/search.js';
import { applyFilters, type Filters } from '../select/filter.js';
import { pathWords } from '../select/rank.js';
import type { Session } from '../types.js';
import { BOLD, DIM, RESET } from '../util/color.js';
import { boundHeapGrowth } from '../util/gc.js';
import { stdoutColumns } from '../util/lazy.js';
import { tildify } from '../util/paths.js';
import { progressBar } from '../util/progress.js';
import { writeJsonArray } from '../util/stdout.js';
import { clip, cutDir, oneLine, width } from '../util/text.js';
import { iso, localTime, parseDuration } from '../util/time.js';
import { type FilterOpts, filtersOf, givenFilters, note, out } from './common.js';
import type { Call } from './table.js';

interface SearchOpts extends FilterOpts {
  json?: boolean;
  rows?: boolean;
  copy?: boolean;
  since?: string;
  until?: string;
  n?: number;
  /** the words that were paths (a directory each, not an option: rank.ts pathWords) */
  paths?: string[];
}

/**
 * `7d`, `3w`, `12h`, `2mo`, `1y` (that long before now), `2026-01-31` (local midnight; as an upper
 * bound the end of that day), or an ISO date-time.
 */
export function parseWhen(v: string, end: boolean, now = Date.now()): number {
  const ago = parseDuration(v);
  if (ago != null) return now - ago;
  const day = /^(\d{4})-(\d{2})-(\d{2})$/.exec(v.trim());
  if (day) {
    const d = new Date(Number(day[1]), Number(day[2]) - 1, Number(day[3]));
    if (!Number.isNaN(d.getTime()) && d.getMonth() === Number(day[2]) - 1) return end ? d.getTime() + 86400e3 - 1 : d.getTime();
  } else {
    const t = Date.parse(v);
    if (!Number.isNaN(t) && /^\d{4}-\d{2}-\d{2}[T ]/.test(v.trim())) return t;
  }
  throw usage(`cannot read '${v}' as a date (use 2026-01-31, an ISO date-time, or 7d / 3w / 12h / 2mo)`);
}

/** why a result is hidden from the listing, as its label says it */
const HIDDEN_LABEL: Record<string, string> = {
  subagent: 'worker',
  sdk: 'SDK',
  exec: 'exec',
  mcp: 'MCP',
  archived: 'archived',
  headless: 'headless',
  empty: 'empty',
};

function count(n: number, one: string, many = `${one}s`): string {
  return `${n} ${n === 1 ? one : many}`;
}

export async function run(app: App, call: Call): Promise<void> {
  const putBack = boundHeapGrowth();
  try {
    await search(app, call);
  } finally {
    putBack();
  }
}

async function search(app: App, call: Call): Promise<void> {
  const [given] = call.args as [string[]];
  const o = call.opts as SearchOpts;
  const base = filtersOf(o);
  // a word that is a path (`.`, `~/src/shop`) is a directory, as --dir is (rank.ts Term.dir)
  const { dir, rest: words, paths } = pathWords(given, app.ctx.home, base.dir);
  const filters = {
    ...base,
    dir,
    since: o.since ? parseWhen(o.since, false) : undefined,
    until: o.until ? parseWhen(o.until, true) : undefined,
  };
  o.paths = paths;
  const terms = parseQuery(words, !!o.rows);
  if (terms.length > 31) throw usage('at most 31 words or phrases');
  // only the best results shown: only they need reading for their evidence (search.ts searchTop)
  // (not for --copy: the one best result is what it is for, so every session is read)
  const top = o.rows || o.copy ? undefined : shownAtMost(o);
  // no filter but hidden sessions': the index's group map may answer without the listing (run.ts)
  if (terms.length > 0 && !o.harness && !filters.dir && !o.since && !o.until) {
    const t0 = Date.now();
    const bar = o.rows ? null : progressBar('searching', undefined, 'sessions');
    const got = await searchFromIndex(app, terms, { progress: bar?.update, evidence: !o.rows, top }).finally(() => bar?.end());
    if (got) {
      await report(app, { o, terms, results: got.results, stats: got.stats, short: (s) => got.shorts.get(s.id) ?? s.id, t0 });
      return;
    }
  }
  // the worker threads start while the listing loads (stopped unused for a small corpus)
  const workers = terms.length > 0 ? prestart(app, terms) : null;
  const all = await app.sessions();
  // (the index keeps them: not worked out over 22,000 sessions again)
  const shortMap = await app.shorts();
  const short = (s: Session) => shortMap.get(s.id) ?? s.id;
  const now = Date.now();
  if (terms.length === 0) {
    if (!o.rows) throw usage('search needs at least one word (resume search WORDS...)');
    // an empty fzf query: the plain listing
    out(listingRows(all, filters, { short, home: app.ctx.home, now }));
    return;
  }
  const t0 = Date.now();
  // a long search shows how far it is on a terminal (never for the picker: fzf owns the screen)
  const bar = o.rows ? null : progressBar('searching', undefined, 'sessions');
  // (--rows prints rows only: the results are ranked without their evidence)
  const { results, stats } = await runSearch(app, all, terms, filters, {
    prestarted: workers,
    progress: bar?.update,
    evidence: !o.rows,
    top,
  }).finally(() => bar?.end());
  await report(app, { o, terms, results, stats, short, t0 });
}

/** How many results are printed at most (printResults): -n N, else on a terminal a screenful; undefined: all. */
function shownAtMost(o: SearchOpts): number | undefined {
  if (o.n != null) return o.n > 0 ? o.n : undefined;
  return !o.json && process.stdout.isTTY ? TTY_RESULTS : undefined;
}

/** The results of a search as asked: printed (rows, JSON or for a person), the tally and notes on stderr. */
async function report(
  app: App,
  w: { o: SearchOpts; terms: Term[]; results: Result[]; stats: SearchStats; short: (s: Session) => string; t0: number },
): Promise<void> {
  const { o, terms, results, stats, short, t0 } = w;
  const list = o.n ? results.slice(0, o.n) : results;
  const query = terms.map((t) => (t.phrase ? `"${t.text}"` : t.text)).join(' ');
  // --copy takes the one best result (the `best:` line), never the first of a tie
  const best = clearlyBest(results);
  if (o.copy && !o.rows && list.length) await copyOrSay(app, best, results.length, short);
  if (process.stderr.isTTY && !o.rows) tellTally(results.length, query, stats, t0);
  // (said whether or not on a terminal: a script's log should show why a search was slow)
  if (stats.unindexed > 0 && !o.rows) note(unindexedNote(stats.unindexed));
  await printResults(app, { o, results, list, query, best, short, now: Date.now() });
}

/**
 * The one result clearly ahead of the rest (of all of them, not only those -n shows): the only one,
 * one of high confidence above none, or one scoring half again the next; null on a tie.
 */
function clearlyBest(results: Result[]): Result | null {
  const [a, b] = results;
  if (!a) return null;
  return !b || (a.confidence === 'high' && b.confidence !== 'high') || a.score >= 1.5 * b.score ? a : null;
}

/** `search --copy`: the best result's resume line onto the clipboard, where it went on stderr. */
async function copyBest(app: App, s: Result['session'], short: string): Promise<void> {
  const [{ loadConfig }, { makePlan }, { shellLine, pickShell }, { copyText }] = await Promise.all([
    import('../launch/config.js'),
    import('../launch/plan.js'),
    import('../launch/emit.js'),
    import('../launch/clipboard.js'),
  ]);
  const sh = pickShell(undefined, process.env);
  const plan = makePlan(s, { fork: false, extra: [], cfg: loadConfig(app.ctx), name: short });
  const where = copyText(shellLine(plan, typeof sh === 'string' ? sh : 'bash'));
  note(`copied the line that resumes ${s.id} (the best result) to ${where}`);
}

function toJson(r: Result, short: string) {
  const s = r.session;
  return {
    harness: s.harness,
    id: s.id,
    short,
    cwd: s.cwd,
    title: s.title == null ? null : clip(oneLine(s.title), 400),
    started: iso(s.started),
    updated: iso(s.updated ?? s.started),
    date: localTime(s.updated ?? s.started),
    file: s.file,
    subagentFiles: [...new Set(r.evidence.filter((e) => e.child).map((e) => e.file))],
    hidden: r.hidden,
    kind: r.original ? 'original' : 'follow-up',
    original: r.original,
    confidence: r.confidence,
    score: r.score,
    evidence: r.evidence.map((e) => ({
      role: e.role,
      file: e.file,
      subagent: e.child,
      copied: e.copied,
      abandoned: e.abandoned,
      via: e.via,
      text: e.snippet.text,
      matches: e.snippet.marks,
    })),
  };
}

/** results printed on a terminal without -n */
const TTY_RESULTS = 20;

/**
 * Per session, how to resume it: `{cwd, argv, env}` (the config applied) and the shell line. On
 * stdout that is not a terminal, permission-bypass flags from config are left out (named once on
 * stderr), as for `--print`.
 */
async function resumeOf(
  app: App,
): Promise<(s: Result['session']) => { plan: { cwd: string | null; argv: string[]; env: Record<string, string> }; line: string } | null> {
  const [{ loadConfig, applyConfig }, { shownPlan, withheldNote }, { shellLine, pickShell }, { adapter }] = await Promise.all([
    import('../launch/config.js'),
    import('../launch/plan.js'),
    import('../launch/emit.js'),
    import('../harness/registry.js'),
  ]);
  const cfg = loadConfig(app.ctx);
  const sh = pickShell(undefined, process.env);
  const shell = typeof sh === 'string' ? sh : 'bash';
  let noted = false;
  return (s) => {
    const spec = adapter(s.harness).launch(s, { fork: false });
    if (typeof spec === 'string') return null;
    let plan: { harness: string; id: string; cwd: string; argv: string[]; env: Record<string, string> } = {
      harness: s.harness,
      id: s.id,
      cwd: s.cwd ?? '',
      argv: applyConfig(spec.argv, s.harness, cfg),
      env: { ...(spec.env ?? {}) },
    };
    if (!process.stdout.isTTY) {
      const r = shownPlan(plan, cfg);
      const n = withheldNote(r.withheld, s.harness);
      if (n && !noted) process.stderr.write(`${n}\n`);
      noted ||= !!n;
      plan = r.plan;
    }
    return { plan: { cwd: s.cwd, argv: plan.argv, env: plan.env }, line: s.cwd ? shellLine(plan, shell) : `${plan.argv.join(' ')}` };
  };
}

/** How results read: home for `~`, colour, and the terminal's width (null: not a terminal). */
interface Look {
  home: string;
  color: boolean;
  cols: number | null;
}

function human(r: Result, short: string, resumeLine: string | null, { home, color, cols }: Look): string {
  const s = r.session;
  const dim = (t: string) => (color ? DIM + t + RESET : t);
  const kind = `${r.original ? 'original' : 'follow-up'}, ${r.confidence} confidence${r.hidden ? ` [${HIDDEN_LABEL[r.hidden] ?? r.hidden}]` : ''}`;
  const when = localTime(s.updated ?? s.started);
  // on a terminal the first line keeps to its width: the directory is cut from the left, as in the
  // picker (the paths of the lines below are whole: they are copied)
  const room = cols === null ? Infinity : cols - width(`${s.harness}  ${when}    ${short}  ${kind}`);
  const whole = oneLine(tildify(s.cwd, home) || '?');
  // (narrower than that line even with 12 columns of directory, under about 76: the kind on a line
  // of its own, where the terminal would have wrapped the line inside a word, and its columns the
  // directory's)
  const apart = cols !== null && room < 12 && width(`${s.harness}  ${when}  ${cutDir(whole, 12)}  ${short}  ${kind}`) > cols;
  const dir = cutDir(whole, Math.max(12, apart ? room + width(`  ${kind}`) : room));
  const head = [harnessColor(s.harness, color), when, dir, color ? BOLD + short + RESET : short].join('  ');
  const lines = [
    ...(apart ? [head, `  ${kind}`] : [`${head}  ${kind}`]),
    `  ${dim(clip(label(s), cols === null ? 120 : Math.max(20, cols - 2)))}`,
    `  ${dim('id:')} ${s.id}`,
    `  ${dim('file:')} ${oneLine(s.file)}`,
  ];
  if (resumeLine) lines.push(`  ${dim('resume:')} ${resumeLine}`);
  for (const f of new Set(r.evidence.filter((e) => e.child).map((e) => e.file))) lines.push(`  ${dim('subagent:')} ${oneLine(f)}`);
  // (on a terminal wrapped at spaces, each line after the first indented under it)
  const wrap = cols === null ? null : { first: cols - 2, rest: cols - 4 };
  for (const e of r.evidence)
    lines.push(...wrapLabelled(labelledEvidence(e, color), wrap, color).map((l, i) => `${i ? '    ' : '  '}${l}`));
  return `${lines.join('\n')}\n`;
}

/** An empty query under --rows: every session the filters (and --since, --until) leave, newest first, as rows. */
function listingRows(
  all: Session[],
  filters: Filters & { since?: number; until?: number },
  { short, home, now }: { short: (s: Session) => string; home: string; now: number },
): string {
  const shown = applyFilters(all, filters).filter((s) => {
    const u = s.updated ?? s.started ?? 0;
    return (filters.since == null || u >= filters.since) && (filters.until == null || (s.started ?? u) <= filters.until);
  });
  return shown.map((s) => `${row(s, short(s), home, now)}\n`).join('');
}

/** `search --copy`: the best result's line, else say why nothing was copied (exit 1). */
async function copyOrSay(app: App, best: Result | null, n: number, short: (s: Session) => string): Promise<void> {
  if (best) await copyBest(app, best.session, short(best.session));
  else {
    note(`copied nothing: no one result is clearly best (${count(n, 'result')}); resume one by its id`);
    process.exitCode = 1;
  }
}

/** The results as --rows, --json or text (with the best one's resume line last); none: exit 1. */
async function printResults(
  app: App,
  w: { o: SearchOpts; results: Result[]; list: Result[]; query: string; best: Result | null; short: (s: Session) => string; now: number },
): Promise<void> {
  const { o, results, list, query, best, short, now } = w;
  const none = () =>
    new ExitError(
      1,
      `no session mentions ${oneLine(query)}${givenFilters(o)}${o.paths?.length ? ` in ${o.paths.map(oneLine).join(' and ')}` : ''}`,
    );
  if (o.rows) {
    out(list.map((r) => `${row(r.session, short(r.session), app.ctx.home, now)}\n`).join(''));
    if (list.length === 0) throw none();
    return;
  }
  if (o.json) {
    const how = await resumeOf(app);
    writeJsonArray(list, (r) => ({ ...toJson(r, short(r.session)), resume: how(r.session)?.plan ?? null }));
    if (list.length === 0) throw none();
    return;
  }
  if (list.length === 0) throw none();
  const color = useColor();
  // on a terminal the best screenfuls, not hundreds of results (-n N, a pipe or --json: all)
  const shown = o.n == null && process.stdout.isTTY ? list.slice(0, TTY_RESULTS) : list;
  const how = await resumeOf(app);
  const look = { home: app.ctx.home, color, cols: stdoutColumns() };
  out(shown.map((r) => human(r, short(r.session), how(r.session)?.line ?? null, look)).join('\n'));
  if (shown.length < list.length) note(`+${list.length - shown.length} more (-n N shows more)`);
  // one result clearly ahead: say so, and end with its resume line (the last line on screen)
  if (best) {
    const line = how(best.session)?.line;
    if (line)
      out(`\nbest: ${best.session.harness} ${best.session.id}${results.length > 1 ? ' (clearly ahead of the rest)' : ''}\n${line}\n`);
  }
}

/** A search read files whose signatures were not made yet (lib/search/sigfill.ts). */
export function unindexedNote(n: number): string {
  return `${count(n, 'file')} not in the search index yet ${n === 1 ? 'was' : 'were'} read in full (\`resume index\` adds them)`;
}

/** On stderr (a terminal): how many sessions mention the query, and how much was read in how long. */
function tellTally(n: number, query: string, stats: Awaited<ReturnType<typeof runSearch>>['stats'], t0: number): void {
  const mb = (stats.bytes / 1048576).toFixed(1);
  note(
    `${count(n, 'session')} ${n === 1 ? 'mentions' : 'mention'} ${oneLine(query)} (${stats.sessions} sessions, ${stats.files} files, ${mb} MiB in ${Date.now() - t0} ms)`,
  );
}
