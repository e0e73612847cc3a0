// `resume preview KEY` and the transcript pager text (issue 5): the prompts and the last reply,
// secrets redacted, control characters and escape sequences stripped; the preview reads only the
// stored listing.

import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { pagerEnv } from '../lib/present/pager.js';
import { wrapProse } from '../lib/present/transcript.js';
import { BIN, envFor, jsonl, needs, run, tempHome, write } from './helpers.js';
import { claudeLine, piSession } from './launch-helpers.js';

const ID = 'e5555555-0000-4000-8000-000000000005';
const KEY = `claude:${ID}`;

/** A long first prompt, which a terminal or fzf's preview window wraps. */
const LONG = 'move the billing webhook handler to the job queue with retries and exponential backoff';

/** A home with one Claude session whose one prompt is LONG; its id and key. */
function longPromptHome(prefix: string, id: string): { h: string; id: string; key: string } {
  const h = tempHome(prefix);
  write(
    h,
    `.claude/projects/-w/${id}.jsonl`,
    jsonl(
      claudeLine({ id, cwd: h, type: 'user', uuid: 'u-0', at: '2026-11-20T10:00:00.000Z' }, { message: { role: 'user', content: LONG } }),
    ),
  );
  return { h, id, key: `claude:${id}` };
}

/** `resume ARGS` on a terminal `cols` wide (script(1)), without colour: its stdout, carriage returns out. */
function onTerminal(h: string, cols: number, args: string[], env: Record<string, string> = {}): string {
  return spawnSync('script', ['-qec', `stty cols ${cols}; ${process.execPath} ${BIN} ${args.join(' ')}`, '/dev/null'], {
    env: { ...envFor(h), NO_COLOR: '1', ...env },
    encoding: 'utf8',
  }).stdout.replace(/\r/g, '');
}

function home(): { home: string; file: string } {
  const h = tempHome('resume-preview-');
  const cwd = path.join(h, 'work dir');
  fs.mkdirSync(cwd);
  const line = (type: string, i: number, message: object, extra: object = {}) =>
    claudeLine({ id: ID, cwd, type, uuid: `u-${i}`, at: `2026-11-20T10:00:0${i}.000Z`, branch: 'feat/\x1b[31mred' }, { message, ...extra });
  const file = write(
    h,
    `.claude/projects/-w/${ID}.jsonl`,
    jsonl(
      line('user', 0, { role: 'user', content: 'deploy with key sk-ant-api03-abcdefghijklmnopqrstuvwxyz0123456789 please' }),
      line('assistant', 1, {
        role: 'assistant',
        content: [
          { type: 'tool_use', id: 't1', name: 'Bash', input: { command: 'export GITHUB_TOKEN=ghp_abcdefghijklmnopqrstuvwxyz0123456789' } },
        ],
      }),
      line('user', 2, { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't1', content: 'done \x1b[2J\x1b]0;pwned\x07 ok' }] }),
      line('user', 3, { role: 'user', content: 'now the \x1b[1mlast\x1b[0m prompt with password=hunter2hunter2' }),
      line('assistant', 4, { role: 'assistant', content: [{ type: 'text', text: 'Done. Token: Bearer abcdefghijklmnop1234567890' }] }),
    ),
  );
  return { home: h, file };
}

