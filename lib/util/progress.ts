// A progress bar on stderr, only on a terminal, only when the work takes long enough to notice.
// process.stderr is looked at only then: building it loads Node's tty and net modules, which a
// quick run (a no-change `resume rows`) has no use for.
import { REDRAW } from './color.js';

export function progressBar(
  label: string,
  given?: NodeJS.WriteStream,
  unit = 'files',
): {
  update: (done: number, total: number, files: number, totalFiles: number) => void;
  end: () => void;
} {
  let stream: NodeJS.WriteStream | null = null;
  let tty = false;
  const startAt = Date.now();
  let shown = false;
  let last = 0;
  return {
    update(done, total, files, totalFiles) {
      const now = Date.now();
      if (now - startAt < 250 || now - last < 80) return;
      if (!stream) {
        stream = given ?? process.stderr;
        tty = !!stream.isTTY && !process.env.CI;
      }
      if (!tty) return;
      last = now;
      shown = true;
      const cols = Math.max(20, Math.min(stream.columns || 80, 100) - 40);
      // by bytes when the caller knows them, else by files (a total of 0 bytes: not known)
      const frac = total > 0 ? Math.min(1, done / total) : totalFiles > 0 ? Math.min(1, files / totalFiles) : 1;
      const fill = Math.round(frac * cols);
      const mb = (n: number) => (n / 1048576).toFixed(0);
      const bytes = total > 0 ? ` ${mb(done)}/${mb(total)} MiB` : '';
      stream.write(`${REDRAW}${label} [${'#'.repeat(fill)}${'.'.repeat(cols - fill)}] ${files}/${totalFiles} ${unit}${bytes}`);
    },
    end() {
      if (shown && stream) stream.write(REDRAW);
    },
  };
}
