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

/** readdir that never throws (unreadable or missing: empty). */
export function entries(dir: string): fs.Dirent[] {
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
 * Files below `dir` whose name passes `match`, at most `depth` levels down, following symlinked
 * directories once (a loop is cut by remembering device and inode of every directory entered).
 */
export function walk(dir: string, match: (name: string, rel: string) => boolean, depth: number, seen = new Set<string>(), rel = ''): string[] {
  let st: fs.Stats;
  try {
    st = fs.statSync(dir);
  } catch {
    return [];
  }
  const id = `${st.dev}:${st.ino}`;
  if (seen.has(id)) return [];
  seen.add(id);
  const out: string[] = [];
  for (const d of entries(dir)) {
    const r = rel ? `${rel}/${d.name}` : d.name;
    if (direntMaybeFile(d) && match(d.name, r)) {
      out.push(path.join(dir, d.name));
    } else if (depth > 0 && direntIsDir(dir, d)) {
      out.push(...walk(path.join(dir, d.name), match, depth - 1, seen, r));
    }
  }
  return out;
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