describe('resume preview', () => {
  it('shows title, harness, directory, branch, prompts, last reply and the file; redacted and clean', () => {
    const { home: h, file } = home();
    const r = run(h, ['preview', KEY]);
    expect(r.code).toBe(0);
    const o = r.stdout;
    expect(o).not.toMatch(/[\x00-\x08\x0b-\x1f\x7f]/);
    expect(o).not.toContain('sk-ant-api03');
    expect(o).not.toContain('hunter2');
    expect(o).not.toContain('abcdefghijklmnop1234567890');
    expect(o).toMatch(/^harness: +claude$/m);
    expect(o).toMatch(/^dir: +~\/work dir$/m);
    expect(o).toMatch(/^branch: +feat\/red$/m);
    expect(o).toMatch(/^prompts: +2$/m);
    expect(o).toMatch(/first prompt:\ndeploy with key \[REDACTED[^\]]*\] please\n/);
    expect(o).toMatch(/last prompt:\nnow the last prompt with password=\[REDACTED:password\]\n/);
    expect(o).toMatch(/last reply:\nDone\. Token: Bearer \[REDACTED:bearer-token\]\n/);
    expect(o).toContain(`file: ${file}`);
  });

  it('colour only in the picker (or on a terminal), never with NO_COLOR; the text is the same', () => {
    const { home: h } = home();
    const plain = run(h, ['preview', KEY]).stdout;
    expect(run(h, ['preview', KEY], { NO_COLOR: undefined }).stdout).toBe(plain);
    const coloured = run(h, ['preview', KEY], { NO_COLOR: undefined, RESUME_PICK_DIR: h }).stdout;
    expect(coloured).toContain('\x1b[1m');
    expect(coloured.replace(/\x1b\[[0-9;]*m/g, '')).toBe(plain);
    expect(run(h, ['preview', KEY], { RESUME_PICK_DIR: h }).stdout).toBe(plain);
  });

  it('reads the stored listing only: a transcript changed since the last index is not parsed', () => {
    const { home: h, file } = home();
    expect(run(h, ['index']).code).toBe(0);
    fs.appendFileSync(
      file,
      jsonl({
        parentUuid: null,
        isSidechain: false,
        userType: 'external',
        cwd: h,
        sessionId: ID,
        version: '2.1.0',
        type: 'user',
        uuid: 'u-9',
        timestamp: '2026-11-20T10:00:09.000Z',
        entrypoint: 'cli',
        message: { role: 'user', content: 'a prompt added later' },
      }),
    );
    const r = run(h, ['preview', KEY]);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^prompts: +2$/m);
    expect(r.stdout).not.toContain('a prompt added later');
    // the listing itself brings it in
    expect(run(h, ['ls', '--json']).stdout).toContain('a prompt added later');
    expect(run(h, ['preview', KEY]).stdout).toMatch(/^prompts: +3$/m);
  });

  it('--search starts with where the words are, as resume search shows them: redacted, clean, marked', () => {
    const { home: h } = home();
    const plain = run(h, ['preview', KEY]).stdout;
    const r = run(h, ['preview', KEY, '--search', 'please']);
    expect(r.code, r.stderr).toBe(0);
    const [title, blank, found, after] = r.stdout.split('\n');
    expect([title, blank]).toEqual(plain.split('\n').slice(0, 2));
    // the prompt that holds it, its secret redacted, the word marked (no colour: «»)
    expect(found).toMatch(/^prompt: deploy with key \[REDACTED[^\]]*\] «please»$/);
    expect(after).toBe('');
    // then the preview as it is without --search
    expect(r.stdout.split('\n').slice(4).join('\n')).toBe(plain.split('\n').slice(2).join('\n'));
    // a tool call's secret and a tool output's escape sequences are not let through either
    const tool = run(h, ['preview', KEY, '--search', 'export']).stdout;
    expect(tool).toMatch(/^tool call: .*«export» GITHUB_TOKEN=\[REDACTED[^\]]*\]/m);
    expect(tool).not.toContain('ghp_');
    const out = run(h, ['preview', KEY, '--search', 'pwned']).stdout;
    expect(out).toMatch(/^tool output: .*done/m);
    expect(out).not.toMatch(/[\x00-\x08\x0b-\x1f\x7f]/);
    // not on a terminal and outside the picker: no colour, NO_COLOR or not
    const coloured = run(h, ['preview', KEY, '--search', 'please'], { NO_COLOR: undefined, RESUME_PICK_DIR: undefined }).stdout;
    expect(coloured).toBe(r.stdout);
    // words the session does not hold all of, or none: the preview as it is
    expect(run(h, ['preview', KEY, '--search', 'please zebrafish']).stdout).toBe(plain);
    expect(run(h, ['preview', KEY, '--search', ' ']).stdout).toBe(plain);
    // a word search refuses (thousands of characters): the session as it is
    expect(run(h, ['preview', KEY, '--search', 'x'.repeat(30_000)])).toMatchObject({ code: 0, stdout: plain });
  });

  it('--search in the picker: only during its deep search (its state says which)', () => {
    const { home: h } = home();
    const pick = path.join(h, 'pick');
    fs.mkdirSync(pick);
    const state = (deep: boolean) =>
      fs.writeFileSync(path.join(pick, 'state.json'), JSON.stringify({ all: false, harness: null, dir: null, deep }));
    const plain = run(h, ['preview', KEY], { RESUME_PICK_DIR: pick, NO_COLOR: undefined }).stdout;
    state(false);
    expect(run(h, ['preview', KEY, '--search', 'please'], { RESUME_PICK_DIR: pick, NO_COLOR: undefined }).stdout).toBe(plain);
    state(true);
    const deep = run(h, ['preview', KEY, '--search', 'please'], { RESUME_PICK_DIR: pick, NO_COLOR: undefined }).stdout;
    expect(deep).toContain('\x1b[1;33mplease\x1b[0m');
    expect(deep.replace(/\x1b\[[0-9;]*m/g, '')).toMatch(/^prompt: deploy with key \[REDACTED[^\]]*\] please$/m);
  });

  it('--search in the picker while it names sessions: the prompt the words name, when the first or last does not hold as many', () => {
    const h = tempHome('resume-preview-');
    const cwd = path.join(h, 'shop');
    fs.mkdirSync(cwd);
    const id = 'abcdef77-1111-4111-8111-111111111111';
    const prompts = ['start the work', 'now the Zeppelin middleware please', 'then the zeppelin tests', 'the end'];
    piSession(h, { id, cwd, prompts });
    const key = `pi:${id}`;
    const pick = path.join(h, 'pick');
    fs.mkdirSync(pick);
    fs.writeFileSync(path.join(pick, 'state.json'), JSON.stringify({ all: false, harness: null, dir: null, deep: false }));
    const preview = (q: string, color = false) =>
      run(h, ['preview', key, '--search', q], { RESUME_PICK_DIR: pick, ...(color ? { NO_COLOR: undefined } : {}) }).stdout;
    const plain = run(h, ['preview', key]).stdout;
    expect(plain).not.toContain('zeppelin');
    const lines = (q: string) => preview(q).split('\n');
    // the first prompt holding the most words, its words marked only with colour (as the list marks them)
    expect(lines('zeppelin').slice(0, 4)).toEqual(['start the work', '', 'prompt: now the Zeppelin middleware please', '']);
    expect(lines('zeppelin tests')[2]).toBe('prompt: then the zeppelin tests');
    expect(preview('zeppelin', true)).toContain('\x1b[1;32mZeppelin\x1b[0m');
    // after the line, the preview as it is
    expect(lines('zeppelin').slice(4).join('\n')).toBe(plain.split('\n').slice(2).join('\n'));
    // the first or last prompt (shown anyway) holding as many, no prompt, or only a word left out: as it is
    for (const q of ['start', 'the end', 'the', 'nowhere', '!zeppelin', ' ']) expect(preview(q), q).toBe(plain);
    // in a narrow preview window the line is broken at a space, and each row keeps its marks
    const narrow = run(h, ['preview', key, '--search', 'zeppelin tests'], {
      RESUME_PICK_DIR: pick,
      NO_COLOR: undefined,
      FZF_PREVIEW_COLUMNS: '30',
    }).stdout.split('\n');
    const M = (w: string) => `\x1b[1;32m${w}\x1b[0m`;
    expect(narrow.slice(2, 4)).toEqual([`\x1b[2mprompt:\x1b[0m then the ${M('zeppelin')}`, M('tests')]);
  });

  it("in an fzf preview window, the title's first row leaves room for fzf's scroll information at its end", () => {
    const { h, key } = longPromptHome('resume-preview-title-', 'f6666666-0000-4000-8000-000000000006');
    const title = LONG;
    // not in a preview window: the title on one line, as it is
    expect(run(h, ['preview', key]).stdout.split('\n')[0]).toBe(title);
    // 60 columns: the first row ends 8 short of them, at a space; the rest of the title follows
    const [top, rest, blank] = run(h, ['preview', key], { FZF_PREVIEW_COLUMNS: '60' }).stdout.split('\n');
    expect(top.length).toBeLessThanOrEqual(52);
    expect(top).toBe('move the billing webhook handler to the job queue');
    expect(`${top} ${rest}`).toBe(title);
    expect(blank).toBe('');
    // the prose below (here the first prompt) in rows broken at spaces, within the window less fzf's
    // scroll bar (fzf wrapped a longer row at its last column, inside a word)
    const narrow = run(h, ['preview', key], { FZF_PREVIEW_COLUMNS: '40' }).stdout.split('\n');
    const at = narrow.indexOf('first prompt:');
    const prose = narrow.slice(at + 1, narrow.indexOf('', at));
    expect(prose.length).toBe(3);
    for (const row of prose) expect(row.length).toBeLessThanOrEqual(39);
    expect(prose.join(' ')).toBe(title);
    // (but an id, a path: no spaces to break at)
    for (const row of narrow.filter((l) => !/^(id|dir|file):/.test(l))) expect(row.length).toBeLessThanOrEqual(39);
    // a title that fits, and a window too narrow to spare the room: as it is
    expect(run(h, ['preview', key], { FZF_PREVIEW_COLUMNS: '200' }).stdout.split('\n')[0]).toBe(title);
    expect(run(h, ['preview', key], { FZF_PREVIEW_COLUMNS: '24' }).stdout.split('\n')[0]).toBe(title);
  });

  it('show on a terminal breaks the title and the prompts at spaces, each row under the first; piped, one line', () => {
    const { h, id } = longPromptHome('resume-show-rows-', 'f7777777-0000-4000-8000-000000000007');
    const title = LONG;
    const shown = onTerminal(h, 60, ['show', id]);
    const lines = shown.split('\n');
    for (const key of ['title:', 'first prompt:']) {
      const at = lines.findIndex((l) => l.startsWith(key));
      const rows = [lines[at] ?? ''];
      for (let i = at + 1; lines[i]?.startsWith(' '.repeat(14)); i++) rows.push(lines[i] ?? '');
      expect(rows.length, key).toBe(2);
      for (const r of rows) expect(r.length).toBeLessThanOrEqual(60);
      expect(rows.map((r) => r.slice(14)).join(' ')).toBe(title);
    }
    expect(run(h, ['show', id]).stdout).toContain(`title:        ${title}\n`);
  });

  it('an unknown key is exit 1 with one line', () => {
    const { home: h } = home();
    const r = run(h, ['preview', 'claude:nope']);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
  });

  it('takes its key with or without --demo before it, as the picker passes them; an option it does not know is a usage error', () => {
    const { home: h } = home();
    const plain = run(h, ['preview', KEY]);
    expect(plain.code).toBe(0);
    expect(run(h, ['preview', '--', KEY])).toEqual(plain);
    const demoKey = run(h, ['--demo', 'rows']).stdout.split('\t')[0];
    const demo = run(h, ['--demo', 'preview', demoKey]);
    expect(demo.code, demo.stderr).toBe(0);
    expect(demo.stdout).toMatch(/^harness: /m);
    expect(run(h, ['preview', '--demo', demoKey])).toEqual(demo);
    const bad = run(h, ['preview', '--nope', KEY]);
    expect(bad.code).toBe(2);
    expect(bad.stderr.trim().split('\n')).toHaveLength(1);
  });
});

