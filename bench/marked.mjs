// The part of BENCHMARKS.md that `npm run bench` writes (bench/run.mjs): the lines between these two
// markers. Everything else in the file is prose kept by hand.
export const BEGIN = '<!-- bench:begin -->';
export const END = '<!-- bench:end -->';

/** `doc` with what lies between its BEGIN and END lines replaced by `body`; null when the markers are not there once each, in order. */
export function between(doc, body) {
  const a = doc.indexOf(BEGIN);
  const b = doc.indexOf(END);
  if (a < 0 || b < a || doc.indexOf(BEGIN, a + 1) >= 0 || doc.indexOf(END, b + 1) >= 0) return null;
  return `${doc.slice(0, a + BEGIN.length)}\n${body.trim()}\n${doc.slice(b)}`;
}
