// A progress bar on stderr, only on a terminal, only when the work takes long enough to notice.
// process.stderr is looked at only then: building it loads Node's tty and net modules, which a
// quick run (a no-change `resume rows`) has no use for.
//
// The line is redrawn in place (REDRAW: back to its start, erased), which works only while it fits
// on one row: a line the terminal wraps leaves its first row behind at every redraw, and the screen
// fills with them. So it is never wider than the terminal less a column (a line that ends in the
// last column puts some terminals' cursor on the next row): the bar takes what the label and the
// counts leave, up to BAR, and goes when fewer than MIN_BAR columns are left.
import { REDRAW } from './color.js';

/** the widest bar, in columns */
const BAR = 60;
/** a narrower bar than this is left out (the counts alone tell the progress) */
const MIN_BAR = 10;

/** One redraw of the bar: what it says, at most `width` columns (ASCII only: one column a character). */
export function progressLine(
  label: string,
  unit: string,
  at: { done: number; total: number; files: number; totalFiles: number },
  width: number,
): string {
  const { done, total, files, totalFiles } = at;
  const mb = (n: number) => (n / 1048576).toFixed(0);
  const counts = (f: number, d: number) => `${f}/${totalFiles} ${unit}${total > 0 ? ` ${mb(d)}/${mb(total)} MiB` : ''}`;
  // room for the counts as wide as they get (the totals'), so the bar keeps its width as they grow
  const room = width - label.length - 4 - counts(totalFiles, total).length;
  const shown = counts(files, done);
  if (room < MIN_BAR) {
    // (narrower still: the bytes go before anything is cut)
    const line = `${label} ${shown}`;
    return (line.length <= width ? line : `${label} ${files}/${totalFiles} ${unit}`).slice(0, width);
  }
  const cols = Math.min(BAR, room);
  // by bytes when the caller knows them, else by files (a total of 0 bytes: not known)
  const frac = total > 0 ? Math.min(1, done / total) : totalFiles > 0 ? Math.min(1, files / totalFiles) : 1;
  const fill = Math.round(frac * cols);
  return `${label} [${'#'.repeat(fill)}${'.'.repeat(cols - fill)}] ${shown}`.slice(0, width);
}

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
      // (the width asked at each redraw: the terminal may be resized meanwhile)
      const width = Math.max(1, (stream.columns || 80) - 1);
      stream.write(`${REDRAW}${progressLine(label, unit, { done, total, files, totalFiles }, width)}`);
    },
    end() {
      if (shown && stream) stream.write(REDRAW);
    },
  };
}