describe('the transcript for the pager', () => {
  it('every turn in order, redacted, without control characters (piped: no pager)', () => {
    const { home: h } = home();
    const r = run(h, ['__transcript', KEY]);
    expect(r.code).toBe(0);
    const o = r.stdout;
    expect(o).not.toMatch(/[\x00-\x08\x0b-\x1f\x7f]/);
    expect(o).not.toMatch(/sk-ant-api03|ghp_abc|hunter2|abcdefghijklmnop1234567890/);
    const order = [
      '── user',
      'deploy with key',
      '── tool call',
      'Bash export GITHUB_TOKEN=',
      '── tool output',
      'done',
      'ok',
      '── user',
      'now the last prompt',
      '── assistant',
      'Done. Token: Bearer [REDACTED:bearer-token]',
    ];
    let at = 0;
    for (const want of order) {
      const i = o.indexOf(want, at);
      expect(i, `'${want}' after offset ${at} in:\n${o}`).toBeGreaterThanOrEqual(0);
      at = i + want.length;
    }
  });
});

describe('the transcript on a terminal', () => {
  it('breaks prose into rows at spaces, leaving fenced and indented code and tool output as written', () => {
    const long = 'the handler calls fulfilOrder once and answers 500 on any error so a flaky database drops the order';
    const code = `    const x = ${'y + '.repeat(20)}z;`;
    const table = `| ${'column '.repeat(8)}| value |`;
    const text = [
      'intro',
      long,
      '```ts',
      `const a = '${'w '.repeat(30)}';`,
      '```',
      code,
      table,
      '- a list item that goes on and on past the width of the terminal here',
    ].join('\n');
    const rows = wrapProse(text, 40).split('\n');
    for (const r of rows) if (!r.startsWith('const a') && r !== code && r !== table) expect(r.length, r).toBeLessThanOrEqual(40);
    expect(rows).toContain(`const a = '${'w '.repeat(30)}';`);
    expect(rows).toContain(code);
    expect(rows).toContain(table);
    expect(rows.slice(1, 4).join(' ')).toBe(long);
    expect(rows.filter((r) => r.startsWith('- a list')).length).toBe(1);
  });

  it('__transcript on a terminal (through the pager) breaks a long prompt to its width; piped, each line whole', () => {
    const { h, key } = longPromptHome('resume-transcript-rows-', 'f8888888-0000-4000-8000-000000000008');
    const prompt = LONG;
    const paged = onTerminal(h, 50, ['__transcript', key], { PAGER: 'cat' });
    const lines = paged.split('\n');
    const at = lines.findIndex((l) => l.startsWith('── user'));
    const rows = lines.slice(at + 1, lines.indexOf('', at));
    expect(rows.length).toBe(2);
    for (const r of rows) expect(r.length).toBeLessThanOrEqual(50);
    expect(rows.join(' ')).toBe(prompt);
    expect(run(h, ['__transcript', key]).stdout).toContain(`\n${prompt}\n`);
  });
});

