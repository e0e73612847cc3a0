// `npm run demo:record`: rebuild the demo HOME (demo/home) from what the real clients write.
//
// Where every file under demo/home comes from: the pinned clients of clients.json (claude, codex, pi,
// opencode, gemini), installed by install.mjs, run offline against the scripted mock model
// (mock-server.mjs) with HOME=/home/demo, in project directories /home/demo/src/{webshop,blog,
// dotfiles,api-server,resume-cli} that this script makes (small git repositories, so the clients see
// a branch). Interactive sessions are typed into a private tmux server, as a person would; print runs
// are plain commands. The clients' stores are then copied into demo/home the way the fixture recorder
// copies them (lib.mjs copyStore/copySqlite: long client text such as system prompts and tool
// schemas cut to a placeholder, Codex rollouts trimmed in place to the same byte length). Ids, record
// ids, forks, subagents, titles and times are what the clients wrote; nothing is edited by hand.
// demo/manifest.json says what each session is (client, version, directory, prompts, mode, fork).
//
// Cursor has no npm client, so the demo has no Cursor sessions (the fixtures under test/fixtures/cursor
// are third-party samples, not a recording). The prompts and the model's answers are the SESSIONS
// below: the mock answers each prompt with its scripted text (after a shell or subagent tool call
// where one is scripted) and answers a client's title request with the session's title.
//
// /home/demo is made and removed by this script (it refuses to touch a /home/demo it did not make).
// Usage: npm run demo:record     (minutes: every session is driven through the real client)
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { setups } from './drivers.mjs';
import { clients, install } from './install.mjs';
import { copySqlite, copyStore, listFiles, log, repo, run, scanSecrets, sleep, Tmux } from './lib.mjs';
import { AGENT_TOOLS, agentArgs, findTool, fromSchema, isTitleRequest, plan, SHELL_TOOLS, shellArgs, startMock } from './mock-server.mjs';

const HOME = '/home/demo';
const SRC = join(HOME, 'src');
const MARK = join(HOME, '.resume-demo-recorder');
const OUT = join(repo, 'demo');
const dir = (p) => join(SRC, p);

// ---------------------------------------------------------------------------------------------------
// The sessions: each turn is a prompt and the model's answer (optionally after one tool call).

