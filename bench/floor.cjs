#!/usr/bin/env node
// The least a Node process can do for what resume does, timed by bench/run.mjs and
// bench/search.mjs as floors (CommonJS, no dependencies: its start-up is `node -e 0`'s):
//
//   node bench/floor.cjs stat LIST        stat every directory and file of LIST, nothing else
//   node bench/floor.cjs read LIST WORD   read every byte of LIST's files, count the lines holding WORD
//
// LIST is a JSON file of [directory, [file names]] pairs, written by the caller before timing.
//
// `stat` is what a no-change listing that is never stale must learn: each directory's time (a new
// session shows there) and each file's size and time (an append changes the file, not its
// directory). It stats as resume does at its cheapest: the raw numbers from Node's fs binding (no
// Stats object) when it has one, from inside each directory (one name for the kernel to walk).
//
// `read` is a lower bound of a deep search in Node on one thread: 128 KiB reads (as resume reads:
// they stay in the cache between the kernel's copy and the search of them), a native search for WORD's
// bytes as given (no case folding, no decoding, no ranking), each hit's line counted once; a line
// longer than the buffer is looked at in pieces. As resume does, the native search looks for the
// word from its first byte that is not a lower-case letter (it skips from one of its first byte to
// the next, and `api-24` behind its common `a` is several times as slow as `-24`), and the bytes
// before are compared after. rg -i -c does more than this per byte.
'use strict';
const fs = require('node:fs');

const [mode, listFile, word] = process.argv.slice(2);
const list = JSON.parse(fs.readFileSync(listFile, 'utf8'));

if (mode === 'stat') {
  let b = null;
  try {
    b = process.binding('fs');
  } catch {
    b = null;
  }
  const stat =
    b && typeof b.stat === 'function' ? (p) => b.stat(p, false, undefined, false) : (p) => fs.statSync(p, { throwIfNoEntry: false });
  let n = 0;
  for (const [dir, names] of list) {
    if (stat(dir)) n++;
    if (names.length === 0) continue;
    process.chdir(dir);
    for (const name of names) if (stat(name)) n++;
  }
  if (n === 0) process.exit(1);
} else if (mode === 'read') {
  const needle = Buffer.from(word);
  let from = 0;
  while (from < needle.length && needle[from] >= 0x61 && needle[from] <= 0x7a) from++;
  if (from === needle.length) from = 0;
  const key = needle.subarray(from);
  const buf = Buffer.allocUnsafe(128 << 10);
  /** where the word is in bytes [p, end) of buf (-1: not there) */
  const find = (p, end) => {
    for (let k = buf.indexOf(key, p + from); k >= 0 && k - from + needle.length <= end; k = buf.indexOf(key, k + 1)) {
      if (buf.compare(needle, 0, from, k - from, k) === 0) return k - from;
    }
    return -1;
  };
  let lines = 0;
  for (const [dir, names] of list) {
    for (const name of names) {
      const fd = fs.openSync(`${dir}/${name}`, 'r');
      let keep = 0;
      // in a line longer than the buffer, looked at in pieces: the word was seen in it already
      let long = false;
      let longHit = false;
      for (;;) {
        const r = fs.readSync(fd, buf, keep, buf.length - keep);
        const end = keep + r;
        // bytes [0, stop) are whole lines (the last one unended at the end of the file)
        const stop = r === 0 ? end : buf.lastIndexOf(10, end - 1) + 1;
        let p = 0;
        if (long && stop > 0) {
          // the long line ends in this piece (at its first newline, or the file's end)
          const first = buf.indexOf(10);
          const nl = first < 0 ? stop : Math.min(stop, first + 1);
          if (longHit || find(0, nl) >= 0) lines++;
          long = longHit = false;
          p = nl;
        }
        // one native search a hit, then on from the end of its line
        while (p < stop) {
          const h = find(p, stop);
          if (h < 0) break;
          lines++;
          const nl = buf.indexOf(10, h);
          p = nl < 0 || nl >= stop ? stop : nl + 1;
        }
        if (r === 0) break;
        if (end - stop >= buf.length >> 1) {
          // no line ends in what is left: the word, or its cut start, is looked for and the rest dropped
          if (find(stop, end) >= 0) longHit = true;
          long = true;
          buf.copy(buf, 0, end - needle.length, end);
          keep = needle.length;
        } else {
          buf.copy(buf, 0, stop, end);
          keep = end - stop;
        }
      }
      fs.closeSync(fd);
    }
  }
  process.stdout.write(`${lines}\n`);
} else {
  process.stderr.write('usage: floor.cjs stat LIST | read LIST WORD\n');
  process.exit(2);
}