describe("the pager's environment", () => {
  it('tells less the text is UTF-8 when the locale does not, and leaves a charset given alone', () => {
    expect(pagerEnv({ PATH: '/bin' })).toEqual({ PATH: '/bin', LESSCHARSET: 'utf-8' });
    expect(pagerEnv({ LANG: 'C' }).LESSCHARSET).toBe('utf-8');
    expect(pagerEnv({ LANG: 'C.UTF-8', LC_ALL: 'POSIX' }).LESSCHARSET).toBe('utf-8');
    for (const env of [{ LANG: 'en_US.UTF-8' }, { LC_CTYPE: 'de_DE.utf8' }, { LC_ALL: 'C.UTF-8', LANG: 'C' }])
      expect(pagerEnv(env)).toBe(env);
    for (const env of [{ LESSCHARSET: 'latin1' }, { LESSCHARDEF: '8bcccbcc18b95.b' }]) expect(pagerEnv(env)).toBe(env);
  });
});

describe('a transcript gone since the list was made', () => {
  it('the pager says so in one line, exit 1', () => {
    const { home: h, file } = home();
    expect(run(h, ['index']).code).toBe(0);
    fs.rmSync(file);
    const r = run(h, ['__transcript', KEY], { PAGER: 'cat' });
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe(`resume: the transcript is gone: ${file} was moved or deleted since the list was made\n`);
  });
});

describe('without a terminal', () => {
  it.skipIf(needs('setsid'))('__pick is exit 2 saying the picker needs one; resume prints the candidates and exits 1', () => {
    const { home: h } = home();
    const env = envFor(h);
    const p = spawnSync('setsid', [process.execPath, BIN, '__pick'], { env, cwd: h, encoding: 'utf8', input: '' });
    expect(p.status).toBe(2);
    expect(p.stderr).toMatch(/^resume: the picker needs a terminal/);
    const r = spawnSync('setsid', [process.execPath, BIN], { env, cwd: h, encoding: 'utf8', input: '' });
    expect(r.status).toBe(1);
    expect(r.stdout).toMatch(/^e5555555\tclaude\t/);
  });
});