const T = {
  retry1: {
    prompt: 'Add retry with exponential backoff to the payment webhook handler in src/webhooks/payment.ts',
    shell: 'sed -n 1,20p src/webhooks/payment.ts',
    reply:
      'The handler calls fulfilOrder once and answers 500 on any error, so a flaky database drops the order. I wrapped the call in retry() with delays of 1, 2, 4 and 8 seconds plus jitter, and kept the 500 for the final failure.',
  },
  retry2: {
    prompt: 'Before we go on, have a subagent find every caller of fulfilOrder',
    agent: {
      description: 'Find fulfilOrder callers',
      prompt: 'Find every caller of fulfilOrder under src/ and say what each does when it throws.',
    },
    reply:
      'The subagent found two callers: the webhook (answers 500, so the provider retries too) and src/jobs/reconcile.ts (logs and skips). Only the webhook needs the backoff.',
  },
  retrySub: {
    prompt: 'Find every caller of fulfilOrder under src/ and say what each does when it throws.',
    sub: true,
    reply: 'Two callers: src/webhooks/payment.ts answers 500; src/jobs/reconcile.ts logs the error and moves on.',
  },
  retry3: {
    prompt: 'Cap the total wait at 30 seconds and log each retry with the attempt number',
    reply: 'Done: retry() stops once the next delay would pass 30 s, and each attempt logs "payment webhook retry 2/5 in 2.3s".',
  },
  queue1: {
    prompt: 'Try it with a job queue instead of retrying inside the request',
    reply:
      'The webhook now enqueues a fulfil-order job and answers 202 at once; the worker retries with the same backoff and a dead-letter queue after five attempts.',
  },
  zsh1: {
    prompt: 'Move my zsh aliases out of .zshrc into aliases.zsh and source it',
    shell: "grep -c '^alias' .zshrc",
    reply: 'Moved the 4 aliases into aliases.zsh and added source ~/dotfiles/aliases.zsh where they were, so the load order is unchanged.',
  },
  zsh2: {
    prompt: 'Add a git alias that amends the last commit without editing the message',
    reply: 'Added amend = commit --amend --no-edit under [alias] in .gitconfig.',
  },
  commits: {
    prompt: 'Summarize what changed in the last three commits',
    shell: 'git log --oneline -3',
    reply: 'The last three commits add the orders endpoint, validate request bodies with zod, and set up the project.',
  },
  round1: {
    prompt: 'The cart total is off by one cent with some discount codes; find out why',
    shell: 'grep -n toFixed src/cart.ts',
    reply:
      'Each line is rounded with toFixed(2) before the discount is applied, so three items at 19.99 with 15% off sum to 50.98 instead of 50.97.',
  },
  round2: {
    prompt: 'Round once at the end instead of per line, and add a test for three items at 19.99',
    reply: 'cartTotal now sums the exact line amounts and rounds once; the new test expects 50.97 for three items at 19.99 with SAVE15.',
  },
  cents1: {
    prompt: 'Switch the cart to integer cents instead of floats',
    reply: 'Prices are stored and summed as integer cents now; formatPrice divides by 100 only for display.',
  },
  limits: {
    prompt: 'List the endpoints that have no rate limit',
    shell: 'grep -rn "router\\." src/routes',
    reply: 'POST /orders and GET /orders/:id have no rate limit; /login already uses the limiter.',
  },
  dir1: {
    prompt: 'Plan how --dir should match whole path components instead of string prefixes',
    reply:
      'Plan: resolve both paths, then accept a session when its directory equals DIR or starts with DIR plus a path separator, so /src/app no longer matches /src/app2.',
  },
  dir2: {
    prompt: 'Write the test cases first, including a sibling directory named app2',
    reply: 'Added four cases: DIR itself, a child, the sibling app2 (no match) and DIR with a trailing slash.',
  },
  astro1: {
    prompt: 'Draft a post about moving the site from Jekyll to Astro',
    reply:
      'Drafted src/content/posts/jekyll-to-astro.md: why we moved, what broke (permalinks, Liquid includes) and how long the build takes now.',
  },
  astro2: {
    prompt: 'Make the intro shorter and add a section on redirects for the old URLs',
    reply: 'Cut the intro to two sentences and added a section on the redirects map in astro.config.mjs.',
  },
  cdn1: {
    prompt: 'Product images load slowly on the listing page; can we cache them at the CDN edge?',
    reply: 'The CDN config sets ttl to 0, so every image comes from the origin. I set a one-day TTL with stale-while-revalidate.',
  },
  cdn2: {
    prompt: 'Also purge the cache when a product image changes',
    reply: 'Added a purge call for the image URL to the upload handler.',
  },
  body1: {
    prompt: 'Find every handler that reads the request body without a size limit',
    agent: {
      description: 'Check body size limits',
      prompt: 'List the route handlers under src/routes that parse a request body, and whether a size limit applies.',
    },
    reply: 'Only POST /orders reads the body without a limit; I added express.json({ limit: "100kb" }) to its router.',
  },
  bodySub: {
    prompt: 'List the route handlers under src/routes that parse a request body, and whether a size limit applies.',
    sub: true,
    reply: 'POST /orders parses JSON with no limit; POST /login uses the global 10kb limit.',
  },
  rss1: {
    prompt: 'Add an RSS feed to the blog',
    reply: 'Added src/pages/rss.xml.js using @astrojs/rss, with the title and description from the site config.',
  },
  rss2: {
    prompt: 'Only include published posts, newest first',
    reply: 'The feed now filters out drafts and sorts by pubDate, newest first.',
  },
  auth: {
    prompt: 'Explain what the auth middleware does',
    agent: { description: 'Read the auth middleware', prompt: 'Read the auth middleware and list what it checks, in order.' },
    reply: 'It reads the bearer token, verifies it with the JWT secret and puts the user id on req.user; a bad token is a 401.',
  },
  authSub: {
    prompt: 'Read the auth middleware and list what it checks, in order.',
    sub: true,
    reply: 'It checks that an Authorization header is present, that it is a Bearer token, and that the JWT verifies and has not expired.',
  },
};

