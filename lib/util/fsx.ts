import fs from 'node:fs';
import path from 'node:path';

export function isDir(p: string): boolean {
  try {
    return fs.statSync(p).isDirectory();
  } catch {
    return false;
  }
}

export function exists(p: string): boolean {
  try {
    fs.statSync(p);
    return true;
  } catch {
    return false;
  }
}

let readdirHook: ((dir: string) => fs.Dirent[]) | null = null;

/**
 * While the index discovers sources it installs its directory cache here (lib/index/dirs.ts), so
 * unchanged directories are not read again; null restores plain reads.
 */
export function setReaddirHook(h: ((dir: string) => fs.Dirent[]) | null): void {
  readdirHook = h;
}

/** readdir that never throws (unreadable or missing: empty). */
export function entries(dir: string): fs.Dirent[] {
  if (readdirHook) return readdirHook(dir);
  try {
    return fs.readdirSync(dir, { withFileTypes: true });
  } catch {
    return [];
  }
}

/** Is this entry a directory, following a symlink (no throw)? */
export function direntIsDir(dir: string, d: fs.Dirent): boolean {
  if (d.isDirectory()) return true;
  if (d.isSymbolicLink()) return isDir(path.join(dir, d.name));
  return false;
}

/** Anything but a directory: the index stats it, and counts and skips FIFOs, sockets and devices. */
export function direntMaybeFile(d: fs.Dirent): boolean {
  return !d.isDirectory();
}

/**
 * Files below `dir` whose name passes `match`, at most `depth` levels down. Symlinked directories
 * are followed; a loop is cut by remembering the real path of every symlinked directory entered
 * (plain directories cannot loop, and are not stat'ed: this runs on every listing).
 */
export function walk(dir: string, match: (name: string, rel: string) => boolean, depth: number, seen = new Set<string>(), rel = ''): string[] {
  const out: string[] = [];
  walkInto(dir, match, depth, seen, rel, out);
  return out;
}

function walkInto(dir: string, match: (name: string, rel: string) => boolean, depth: number, seen: Set<string>, rel: string, out: string[]): void {
  // String joins, not path.join: `dir` is already absolute and normal, and this runs per entry.
  const base = dir.endsWith('/') ? dir : dir + '/';
  for (const d of entries(dir)) {
    const name = d.name;
    if (d.isDirectory()) {
      if (depth > 0) walkInto(base + name, match, depth - 1, seen, rel ? rel + '/' + name : name, out);
    } else if (d.isSymbolicLink() && isDir(base + name)) {
      if (depth <= 0) continue;
      let real: string;
      try {
        real = fs.realpathSync(base + name);
      } catch {
        continue;
      }
      if (seen.has(real)) continue;
      seen.add(real);
      walkInto(base + name, match, depth - 1, seen, rel ? rel + '/' + name : name, out);
    } else if (match(name, rel ? rel + '/' + name : name)) {
      out.push(base + name);
    }
  }
}

/** Unique by real path, keeping the first (so the first variable that named a root is reported). */
export function uniqueReal<T extends { path: string }>(items: T[]): T[] {
  const seen = new Set<string>();
  const out: T[] = [];
  for (const it of items) {
    let key = it.path;
    try {
      key = fs.realpathSync(it.path);
    } catch {
      /* missing: keep by name */
    }
    if (seen.has(key)) continue;
    seen.add(key);
    out.push(it);
  }
  return out;
}
