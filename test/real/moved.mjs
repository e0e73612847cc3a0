// `node test/real/moved.mjs [client…]`: can each pinned client resume a session after its directory
// moved? Per client, in a throwaway HOME under /tmp/resume-real/moved-<client>/: a one-shot session in
// proj-a, then proj-a renamed to proj-a-moved, then the client's own resume by id run from the new
// directory (print mode, with the flags that name the directory where the client has them). It prints
// one JSON object per client: exit code, the end of its output, which store files the resume created
// or changed, and whether the new prompt reached the original transcript. What resume does with a
// moved directory (lib/launch/moved.ts, docs/harnesses.md) follows from these results.
import { existsSync, readFileSync, renameSync } from 'node:fs';
import { join } from 'node:path';
import { setups } from './drivers.mjs';
import { clients, install } from './install.mjs';
import { freshBase, listFiles, log, run, sizes, sleep, Tmux } from './lib.mjs';
import { startMock } from './mock-server.mjs';

const AFTER = 'prompt after the move';

/** Per client: its store (relative to HOME), the first run, and the resume from the moved directory. */
const CASES = {
  claude: {
    store: '.claude',
    first: (bin) => [bin, '-p', 'hello before the move'],
    resume: (bin, id) => [bin, '--resume', id, '-p', AFTER],
    tui: (bin, id) => [bin, '--resume', id],
    id: (f) => /projects\/[^/]+\/([0-9a-f-]{36})\.jsonl$/.exec(f)?.[1],
  },
  codex: {
    store: '.codex',
    first: (bin) => [bin, 'exec', '--skip-git-repo-check', 'hello before the move'],
    resume: (bin, id, dir) => [bin, 'exec', '--skip-git-repo-check', '-C', dir, 'resume', id, AFTER],
    tui: (bin, id, dir) => [bin, '--no-daemon', 'resume', id, '-C', dir],
    id: (f) => /sessions\/.*([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})\.jsonl$/.exec(f)?.[1],
  },
  pi: {
    store: '.pi/agent/sessions',
    first: (bin) => [bin, '--provider', 'mock', '--model', 'mock-model', '-p', 'hello before the move'],
    resume: (bin, _id, _dir, file) => [bin, '--provider', 'mock', '--model', 'mock-model', '--session', file, '-p', AFTER],
    tui: (bin, _id, _dir, file) => [bin, '--provider', 'mock', '--model', 'mock-model', '--session', file],
    id: (f) => /_([0-9a-f-]{36})\.jsonl$/.exec(f)?.[1],
  },
  opencode: {
    store: '.local/share/opencode',
    first: (bin) => [bin, 'run', 'hello before the move'],
    resume: (bin, id) => [bin, 'run', '--session', id, AFTER],
    id: null,
  },
  gemini: {
    store: '.gemini/tmp',
    first: (bin) => [bin, '--yolo', '-p', 'hello before the move'],
    resume: (bin, id) => [bin, '--yolo', '--resume', id, '-p', AFTER],
    id: (f) => (/chats\/session-[^/]+\.jsonl$/.test(f) ? 'file' : undefined),
  },
};

async function opencodeIds(home) {
  const db = join(home, '.local/share/opencode/opencode.db');
  if (!existsSync(db)) return [];
  const { default: Database } = await import('better-sqlite3');
  const d = new Database(db, { readonly: true });
  try {
    return d.prepare('SELECT id, directory FROM session WHERE parent_id IS NULL').all();
  } finally {
    d.close();
  }
}

async function probe(name, mock) {
  const c = CASES[name];
  const bin = install(name);
  const { base, home, projA } = freshBase(`moved-${name}`);
  const moved = join(base, 'proj-a-moved');
  // the moved directory is trusted as proj-a was, so no trust question comes first
  const env = setups[name]({ home, projA, projB: moved, bin, mock });
  const store = join(home, c.store);
  const r1 = await run(c.first(bin), { cwd: projA, env, timeoutMs: 180000 });
  if (r1.code !== 0) return { client: name, step: 'first run', code: r1.code, err: r1.stderr.slice(-800) };
  let id, file;
  if (name === 'opencode') {
    id = (await opencodeIds(home))[0]?.id;
  } else {
    const f = listFiles(store).find((x) => c.id(x));
    file = f && join(store, f);
    id = name === 'gemini' ? JSON.parse(readFileSync(file, 'utf8').split('\n')[0]).sessionId : c.id(f);
  }
  if (!id) return { client: name, step: 'find the session', files: listFiles(store) };
  renameSync(projA, moved);
  const before = sizes(store);
  const screens = [];
  if (tui && c.tui) {
    // interactive: the screen it opens with, then the screen after a typed prompt (Enter on any
    // question it asks first takes its default)
    const t = new Tmux(`resume-moved-${process.pid}`);
    try {
      t.start(c.tui(bin, id, moved, file), { cwd: moved, env, width: 120, height: 30 });
      await sleep(8000);
      screens.push(t.screen());
      await t.type(AFTER, 1500);
      await sleep(8000);
      screens.push(t.screen());
    } finally {
      t.kill();
    }
  }
  const r2 =
    tui && c.tui
      ? { code: null, stdout: '', stderr: '' }
      : await run(c.resume(bin, id, moved, file), { cwd: moved, env, timeoutMs: 180000 });
  const after = sizes(store);
  const made = [...after.keys()].filter((f) => !before.has(f));
  const grown = [...after.keys()].filter((f) => before.has(f) && before.get(f) !== after.get(f));
  const reached = file ? readFileSync(file, 'utf8').includes(AFTER) : null;
  return {
    client: name,
    version: clients[name].version,
    id,
    code: r2.code,
    out: (r2.stdout + r2.stderr).trim().split('\n').slice(-4).join(' | ').slice(0, 600),
    created: made,
    changed: grown,
    originalTranscriptGotPrompt: reached,
    ...(screens.length ? { screens: screens.map((x) => x.split('\n').filter((l) => l.trim())) } : {}),
    ...(name === 'opencode' ? { sessions: await opencodeIds(home) } : {}),
  };
}

// --tui: the interactive resume instead of print mode (claude, codex, pi), its screens in the output
const tui = process.argv.includes('--tui');
const named = process.argv.slice(2).filter((a) => a !== '--tui');
const wanted = named.length ? named : Object.keys(CASES);
for (const name of wanted) {
  const mock = await startMock({ maxMs: 10 * 60 * 1000, maxRequests: 400 });
  try {
    log(`${name}: probing`);
    process.stdout.write(`${JSON.stringify(await probe(name, mock), null, 2)}\n`);
  } catch (e) {
    process.stdout.write(`${JSON.stringify({ client: name, error: String(e?.stack || e) })}\n`);
  } finally {
    await mock.close();
  }
}