/** The title each session's client asks the model for (Codex, opencode, Gemini ask; Claude and pi do not). */
const TITLES = [
  [T.round1, 'Fix cart total rounding'],
  [T.cdn1, 'Cache product images at the CDN edge'],
  [T.body1, 'Request body size limits'],
  [T.limits, 'Endpoints without rate limits'],
  [T.rss1, 'RSS feed for the blog'],
  [T.auth, 'Auth middleware explained'],
  [T.retry1, 'Webhook retry with backoff'],
  [T.zsh1, 'Zsh aliases in their own file'],
  [T.commits, 'Last three commits'],
  [T.dir1, 'Dir filter by path components'],
  [T.astro1, 'Jekyll to Astro post'],
];
const TURNS = Object.values(T);
const key = (s) => s.replace(/\s+/g, ' ').slice(0, 48);

/** The mock's answer for a demo prompt; undefined leaves the request to the mock's own plan. */
function answer(req) {
  const prompt = (req.prompt || '').replace(/\s+/g, ' ');
  const hay = `${req.system || ''}\n${req.context || ''}\n${prompt}`.replace(/\s+/g, ' ');
  if (req.jsonSchema || isTitleRequest(req)) {
    const t = TITLES.find(([turn]) => hay.includes(key(turn.prompt)));
    return plan(req, t ? { title: t[1] } : {});
  }
  const turn = TURNS.find((t) => prompt.includes(key(t.prompt)));
  if (!turn) return undefined;
  const tools = req.tools || [];
  if (req.steps === 0 && turn.shell) {
    const t = findTool(tools, SHELL_TOOLS);
    if (t) return { tool: { name: t.name, namespace: t.namespace, args: shellArgs(t, turn.shell, 'Look at the code') } };
  }
  if (req.steps === 0 && turn.agent) {
    const t = findTool(tools, AGENT_TOOLS);
    if (t) return { tool: { name: t.name, namespace: t.namespace, args: agentArgs(t, turn.agent.prompt, turn.agent.description) } };
  }
  // a Gemini subagent must end by calling complete_task (else Gemini prompts it once more)
  const done = turn.sub && req.steps === 0 && findTool(tools, ['complete_task']);
  if (done) return { tool: { name: done.name, args: fromSchema(done.schema || { type: 'object' }, { response: turn.reply }) } };
  return { text: turn.reply };
}

// ---------------------------------------------------------------------------------------------------
// The projects: small git repositories, so the clients record a branch and the tools find files.

const PROJECTS = {
  webshop: {
    'package.json': '{ "name": "webshop", "private": true, "scripts": { "test": "vitest run" } }\n',
    'src/cart.ts':
      'export function cartTotal(lines: { price: number; qty: number }[], discount = 0): number {\n  return lines.reduce((sum, l) => sum + Number((l.price * l.qty * (1 - discount)).toFixed(2)), 0);\n}\n',
    'src/webhooks/payment.ts':
      "import { fulfilOrder } from '../orders.js';\n\nexport async function paymentWebhook(req, res) {\n  try {\n    await fulfilOrder(req.body.orderId);\n    res.status(200).end();\n  } catch {\n    res.status(500).end();\n  }\n}\n",
    'src/jobs/reconcile.ts': "import { fulfilOrder } from '../orders.js';\n",
    'cdn.config.ts': 'export default { ttl: 0 };\n',
  },
  blog: {
    'astro.config.mjs': "export default { site: 'https://example.org' };\n",
    'src/content/posts/hello.md': '---\ntitle: Hello\n---\nFirst post.\n',
  },
  dotfiles: {
    '.zshrc': "alias ll='ls -l'\nalias gs='git status'\nalias gd='git diff'\nalias k=kubectl\n",
    '.gitconfig': '[user]\n  name = Demo\n',
  },
  'api-server': {
    'package.json': '{ "name": "api-server", "private": true }\n',
    'src/routes/orders.ts': "router.post('/orders', createOrder);\nrouter.get('/orders/:id', getOrder);\n",
    'src/routes/login.ts': "router.post('/login', limiter, login);\n",
  },
  'resume-cli': {
    'package.json': '{ "name": "resume-cli", "private": true }\n',
    'src/filter.ts': 'export const underDir = (cwd: string, dir: string) => cwd.startsWith(dir);\n',
  },
};

