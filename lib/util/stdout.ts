// Standard output written with write(2) directly. `process.stdout` is a stream built on first use,
// and building it loads Node's tty, net and stream modules (a few milliseconds of every `resume
// rows`, which runs on each listing and fzf reload). Writes here are whole and in order whatever
// the descriptor is (a pipe someone made non-blocking answers EAGAIN when full: wait and write the
// rest), and a closed reader (`resume rows | head`) is a quiet exit 0, as everywhere in resume.
import fs from 'node:fs';

let pause: Int32Array | null = null;

/** Write all of `data` to descriptor 1 (a string as UTF-8). */
export function writeOut(data: string | Uint8Array): void {
  let buf = typeof data === 'string' ? Buffer.from(data, 'utf8') : data;
  while (buf.length > 0) {
    let n: number;
    try {
      n = fs.writeSync(1, buf);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code === 'EPIPE') process.exit(0);
      if (code !== 'EAGAIN') throw err;
      pause ??= new Int32Array(new SharedArrayBuffer(4));
      Atomics.wait(pause, 0, 0, 2);
      continue;
    }
    buf = buf.subarray(n);
  }
}
