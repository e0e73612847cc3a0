// Installs the pinned clients of clients.json into a cache outside the repo:
// $RESUME_REAL_CACHE or ~/.cache/resume-real/<client>-<version>/ (npm --prefix).
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
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
  return join(clientDir(name), 'node_modules', '.bin', clients[name].bin);
}

/** Install one client (idempotent); returns the path of its executable. */
export function install(name) {
  const c = clients[name];
  if (!c) throw new Error(`unknown client ${name}`);
  const bin = clientBin(name);
  if (existsSync(bin)) return bin;
  const dir = clientDir(name);
  mkdirSync(dir, { recursive: true });
  process.stderr.write(`installing ${c.package}@${c.version} into ${dir}\n`);
  const r = spawnSync('npm', ['install', '--no-save', '--no-audit', '--no-fund', '--prefix', dir, `${c.package}@${c.version}`],
    { stdio: ['ignore', 'inherit', 'inherit'] });
  if (r.status !== 0 || !existsSync(bin)) throw new Error(`npm install of ${c.package}@${c.version} failed`);
  return bin;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  for (const name of process.argv.slice(2).length ? process.argv.slice(2) : Object.keys(clients)) install(name);
}
