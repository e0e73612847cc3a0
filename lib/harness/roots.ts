// Roots of a harness that keeps its sessions under one home directory (Qwen Code, Copilot CLI, Factory
// Droid): the directories RESUME_<NAME>_DIRS names first, then the harness's own home, each once.
import path from 'node:path';
import type { Ctx, Root } from '../types.js';
import { isDir, uniqueReal } from '../util/fsx.js';
import { envDirs } from '../util/paths.js';

/** `dirsVar`'s directories, then `home`; a root exists when its `sub` directory (or itself) is a directory. */
export function homeRoots(ctx: Ctx, dirsVar: string, home: { path: string; via: string }, sub = ''): Root[] {
  const out: Root[] = envDirs(ctx, dirsVar).map((p) => ({ path: p, via: dirsVar, exists: false }));
  out.push({ path: home.path, via: home.via, exists: false });
  return uniqueReal(out).map((r) => ({ ...r, exists: isDir(sub ? path.join(r.path, sub) : r.path) }));
}
