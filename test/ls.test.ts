// `resume ls` without --json runs in the rows bundle and, when nothing changed, prints from the
// rendered rows (rows.bin) without reading the listing. Its output must be exactly what the
// listing gives, for every filter, on a terminal and on a pipe.

import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { width } from '../lib/util/text.js';
import { BIN, claudePrompt, envFor, jsonl, must, run, tempHome, write } from './helpers.js';

const uuid = (n: number) => `${String(n).padStart(8, '0')}-3333-4333-8333-333333333333`;
const cache = (h: string) => path.join(h, '.cache', 'resume');

/** A Claude Code session of prompts `texts` at `at` (`extra`: fields of each record). */
function claude(
  h: string,
  n: number,
  cwd: string,
  texts: string[],
  { at, extra = {} }: { at: string; extra?: Record<string, unknown> },
): string {
  const id = uuid(n);
  const lines = texts.map((text, i) => claudePrompt(id, cwd, text, at, { uuid: `u-${id}-${i}`, ...extra }));
  return write(h, `.claude/projects/${cwd.replace(/[^a-zA-Z0-9]/g, '-')}/${id}.jsonl`, jsonl(...lines));
}

function pi(h: string, n: number, cwd: string, texts: string[], ts: string): void {
  const id = uuid(n);
  const msgs = texts.map((text, i) => ({
    type: 'message',
    id: `m${i}`,
    parentId: i ? `m${i - 1}` : null,
    timestamp: ts,
    message: { role: 'user', content: [{ type: 'text', text }], timestamp: Date.parse(ts) },
  }));
  write(
    h,
    `.pi/agent/sessions/--p${n}--/${ts.replace(/[:.]/g, '-')}_${id}.jsonl`,
    jsonl({ type: 'session', version: 3, id, timestamp: ts, cwd }, ...msgs),
  );
}

/**
 * Sessions of every kind a row shortens or hides: in and outside HOME, HOME itself, hidden for each
 * reason, untitled with a snapshot name; and (unless `plainDirs`) a directory with a tab in it, which
 * a row shows made one line.
 */
function store(home?: string, plainDirs = false): string {
  const h = home ?? tempHome();
  claude(h, 1, path.join(h, 'src', 'app'), ['first ask', 'second ask', 'third ask'], { at: '2026-05-01T10:00:00.000Z' });
  claude(h, 2, plainDirs ? '/tmp/outside the home' : '/tmp/outside\tthe home', ['tab in the directory'], {
    at: '2026-05-02T10:00:00.000Z',
  });
  claude(h, 3, h, ['at home'], { at: '2026-05-03T10:00:00.000Z' });
  claude(h, 4, '/tmp/w', ['an sdk worker'], { at: '2026-05-04T10:00:00.000Z', extra: { entrypoint: 'sdk-ts' } });
  claude(h, 5, '/tmp/n', ['to be named'], { at: '2026-05-05T10:00:00.000Z' });
  pi(h, 6, '/tmp/p', ['a pi session', 'and more'], '2026-05-06T10:00:00.000Z');
  pi(h, 7, '/tmp/e', [], '2026-05-07T10:00:00.000Z');
  write(h, '.config/resume/sessions/names.json', JSON.stringify({ [uuid(5)]: 'named by snapshot' }));
  return h;
}

const VARIANTS = [[], ['-a'], ['-n', '2'], ['-a', '-n', '3'], ['--harness', 'pi'], ['-a', '--harness', 'claude'], ['-n0']];

const keysOf = (out: string) =>
  out
    .split('--stderr--')[0]
    .split('\n')
    .filter(Boolean)
    .map((l) => l.split('\t')[0]);

const ls = (h: string, args: string[]) => {
  const r = run(h, ['ls', ...args]);
  expect(r.code, r.stderr).toBe(0);
  return `${r.stdout}--stderr--\n${r.stderr}`;
};

