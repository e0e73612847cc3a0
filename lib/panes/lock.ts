// A lock file holding the owner's pid: created exclusively; a lock whose pid no longer runs is stale
// and taken over. Taking over moves the stale file aside and checks that what moved is the file
// judged stale (the same inode), so two processes finding one stale lock cannot both take it, and
// neither removes a fresh lock the other has just made.
import fs from 'node:fs';
import path from 'node:path';
import { alive } from '../util/alive.js';
import { removeFile } from '../util/fsx.js';

export type Acquired = { ok: true; release: () => void } | { ok: false; holder: number };

export function acquire(file: string): Acquired {
  fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  for (let attempt = 0; attempt < 3; attempt++) {
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
    let text: string;
    let ino: number;
    try {
      ino = fs.statSync(file).ino;
      text = fs.readFileSync(file, 'utf8');
    } catch {
      continue; // released meanwhile: try again
    }
    const holder = Number(text.trim());
    if (Number.isInteger(holder) && holder > 0 && alive(holder)) return { ok: false, holder };
    // stale: move it aside, then make sure the file moved is the one judged stale
    const aside = `${file}.stale-${process.pid}-${Math.random().toString(36).slice(2, 8)}`;
    try {
      fs.renameSync(file, aside);
    } catch {
      continue;
    }
    let moved = -1;
    try {
      moved = fs.statSync(aside).ino;
    } catch {
      /* raced away */
    }
    if (moved !== ino) {
      // a fresh lock was made in between and we moved it: put it back unless another exists now
      try {
        fs.linkSync(aside, file);
      } catch {
        /* another lock stands */
      }
    }
    removeFile(aside);
  }
  return { ok: false, holder: -1 };
}

/**
 * Wait for the lock, polling while a live process holds it; `onWait` is told the holder once, and
 * `stopped` ends the wait (null then).
 */
export async function acquireWait(
  file: string,
  o: { onWait?: (holder: number) => void; stopped?: () => boolean; pollMs?: number } = {},
): Promise<Acquired | null> {
  let told = false;
  for (;;) {
    const l = acquire(file);
    if (l.ok) return l;
    if (o.stopped?.()) return null;
    if (!told) o.onWait?.(l.holder);
    told = true;
    await new Promise((r) => setTimeout(r, o.pollMs ?? 250));
  }
}
