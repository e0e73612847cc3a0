// Finding a program: the one PATH lookup (doctor, the fzf probe, the clipboard, the harness binaries).
import fs from 'node:fs';
import path from 'node:path';

/** Is this path a regular file we may execute? */
export function executable(p: string): boolean {
  try {
    if (!fs.statSync(p).isFile()) return false;
    fs.accessSync(p, fs.constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** The first executable file named `name` in the PATH string `envPath` (empty entries skipped), else null. */
export function onPath(name: string, envPath: string | undefined): string | null {
  for (const d of (envPath ?? '').split(path.delimiter)) {
    if (!d) continue;
    const p = path.join(d, name);
    if (executable(p)) return p;
  }
  return null;
}