/** ls on a terminal (script(1) gives it one), as the table it prints there. */
function lsTty(h: string, args: string[], extra: Record<string, string | undefined> = {}, cols = 120): string {
  const cmd = [process.execPath, BIN, 'ls', ...args].map((a) => `'${a.replace(/'/g, `'\\''`)}'`).join(' ');
  const r = spawnSync('script', ['-qec', `stty cols ${cols} 2>/dev/null; ${cmd}`, '/dev/null'], {
    env: envFor(h, extra),
    cwd: h,
    encoding: 'utf8',
  });
  expect(r.status, r.stderr).toBe(0);
  return r.stdout.replace(/\r\n/g, '\n');
}

describe('resume ls', () => {
  it('prints from the rendered rows exactly what the listing gives, never reading the listing', () => {
    const h = store();
    // the first run builds; its output comes from the listing it made
    const built = VARIANTS.map((v) => ls(h, v));
    const fromBin = VARIANTS.map((v) => ls(h, v));
    expect(fromBin).toEqual(built);
    // nothing changed: neither listing file is read
    for (const f of ['list.json', 'rows.json']) fs.writeFileSync(path.join(cache(h), f), 'not read');
    expect(VARIANTS.map((v) => ls(h, v))).toEqual(built);
    expect(fs.readFileSync(path.join(cache(h), 'list.json'), 'utf8')).toBe('not read');

    const [plain, all] = built;
    const line = (id: number) => must(all.split('\n').find((l) => l.startsWith(uuid(id).slice(0, 8)))).split('\t');
    // short id, time, harness, whole directory, branch, prompts, label
    expect(line(1)).toEqual([
      uuid(1).slice(0, 8),
      '2026-05-01T10:00:00.000Z',
      'claude',
      path.join(h, 'src', 'app'),
      'main',
      '3',
      'first ask',
    ]);
    expect(line(2)[3]).toBe('/tmp/outside the home');
    expect(line(3)[3]).toBe(h);
    expect(line(5)[6]).toBe('named by snapshot');
    expect(line(6)[5]).toBe('2');
    expect(plain).not.toContain(uuid(4).slice(0, 8));
    expect(plain).toMatch(/--stderr--\n\+3 hidden: 1 empty, 1 print-mode, 1 SDK; --all shows them\n$/);
    expect(all).toMatch(/--stderr--\n$/);
  });

  it('gives the same from rows.json, and from the listing when the rows cannot say it exactly', () => {
    const h = store();
    const want = VARIANTS.map((v) => ls(h, v));
    // rows.bin gone: rows.json serves (and rows.bin is written again)
    fs.rmSync(path.join(cache(h), 'rows.bin'));
    expect(VARIANTS.map((v) => ls(h, v))).toEqual(want);
    expect(fs.existsSync(path.join(cache(h), 'rows.bin'))).toBe(true);
    // a directory filter reads the listing
    const dir = ls(h, ['--dir', path.join(h, 'src')]);
    expect(dir.split('\n')[0].split('\t')[0]).toBe(uuid(1).slice(0, 8));
    expect(dir.split('\n')[1]).toBe('--stderr--');

    // a HOME that is not one clean line: a directory made one line (runs of spaces folded, as in
    // every column) cannot be put back from `~`; the listing serves
    const odd = path.join(tempHome(), 'two  spaces');
    fs.mkdirSync(odd);
    store(odd);
    const first = VARIANTS.map((v) => ls(odd, v));
    expect(VARIANTS.map((v) => ls(odd, v))).toEqual(first);
    expect(first[1]).toContain(`\t${path.join(odd, 'src', 'app').replace('two  spaces', 'two spaces')}\t`);
  });

  it('applies a directory filter from the rendered rows when each row holds its directory exactly, else from the listing', () => {
    for (const plainDirs of [true, false]) {
      const h = store(undefined, plainDirs);
      claude(h, 8, path.join(h, 'src', 'application'), ['a sibling directory'], { at: '2026-05-08T10:00:00.000Z' });
      const dirs = [path.join(h, 'src', 'app'), path.join(h, 'src'), h, '/tmp/outside the home', '/nowhere'];
      const cmds = dirs.flatMap((d) => [
        ['rows', '-a', '--dir', d],
        ['rows', '--align', '--status', '--dir', d],
        ['ls', '--dir', d],
        ['ls', '-a', '-n', '1', '--dir', d],
        ['__complete', '--', '-a', '--dir', d, '000'],
      ]);
      const out = (c: string[]) => {
        const r = run(h, c);
        expect(r.code, `${c.join(' ')}: ${r.stderr}`).toBe(0);
        return `${r.stdout}--stderr--\n${r.stderr}`;
      };
      // from the listing (its first build), then from the rendered rows
      fs.rmSync(path.join(cache(h), 'rows.bin'), { force: true });
      const want = cmds.map((c) => {
        fs.rmSync(path.join(cache(h), 'rows.bin'), { force: true });
        return out(c);
      });
      if (plainDirs) {
        // nothing changed and every directory is exact: neither listing file is read
        for (const f of ['list.json', 'rows.json']) fs.writeFileSync(path.join(cache(h), f), 'not read');
      }
      expect(cmds.map(out)).toEqual(want);
      const rowsIn = (d: string) => want[cmds.findIndex((c) => c[0] === 'rows' && c[1] === '-a' && c[3] === d)];
      expect(keysOf(rowsIn(path.join(h, 'src', 'app')))).toEqual([`claude:${uuid(1)}`]);
      expect(keysOf(rowsIn(path.join(h, 'src'))).sort()).toEqual([`claude:${uuid(1)}`, `claude:${uuid(8)}`]);
      expect(keysOf(rowsIn(h))).toHaveLength(3);
      expect(keysOf(rowsIn('/tmp/outside the home'))).toEqual(plainDirs ? [`claude:${uuid(2)}`] : []);
      expect(keysOf(rowsIn('/nowhere'))).toEqual([]);
    }
  }, 120_000);

  it('shows an append at once (the rows of check.patch over rows.bin) with its new prompt count', () => {
    const h = store();
    const file = claude(h, 1, path.join(h, 'src', 'app'), ['first ask', 'second ask', 'third ask'], { at: '2026-05-01T10:00:00.000Z' });
    ls(h, ['-a']);
    fs.appendFileSync(
      file,
      jsonl({
        parentUuid: null,
        isSidechain: false,
        userType: 'external',
        cwd: path.join(h, 'src', 'app'),
        sessionId: uuid(1),
        version: '2.1.207',
        gitBranch: 'main',
        type: 'user',
        message: { role: 'user', content: 'fourth ask' },
        uuid: 'u-late',
        timestamp: '2026-06-01T10:00:00.000Z',
        entrypoint: 'cli',
      }),
    );
    for (let i = 0; i < 2; i++) {
      const first = ls(h, ['-n', '1']).split('\n')[0].split('\t');
      expect(first[0]).toBe(uuid(1).slice(0, 8));
      expect(first[1]).toBe('2026-06-01T10:00:00.000Z');
      expect(first[5]).toBe('4');
    }
  });

  it('leaves to the CLI what its fast path does not take', () => {
    const h = store();
    const json = run(h, ['ls', '--json', '-n', '1']);
    expect(json.code).toBe(0);
    expect(JSON.parse(json.stdout)).toHaveLength(1);
    for (const bad of [['-n', 'x'], ['-n', '-1'], ['extra'], ['--nope']]) {
      const r = run(h, ['ls', ...bad]);
      expect(r.code, bad.join(' ')).toBe(2);
      expect(r.stdout).toBe('');
      expect(r.stderr.trim().split('\n')).toHaveLength(1);
    }
    const help = run(h, ['ls', '--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('--json');
    // the demo, with --demo before or after the command
    const demo = run(h, ['--demo', 'ls', '-n', '2']);
    expect(demo.code).toBe(0);
    expect(demo.stdout.split('\n').filter(Boolean)).toHaveLength(2);
    expect(run(h, ['ls', '--demo', '-n', '2']).stdout).toBe(demo.stdout);
  });

  it('prints a table on a terminal, the same from the rendered rows as from the listing', () => {
    const h = store();
    // built first: a build on a terminal shows its progress on stderr
    expect(run(h, ['index']).code).toBe(0);
    const fromBin = lsTty(h, ['-a']);
    fs.rmSync(path.join(cache(h), 'rows.bin'));
    expect(lsTty(h, ['-a'])).toBe(fromBin);
    fs.writeFileSync(path.join(cache(h), 'rows.json'), 'damaged');
    expect(lsTty(h, ['-a'])).toBe(fromBin);
    const [header, ...rows] = fromBin.split('\n').filter(Boolean);
    expect(rows).toHaveLength(7);
    // a header row naming the columns, each name where its column starts
    expect(header).toMatch(/^ID +AGE +HARNESS +DIRECTORY +BRANCH +PROMPTS +TITLE$/);
    const one = must(rows.find((l) => l.startsWith(uuid(1).slice(0, 8))));
    for (const [name, value] of [
      ['HARNESS', 'claude'],
      ['DIRECTORY', '~/src/app'],
      ['BRANCH', 'main'],
      ['TITLE', 'first ask'],
    ]) {
      expect(one.indexOf(value), name).toBe(header.indexOf(name));
    }
    // (prompts right-aligned under its name)
    expect(one.indexOf('main') + 'main'.length).toBeLessThan(header.indexOf('PROMPTS'));
    expect(one.indexOf('3  first ask')).toBe(header.indexOf('S  TITLE'));
    // no tab (the table pads with spaces), no colour under NO_COLOR, directories under HOME from ~
    expect(fromBin).not.toMatch(/[\t\x1b]/);
    expect(one).toMatch(/~\/src\/app +main +3 +first ask$/);
    expect(rows.find((l) => l.startsWith(uuid(2).slice(0, 8)))).toContain('/tmp/outside the home');
    // with colour the header is dim; piped, no header at all
    const colored = lsTty(h, ['-a'], { NO_COLOR: undefined, TERM: 'xterm-256color' }).split('\n')[0];
    expect(colored).toMatch(/^\x1b\[2mID +AGE +HARNESS +DIRECTORY +BRANCH +PROMPTS +TITLE\x1b\[0m$/);
    const piped = run(h, ['ls', '-a']).stdout.split('\n').filter(Boolean);
    expect(piped).toHaveLength(7);
    expect(piped.every((l) => l.split('\t').length === 7 && !l.startsWith('ID'))).toBe(true);
    // at 80 columns the prompts column is headed # (PROMPTS would take five columns from the title),
    // and there is no branch column (it would leave the title fewer than 36, as in the picker)
    const narrow = lsTty(h, ['-a'], {}, 80).split('\n');
    expect(narrow[0]).toMatch(/^ID +AGE +HARNESS +DIRECTORY +# +TITLE$/);
    expect(narrow[0].indexOf('TITLE')).toBe(must(narrow.find((l) => l.startsWith(uuid(1).slice(0, 8)))).indexOf('first ask'));
    expect(80 - narrow[0].indexOf('TITLE')).toBeGreaterThanOrEqual(30);
    // a narrow terminal: no line wider than it, down to where the directory has only its name's
    // width and the title 8 columns (46 here: the lines were wider than 48 or 46 columns)
    for (const cols of [46, 48, 56]) {
      const lines = lsTty(h, ['-a'], {}, cols).split('\n').filter(Boolean);
      expect(lines[0]).toMatch(/^ID +AGE +HARNESS +DIRECTORY +# +TITLE$/);
      for (const l of lines) expect(width(l), l).toBeLessThanOrEqual(cols);
      expect(must(lines.find((l) => l.startsWith(uuid(1).slice(0, 8))))).toMatch(/ {2}first/);
    }
    // nothing to list: no header either (the terminal shows stderr too: only a note is there)
    expect(lsTty(tempHome(), [])).not.toContain('HARNESS');
    // a filter that leaves nothing: the note names it (doctor, where resume looked, would not explain it)
    expect(lsTty(h, ['--harness', 'gemini']).trim()).toBe('no sessions with --harness gemini');
    expect(lsTty(h, ['--dir', '/tmp/w']).trim()).toBe('+1 hidden: 1 SDK; --all shows them\nno sessions with --dir /tmp/w');
  });

  it('takes the shared options before the command as after it (resume -a ls = resume ls -a)', () => {
    const h = store();
    const same = (before: string[], cmd: string[], after: string[] = before) => {
      const a = run(h, [...before, ...cmd]);
      const b = run(h, [...cmd, ...after]);
      expect(a, [...before, ...cmd].join(' ')).toEqual(b);
      return a;
    };
    for (const v of [
      ['-a'],
      ['--all'],
      ['--harness', 'pi'],
      ['-a', '--harness', 'claude'],
      ['--harness=claude'],
      ['--dir', '/tmp'],
      ['-a', '--dir', '.'],
    ]) {
      expect(same(v, ['ls']).code).toBe(0);
      expect(same(v, ['rows']).code).toBe(0);
    }
    expect(same(['-a'], ['ls'], ['-a']).stdout.split('\n').filter(Boolean)).toHaveLength(7);
    // a value before and one after: the one after wins, as a repeated option does
    expect(run(h, ['--harness', 'pi', 'ls', '--harness', 'claude']).stdout).toBe(run(h, ['ls', '--harness', 'claude']).stdout);
    // with the command's own options after it
    expect(same(['-a'], ['ls', '-n', '3'], ['-a']).stdout.split('\n').filter(Boolean)).toHaveLength(3);
    const json = same(['--json'], ['ls']);
    expect(JSON.parse(json.stdout)).toHaveLength(4);
    expect(JSON.parse(same(['--json', '-a'], ['ls']).stdout)).toHaveLength(7);
    expect(JSON.parse(same(['--json'], ['show', uuid(1).slice(0, 8)]).stdout).id).toBe(uuid(1));
    expect(same(['--harness', 'claude'], ['resolve', 'ask']).stdout).toBe(`claude:${uuid(1)}\n`);
    expect(same(['--harness', 'pi'], ['resolve', 'ask']).code).toBe(1);
    // an option the command does not take is refused the same way before it as after it
    for (const [before, cmd] of [
      [['--json'], ['rows']],
      [['-a'], ['doctor']],
      [
        ['--harness', 'pi'],
        ['show', 'x'],
      ],
      [['--json'], ['preview', 'x']],
    ] as const) {
      const r = same([...before], [...cmd]);
      expect(r.code, [...before, ...cmd].join(' ')).toBe(2);
      expect(r.stdout).toBe('');
      expect(r.stderr).toMatch(/^resume: unknown option '(--json|-a|--harness)'\n$/);
    }
    // and the root command's own options are not the subcommand's
    expect(run(h, ['--dry-run', 'ls'])).toMatchObject({ code: 2, stdout: '', stderr: "resume: unknown option '--dry-run'\n" });
  });

  it('on a machine with no sessions says so on stderr, with how to try the demo; rows says nothing', () => {
    const h = tempHome();
    const none =
      'resume: no sessions on this machine yet (resume doctor shows where it looked; resume --demo tries the bundled demo sessions)\n';
    // the first run builds the index, the second prints from it (ls.out on the second pipe run)
    for (let i = 0; i < 2; i++) {
      expect(run(h, ['ls'])).toEqual({ code: 0, stdout: '', stderr: none });
      expect(run(h, ['ls', '--json'])).toEqual({ code: 0, stdout: '[]\n', stderr: none });
      expect(run(h, ['-a', 'ls'])).toEqual({ code: 0, stdout: '', stderr: none });
      expect(run(h, ['rows'])).toEqual({ code: 0, stdout: '', stderr: '' });
    }
    // sessions that are all hidden are not "no sessions": the count of hidden ones says it
    const s = tempHome();
    claude(s, 4, '/tmp/w', ['an sdk worker'], { at: '2026-05-04T10:00:00.000Z', extra: { entrypoint: 'sdk-ts' } });
    const r = run(s, ['ls']);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('');
    expect(r.stderr).not.toContain('no sessions');
    expect(r.stderr).toContain('hidden');
    // and the demo has its own
    expect(run(h, ['--demo', 'ls']).stderr).not.toContain('no sessions');
  });

  it('a closed pipe on stderr too is a quiet exit 0 (resume ls 2>&1 | head -1)', () => {
    const h = store();
    for (const args of [['ls'], ['ls', '--json'], ['-a', 'ls']]) {
      for (let i = 0; i < 2; i++) {
        const r = spawnSync(
          'bash',
          [
            '-o',
            'pipefail',
            '-c',
            `${JSON.stringify(process.execPath)} ${JSON.stringify(BIN)} ${args.join(' ')} 2>&1 | head -c 1 >/dev/null`,
          ],
          { env: envFor(h), encoding: 'utf8' },
        );
        expect(r.status, `${args.join(' ')}: ${r.stderr}`).toBe(0);
      }
    }
  });

  it('creates nothing under a HOME that does not exist: the index goes to a directory of its own under TMPDIR, said once', () => {
    const base = tempHome();
    const tmp = path.join(base, 'tmp');
    fs.mkdirSync(tmp);
    const gone = path.join(base, 'gone');
    const env = { HOME: gone, RESUME_CACHE_DIR: undefined, TMPDIR: tmp };
    const cache = path.join(tmp, `resume-${must(process.getuid?.())}`);
    const said = `resume: HOME ${gone} is not a directory; the index is kept in ${cache} instead\n`;
    const ls = run(base, ['ls'], env);
    expect(ls).toEqual({
      code: 0,
      stdout: '',
      stderr:
        said +
        'resume: no sessions on this machine yet (resume doctor shows where it looked; resume --demo tries the bundled demo sessions)\n',
    });
    expect(run(base, ['doctor'], env)).toMatchObject({ code: 0, stderr: said });
    const idx = run(base, ['index'], env);
    expect(idx.code).toBe(0);
    expect(idx.stderr.startsWith(said) && !idx.stderr.slice(said.length).includes('HOME')).toBe(true);
    // rows feeds fzf: nothing on stderr
    expect(run(base, ['rows'], env)).toEqual({ code: 0, stdout: '', stderr: '' });
    expect(fs.existsSync(gone)).toBe(false);
    expect(fs.readdirSync(cache)).toContain('rows.bin');
    expect(fs.statSync(cache).mode & 0o777).toBe(0o700);
    // a resume-<uid> that is not this user's own directory (here a link) is not used
    const other = path.join(base, 'other');
    fs.mkdirSync(other);
    const tmp2 = path.join(base, 'tmp2');
    fs.mkdirSync(tmp2);
    fs.symlinkSync(other, path.join(tmp2, `resume-${must(process.getuid?.())}`));
    const r = run(base, ['ls'], { ...env, TMPDIR: tmp2 });
    expect(r.code).toBe(0);
    expect(fs.readdirSync(other)).toEqual([]);
    expect(r.stderr).toMatch(new RegExp(`the index is kept in ${tmp2}/resume-\\w{6} instead`));
    expect(fs.existsSync(gone)).toBe(false);
  });
});
