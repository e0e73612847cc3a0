// Which fzf the picker, completion and flag suites run (vitest setup file, before every test file).
//
// RESUME_TEST_FZF=/path/to/fzf: that binary, linked as `fzf` into a private bin directory put first
// on PATH, so the CLI, fzf-tab and the shells all find it by name. A path that is not an
// executable file fails every suite and says so (.ci/run asks for 0.48.1 and 0.65.2 this way).
// Unset: the `fzf` on PATH (Debian's 0.38 under CI); `.ci/run` prints which version that was.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const want = process.env.RESUME_TEST_FZF?.trim();
if (want && !process.env.RESUME_TEST_FZF_BIN) {
  const abs = path.resolve(want);
  let ok = false;
  try {
    ok = fs.statSync(abs).isFile();
    fs.accessSync(abs, fs.constants.X_OK);
  } catch {
    ok = false;
  }
  if (!ok) throw new Error(`RESUME_TEST_FZF=${want}: no executable fzf there; the fzf suites cannot run on the version asked for`);
  const bin = fs.mkdtempSync(path.join(os.tmpdir(), 'resume-test-fzf-'));
  fs.symlinkSync(abs, path.join(bin, 'fzf'));
  process.env.RESUME_TEST_FZF_BIN = bin;
  process.env.PATH = `${bin}:${process.env.PATH ?? ''}`;
  process.on('exit', () => fs.rmSync(bin, { recursive: true, force: true }));
}
