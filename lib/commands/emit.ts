// `resume emit [KEY] [--shell zsh|bash|fish] [--fork] [-- ARGS]`: the line that resumes KEY. With
// no KEY it reads one from stdin (a key, or a whole row of `resume rows`), so the stages chain:
// `resume rows | fzf | resume emit`, `resume resolve WORDS | resume emit`.
import type { App } from '../app.js';
import { ExitError, usage } from '../errors.js';
import { loadConfig } from '../launch/config.js';
import { shellLine } from '../launch/emit.js';
import { hereDir, placeSession } from '../launch/moved.js';
import { LiveError } from '../launch/plan.js';
import { forStdout, prepare, shellOf } from '../launch/prepare.js';
import { candidateLines } from '../present/candidates.js';
import { lookup } from '../select/find.js';
import { resolve } from '../select/resolve.js';
import type { Session } from '../types.js';
import { stdinKeys } from '../util/stdin-keys.js';
import { oneLine } from '../util/text.js';
import { meantQuery, noSessionMatches, out } from './common.js';
import { goLive } from './resume-live.js';
import type { Call } from './table.js';

export async function run(app: App, call: Call): Promise<void> {
  const [keyArg, args] = call.args as [string | undefined, string[]];
  const o = call.opts as { shell?: string; fork?: boolean };
  const { tail } = call;
  // `emit -- ARGS`: commander hands the first word after -- in as KEY; it belongs to the harness
  const given = keyArg !== undefined && args.length + 1 > tail.length ? keyArg : undefined;
  if (args.length > tail.length) throw usage(`emit takes one KEY; put arguments for the harness after --`);
  const key = await theKey(given);
  const cfg = loadConfig(app.ctx);
  const shell = shellOf(o.shell);
  const { s, name } = await sessionOf(app, key);
  // a gone directory: where its repository went, asked on the terminal as `resume ID` asks (the
  // key binding runs `emit` with its output captured: the question goes to /dev/tty)
  const place = await placeSession(s, {
    name,
    dryRun: false,
    fork: !!o.fork,
    others: () => app.sessions(),
    here: hereDir(app.ctx.home),
  });
  if (place?.refuse) throw new ExitError(2, place.refuse);
  let plan: ReturnType<typeof prepare>;
  try {
    plan = prepare(s, { fork: !!o.fork, extra: tail, cfg, name, env: app.launchEnv(), ctx: app.ctx, cwd: place?.cwd });
  } catch (err) {
    // running: the line that goes to its tmux pane instead (or say where it runs)
    if (!(err instanceof LiveError)) throw err;
    return goLive(s, err, { emit: true }, shell);
  }
  out(`${shellLine(forStdout(plan, cfg).plan, shell)}\n`);
}

/** The KEY given, else the one key (or row) on stdin. */
async function theKey(given: string | undefined): Promise<string> {
  if (given !== undefined) return given;
  if (process.stdin.isTTY) throw usage('emit needs a KEY, as an argument or on stdin (resume rows | fzf | resume emit)');
  const got = await stdinKeys();
  const [first] = got;
  if (first === undefined) throw new ExitError(1, 'no key on stdin (nothing was picked)');
  if (got.length > 1) throw usage(`emit takes one KEY, but stdin had ${got.length}; narrow the query (resume resolve prints every match)`);
  return first;
}

/** The session KEY names and the name it goes by; several or none: the candidates, and an error. */
async function sessionOf(app: App, key: string): Promise<{ s: Session; name: string }> {
  // a full key or id (what the picker and resolve hand on) is one record of the listing
  const { hit, named } = await lookup(app, [key]);
  if (hit) return { s: hit.session, name: hit.short };
  const { sessions, shorts, prompts } = await named();
  const r = resolve([key], sessions, { all: true, prompts });
  if (r.kind === 'none') {
    const meant = await meantQuery(app, [key], {}, true);
    throw new ExitError(1, noSessionMatches([key], meant));
  }
  if (r.kind !== 'one') {
    out(candidateLines(r.candidates, shorts));
    throw r.kind === 'ambiguous-prefix'
      ? usage(`'${oneLine(key)}' is the start of ${r.candidates.length} session ids; type more characters`)
      : new ExitError(1, `${r.candidates.length} sessions match '${oneLine(key)}'`);
  }
  return { s: r.session, name: shorts.get(r.session.id) ?? r.session.id };
}