function git(cwd, ...args) {
  const env = {
    ...process.env,
    HOME,
    GIT_AUTHOR_NAME: 'Demo',
    GIT_AUTHOR_EMAIL: 'demo@example.org',
    GIT_COMMITTER_NAME: 'Demo',
    GIT_COMMITTER_EMAIL: 'demo@example.org',
  };
  const r = spawnSync('git', args, { cwd, env, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`git ${args.join(' ')}: ${r.stderr}`);
}

function makeHome() {
  if (existsSync(HOME) && !existsSync(MARK)) throw new Error(`${HOME} exists and was not made by this script: not touching it`);
  rmSync(HOME, { recursive: true, force: true });
  mkdirSync(SRC, { recursive: true });
  writeFileSync(MARK, 'made by test/real/demo.mjs; removed when it ends\n');
  for (const [name, files] of Object.entries(PROJECTS)) {
    const d = dir(name);
    for (const [f, text] of Object.entries(files)) {
      mkdirSync(dirname(join(d, f)), { recursive: true });
      writeFileSync(join(d, f), text);
    }
    git(d, 'init', '-q', '-b', 'main');
    git(d, 'add', '.');
    git(d, 'commit', '-q', '-m', 'Set up the project');
  }
  // two more commits for "the last three commits", and a branch for the webhook work
  writeFileSync(join(dir('api-server'), 'src/validate.ts'), "import { z } from 'zod';\n");
  git(dir('api-server'), 'add', '.');
  git(dir('api-server'), 'commit', '-q', '-m', 'Validate request bodies with zod');
  writeFileSync(
    join(dir('api-server'), 'src/routes/orders.ts'),
    "router.post('/orders', createOrder);\nrouter.get('/orders/:id', getOrder);\nrouter.get('/orders', listOrders);\n",
  );
  git(dir('api-server'), 'commit', '-q', '-am', 'Add the orders list endpoint');
}

// ---------------------------------------------------------------------------------------------------
// Driving the clients

const tmux = new Tmux(`resume-demo-${process.pid}`);
process.on('exit', () => tmux.kill());
const frag = (turn) => turn.reply.slice(0, 24);
const sessions = [];

function mustRun(r, what) {
  if (r.code !== 0) throw new Error(`${what} exited ${r.code}: ${r.stderr.slice(-2000)}${r.stdout.slice(-500)}`);
  return r;
}

/**
 * Type steps into an interactive client: a turn (wait for its answer), or a command string with the
 * screen text that says it took effect.
 */
async function interactive({ argv, cwd, env, ready, settle = 1500, steps, quit }) {
  tmux.start(argv, { cwd, env });
  await tmux.waitFor(ready, 60000, `the prompt of ${argv[0]}`);
  await sleep(settle);
  for (const s of steps) {
    if (typeof s === 'function') await s();
    else if (s.cmd) {
      await tmux.type(s.cmd, 1500);
      await tmux.waitFor(s.done, 15000, s.cmd);
    } else {
      await tmux.type(s.prompt, 1500);
      const want = new RegExp(frag(s).replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
      // an Enter swallowed while the client was still loading: press it again once
      try {
        await tmux.waitFor(want, 30000, `the answer to ${s.prompt}`);
      } catch {
        tmux.keys('Enter');
        await tmux.waitFor(want, 90000, `the answer to ${s.prompt}`);
      }
    }
    await sleep(2000);
  }
  await quit();
}

async function quitWith(text) {
  await tmux.type(text, 1500);
  if (await tmux.waitExit(20000)) return;
  tmux.keys('C-c');
  await sleep(500);
  tmux.keys('C-c');
  if (!(await tmux.waitExit(10000))) throw new Error(`did not exit after ${text}`);
}

/** Files created under `root` since `before` (relative paths). */
const since = (root, before, re) => listFiles(root).filter((f) => !before.has(f) && re.test(f));
const snap = (root) => new Set(listFiles(root));
const turns = (...ts) => ts.map((t) => t.prompt);

async function claude(bin, mock) {
  const env = setups.claude({ home: HOME, projA: dir('webshop'), projB: dir('dotfiles'), bin, mock });
  // trust every demo project, not only the two the fixture recorder's setup names
  const cfgFile = join(HOME, '.claude.json');
  const cfg = JSON.parse(readFileSync(cfgFile, 'utf8'));
  for (const p of Object.keys(PROJECTS)) cfg.projects[dir(p)] = cfg.projects[dir('webshop')];
  writeFileSync(cfgFile, JSON.stringify(cfg, null, 2));
  const store = join(HOME, '.claude', 'projects');
  const one = (before) => {
    const f = since(store, before, /^[^/]+\/[0-9a-f-]{36}\.jsonl$/);
    if (f.length !== 1) throw new Error(`expected one new Claude transcript, got ${JSON.stringify(f)}`);
    return f[0].split('/')[1].replace(/\.jsonl$/, '');
  };
  const session = (argv, cwd, steps) =>
    interactive({ argv: [bin, ...argv], cwd, env, ready: /❯/, settle: 1000, steps, quit: () => quitWith('/exit') });

  // the webhook work happens on a branch of its own; the other clients find webshop on main
  git(dir('webshop'), 'checkout', '-q', '-b', 'webhook-retry');
  let before = snap(store);
  await session([], dir('webshop'), [
    T.retry1,
    T.retry2,
    T.retry3,
    { cmd: '/rename Webhook retry with backoff', done: /Session renamed to/ },
  ]);
  const c1 = one(before);
  sessions.push({
    client: 'claude',
    id: c1,
    cwd: dir('webshop'),
    prompts: turns(T.retry1, T.retry2, T.retry3),
    title: 'Webhook retry with backoff',
    mode: 'interactive',
    subagents: listFiles(join(store, '-home-demo-src-webshop', c1, 'subagents')).filter((f) => f.endsWith('.jsonl')).length,
  });
  log(`claude: ${c1}`);

  before = snap(store);
  await session(['--resume', c1, '--fork-session'], dir('webshop'), [T.queue1]);
  const c2 = one(before);
  sessions.push({
    client: 'claude',
    id: c2,
    cwd: dir('webshop'),
    prompts: turns(T.queue1),
    copiedPrompts: turns(T.retry1, T.retry2, T.retry3),
    title: 'Webhook retry with backoff',
    mode: 'interactive',
    forkedFrom: c1,
    via: '--resume ID --fork-session',
  });

  before = snap(store);
  await session([], dir('dotfiles'), [T.zsh1, T.zsh2]);
  const c3 = one(before);
  sessions.push({ client: 'claude', id: c3, cwd: dir('dotfiles'), prompts: turns(T.zsh1, T.zsh2), title: null, mode: 'interactive' });

  before = snap(store);
  mustRun(await run([bin, '-p', T.commits.prompt], { cwd: dir('api-server'), env }), 'claude -p');
  const c4 = one(before);
  sessions.push({ client: 'claude', id: c4, cwd: dir('api-server'), prompts: turns(T.commits), title: null, mode: 'print' });
  log(`claude: ${c2} ${c3} ${c4}`);
  git(dir('webshop'), 'checkout', '-q', 'main');
  copyStore(HOME, ['.claude/projects'], OUT, { skip: (f) => f.endsWith('.key') });
}

async function codex(bin, mock) {
  const env = setups.codex({ home: HOME, projA: dir('webshop'), projB: dir('api-server'), bin, mock });
  const store = join(HOME, '.codex', 'sessions');
  const idOf = (f) => /([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})\.jsonl$/.exec(f)[1];
  const one = (before) => {
    const f = since(store, before, /\.jsonl$/);
    if (f.length !== 1) throw new Error(`expected one new Codex rollout, got ${JSON.stringify(f)}`);
    return idOf(f[0]);
  };
  const session = (argv, cwd, steps) =>
    interactive({ argv: [bin, '--no-daemon', ...argv], cwd, env, ready: /›/, steps, quit: () => quitWith('/quit') });
  const rename = (name) => async () => {
    await tmux.type('/rename', 1500);
    await tmux.waitFor(/Rename thread/, 15000, 'the rename dialog');
    await sleep(500);
    for (let i = 0; i < 60; i++) tmux.keys('BSpace');
    await tmux.type(name, 1500);
    await tmux.waitFor(new RegExp(name), 15000, 'the new name');
  };

  let before = snap(store);
  await session([], dir('webshop'), [T.round1, T.round2]);
  const x1 = one(before);
  sessions.push({
    client: 'codex',
    id: x1,
    cwd: dir('webshop'),
    prompts: turns(T.round1, T.round2),
    title: 'Fix cart total rounding',
    mode: 'interactive',
  });
  log(`codex: ${x1}`);

  // a fork, renamed: Codex gives a fork its parent's name until then
  before = snap(store);
  await session(['fork', x1], dir('webshop'), [T.cents1, rename('Cart total in integer cents')]);
  const x2 = one(before);
  sessions.push({
    client: 'codex',
    id: x2,
    cwd: dir('webshop'),
    prompts: turns(T.cents1),
    title: 'Cart total in integer cents',
    mode: 'interactive',
    forkedFrom: x1,
    via: 'codex fork ID',
  });

  before = snap(store);
  mustRun(await run([bin, 'exec', T.limits.prompt], { cwd: dir('api-server'), env }), 'codex exec');
  const x3 = one(before);
  sessions.push({ client: 'codex', id: x3, cwd: dir('api-server'), prompts: turns(T.limits), title: null, mode: 'exec' });
  log(`codex: ${x2} ${x3}`);
  copyStore(HOME, ['.codex/sessions', '.codex/session_index.jsonl'], OUT, { preserveBytes: true });
}

async function pi(bin, mock) {
  const env = setups.pi({ home: HOME, bin, mock });
  const store = join(HOME, '.pi', 'agent', 'sessions');
  const one = (before) => {
    const f = since(store, before, /\.jsonl$/);
    if (f.length !== 1) throw new Error(`expected one new pi session, got ${JSON.stringify(f)}`);
    return /_([0-9a-f-]{36})\.jsonl$/.exec(f[0])[1];
  };
  const session = (cwd, steps) =>
    interactive({
      argv: [bin, '--provider', 'mock', '--model', 'mock-model'],
      cwd,
      env,
      ready: /mock-model/,
      steps,
      quit: async () => {
        tmux.keys('C-d');
        if (!(await tmux.waitExit(15000))) {
          tmux.keys('C-c');
          await sleep(300);
          tmux.keys('C-c');
          if (!(await tmux.waitExit(10000))) throw new Error('pi did not exit');
        }
      },
    });

  let before = snap(store);
  await session(dir('resume-cli'), [T.dir1, { cmd: '/name Dir filter by path components', done: /Session name set/ }, T.dir2]);
  const p1 = one(before);
  sessions.push({
    client: 'pi',
    id: p1,
    cwd: dir('resume-cli'),
    prompts: turns(T.dir1, T.dir2),
    title: 'Dir filter by path components',
    mode: 'interactive',
  });

  before = snap(store);
  await session(dir('blog'), [T.astro1, T.astro2]);
  const p2 = one(before);
  sessions.push({ client: 'pi', id: p2, cwd: dir('blog'), prompts: turns(T.astro1, T.astro2), title: null, mode: 'interactive' });
  log(`pi: ${p1} ${p2}`);
  copyStore(HOME, ['.pi/agent/sessions'], OUT);
}

async function opencode(bin, mock) {
  const env = setups.opencode({ home: HOME, bin, mock });
  const db = join(HOME, '.local', 'share', 'opencode', 'opencode.db');
  const { default: Database } = await import('better-sqlite3');
  const ids = () => {
    if (!existsSync(db)) return new Map();
    const d = new Database(db, { readonly: true });
    try {
      return new Map(
        d
          .prepare('SELECT id, parent_id AS parent, title FROM session')
          .all()
          .map((r) => [r.id, r]),
      );
    } finally {
      d.close();
    }
  };
  const step = async (cwd, args, what) => {
    const before = ids();
    mustRun(await run([bin, 'run', ...args], { cwd, env, timeoutMs: 240000 }), what);
    return [...ids().values()].filter((r) => !before.has(r.id));
  };
  let rows = await step(dir('webshop'), [T.cdn1.prompt], 'opencode run');
  const o1 = rows.find((r) => !r.parent);
  rows = await step(dir('webshop'), ['--session', o1.id, T.cdn2.prompt], 'opencode run --session');
  if (rows.length) throw new Error('opencode run --session made a new session');
  sessions.push({
    client: 'opencode',
    id: o1.id,
    cwd: dir('webshop'),
    prompts: turns(T.cdn1, T.cdn2),
    title: ids().get(o1.id).title,
    mode: 'run',
    via: 'run, then run --session ID',
  });

  rows = await step(dir('api-server'), [T.body1.prompt], 'opencode run (task)');
  const o2 = rows.find((r) => !r.parent);
  sessions.push({
    client: 'opencode',
    id: o2.id,
    cwd: dir('api-server'),
    prompts: turns(T.body1),
    title: ids().get(o2.id).title,
    mode: 'run',
    subagents: rows.filter((r) => r.parent).length,
  });
  log(`opencode: ${o1.id} ${o2.id}`);
  const dest = join(OUT, 'home', '.local', 'share', 'opencode', 'opencode.db');
  await copySqlite(db, dest);
  // rollback journal, not WAL: the demo may be installed read-only, and a WAL database cannot be
  // opened read-only without its -shm/-wal companions
  const d = new Database(dest);
  d.pragma('journal_mode = DELETE');
  d.close();
}

async function gemini(bin, mock) {
  const env = setups.gemini({ home: HOME, bin, mock });
  const store = join(HOME, '.gemini', 'tmp');
  const one = (before) => {
    const f = since(store, before, /\/chats\/session-[^/]+\.jsonl$/);
    if (f.length !== 1) throw new Error(`expected one new Gemini chat, got ${JSON.stringify(f)}`);
    return JSON.parse(readFileSync(join(store, f[0]), 'utf8').split('\n')[0]).sessionId;
  };
  let before = snap(store);
  await interactive({
    argv: [bin, '--yolo'],
    cwd: dir('blog'),
    env,
    ready: /Type your message|YOLO/i,
    settle: 3000,
    steps: [T.rss1, T.rss2],
    quit: () => quitWith('/quit'),
  });
  const g1 = one(before);
  sessions.push({ client: 'gemini', id: g1, cwd: dir('blog'), prompts: turns(T.rss1, T.rss2), title: null, mode: 'interactive' });

  before = snap(store);
  mustRun(await run([bin, '--yolo', '-p', T.auth.prompt], { cwd: dir('api-server'), env, timeoutMs: 180000 }), 'gemini -p');
  const g2 = one(before);
  const subs = since(store, before, /\/chats\/[^/]+\/[^/]+\.jsonl$/);
  sessions.push({
    client: 'gemini',
    id: g2,
    cwd: dir('api-server'),
    prompts: turns(T.auth),
    title: null,
    mode: 'print',
    subagents: subs.length,
  });
  log(`gemini: ${g1} ${g2}`);
  copyStore(HOME, ['.gemini/tmp', '.gemini/projects.json'], OUT, { skip: (f) => /\/(shell_history|logs\.json)$/.test(f) });
}

const drive = { claude, codex, pi, opencode, gemini };

// ---------------------------------------------------------------------------------------------------

const wanted = process.argv.slice(2).length ? process.argv.slice(2) : Object.keys(drive);
makeHome();
// all clients: a fresh demo HOME; some: theirs re-recorded, the others' sessions kept
const STORES = { claude: ['.claude'], codex: ['.codex'], pi: ['.pi'], opencode: ['.local/share/opencode'], gemini: ['.gemini'] };
let kept = [];
if (wanted.length === Object.keys(drive).length) rmSync(join(OUT, 'home'), { recursive: true, force: true });
else {
  for (const n of wanted) for (const s of STORES[n]) rmSync(join(OUT, 'home', s), { recursive: true, force: true });
  try {
    kept = JSON.parse(readFileSync(join(OUT, 'manifest.json'), 'utf8')).sessions.filter((s) => !wanted.includes(s.client));
  } catch {
    kept = [];
  }
}
mkdirSync(join(OUT, 'home'), { recursive: true });
let failed = 0;
for (const name of wanted) {
  const mock = await startMock({ maxMs: 20 * 60 * 1000, maxRequests: 2000, answer });
  try {
    await drive[name](install(name), mock);
  } catch (e) {
    failed++;
    log(`${name}: FAILED: ${e?.stack || e}`);
  } finally {
    await mock.close();
    tmux.kill();
  }
}
scanSecrets(join(OUT, 'home'));
const all = [...kept, ...sessions].sort((a, b) => Object.keys(drive).indexOf(a.client) - Object.keys(drive).indexOf(b.client));
for (const s of all) s.version = clients[s.client].version;
writeFileSync(
  join(OUT, 'manifest.json'),
  `${JSON.stringify(
    {
      '//': 'What each demo session is; written by test/real/demo.mjs (npm run demo:record), which says where every file comes from.',
      recordedAt: new Date().toISOString().slice(0, 10),
      home: HOME,
      sessions: all,
    },
    null,
    2,
  )}\n`,
);
rmSync(HOME, { recursive: true, force: true });
log(`demo: ${sessions.length} sessions in ${join(OUT, 'home')}; ${readdirSync(join(OUT, 'home')).join(' ')}`);
process.exit(failed ? 1 : 0);
