// A lock file holding the owner's pid: created exclusively; a lock whose pid no longer runs is stale
// and taken over.
import fs from 'node:fs';
import path from 'node:path';
import { removeFile } from '../util/fsx.js';

export function acquire(file: string): { ok: true; release: () => void } | { ok: false; holder: number } {
  fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      fs.writeFileSync(file, `${process.pid}\n`, { flag: 'wx', mode: 0o600 });
      return {
        ok: true,
        release: () => {
          try {
            if (fs.readFileSync(file, 'utf8').trim() === String(process.pid)) fs.unlinkSync(file);
          } catch {
            /* gone already */
          }
        },
      };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
    const holder = Number(fs.readFileSync(file, 'utf8').trim());
    let alive = false;
    if (Number.isInteger(holder) && holder > 0) {
      try {
        process.kill(holder, 0);
        alive = true;
      } catch (err) {
        alive = (err as NodeJS.ErrnoException).code === 'EPERM';
      }
    }
    if (alive) return { ok: false, holder };
    removeFile(file); // stale
  }
  return { ok: false, holder: -1 };
}
