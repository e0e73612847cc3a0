'use strict';
// node gentext.cjs OUT MB: deterministic synthetic transcript text, one message a line:
// "session<TAB>text". Zipf-distributed words from a 40,000-word vocabulary, plus what real
// transcripts carry that bloats an index: hex ids, numbers, paths, camelCase and glued identifiers.
// Probe words: "test" (common), "error"+"cache" (two words), "zanzibarquux" (in 5 messages),
// "retrier" only inside glued words like "webhookretrier" (in ~1 message per 20,000).
const fs = require('node:fs');
const { prng } = require('./engine.cjs');
const [out, mbArg] = process.argv.slice(2);
const BYTES = Number(mbArg) * 1024 * 1024;
const r = prng(46);
const COMMON =
  'the to a of and in is it that for you this with on be as are not can i we file if or use from by at function should but an code will so error test have do add let run which now fix return import const type new value when then there all see cache need update check'.split(
    ' ',
  );
const SYL = [
  'ka',
  'lo',
  'mi',
  'ne',
  'tor',
  'ba',
  're',
  'sun',
  'qui',
  'der',
  'pa',
  'vel',
  'ix',
  'on',
  'ur',
  'sta',
  'ment',
  'ing',
  'er',
  'al',
  'co',
  'pro',
  'ex',
  'trans',
  'fig',
  'dat',
  'ser',
  'vi',
  'cle',
];
const vocab = [...COMMON];
const seen = new Set(vocab);
while (vocab.length < 40000) {
  let w = '';
  const n = 1 + Math.floor(r() * 4);
  for (let i = 0; i < n; i++) w += SYL[Math.floor(r() * SYL.length)];
  if (w.length > 2 && !seen.has(w)) {
    seen.add(w);
    vocab.push(w);
  }
}
// Zipf(1.0) by inverse CDF over a precomputed table
const H = [];
let acc = 0;
for (let i = 0; i < vocab.length; i++) {
  acc += 1 / (i + 1);
  H.push(acc);
}
const zipf = () => {
  const x = r() * acc;
  let lo = 0,
    hi = H.length - 1;
  while (lo < hi) {
    const m = (lo + hi) >> 1;
    if (H[m] < x) lo = m + 1;
    else hi = m;
  }
  return vocab[lo];
};
const hex = (n) => {
  let s = '';
  for (let i = 0; i < n; i++) s += '0123456789abcdef'[Math.floor(r() * 16)];
  return s;
};
function token() {
  const x = r();
  if (x < 0.9) return zipf();
  if (x < 0.93) return hex(8 + Math.floor(r() * 33));
  if (x < 0.95) return String(Math.floor(r() * 100000));
  if (x < 0.97) return `/src/${zipf()}/${zipf()}.ts`;
  if (x < 0.99) {
    const a = zipf(),
      b = zipf();
    return a + b[0].toUpperCase() + b.slice(1);
  }
  if (x < 0.99995) return zipf() + zipf();
  return 'webhookretrier';
}
function message() {
  // heavy-tailed: most messages 100-2,000 chars, 2% tool outputs of 20-200 KB
  const len = r() < 0.02 ? 20000 + Math.floor(r() * 180000) : 100 + Math.floor(r() * 1900);
  const parts = [];
  let n = 0;
  while (n < len) {
    const t = token();
    parts.push(t);
    n += t.length + 1;
    if (r() < 0.07) {
      parts.push('.');
    }
  }
  return parts.join(' ');
}
const fd = fs.openSync(out, 'w');
let written = 0,
  msgs = 0,
  session = 0,
  rare = 0;
const SESSION_BYTES = 57 * 1024; // 1.24 GiB / 22,000 sessions
let inSession = 0;
let buf = [];
while (written < BYTES) {
  let m = message();
  msgs++;
  if (rare < 5 && msgs % 9973 === 0) {
    m += ' zanzibarquux';
    rare++;
  }
  const line = `${session}\t${m}\n`;
  buf.push(line);
  written += Buffer.byteLength(line);
  inSession += line.length;
  if (inSession > SESSION_BYTES * (0.2 + r() * 1.6)) {
    session++;
    inSession = 0;
  }
  if (buf.length >= 1000) {
    fs.writeSync(fd, buf.join(''));
    buf = [];
  }
}
fs.writeSync(fd, buf.join(''));
fs.closeSync(fd);
console.log(JSON.stringify({ bytes: written, messages: msgs, sessions: session + 1, rare }));
