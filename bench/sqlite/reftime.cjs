'use strict';
// cat and rg -i -c over the same text, as whole processes: medians of 5, interleaved.
//   node reftime.cjs FILE_OR_DIR...
const { spawnSync } = require('node:child_process');
const fs = require('node:fs');
const { median } = require('./engine.cjs');
const targets = process.argv.slice(2);
const cmds = [];
for (const t of targets) {
  const files = fs.statSync(t).isDirectory() ? fs.readdirSync(t).map((f) => `${t}/${f}`) : [t];
  cmds.push([`cat ${t}${files.length > 1 ? '/*' : ''}`, 'cat', files]);
  for (const w of ['test', 'zanzibarquux', 'qwxzvj', 'retrier']) cmds.push([`rg -i -c ${w} ${t}`, 'rg', ['-i', '-c', w, t]]);
  cmds.push([
    `rg -i -c error+cache (two words: rg -l error | rg -i -c cache) ${t}`,
    'sh',
    ['-c', `rg -i -l error ${t} | xargs -d '\\n' rg -i -c cache`],
  ]);
}
const devnull = fs.openSync('/dev/null', 'w');
const ts = cmds.map(() => []);
for (let r = 0; r < 6; r++)
  cmds.forEach(([, c, a], i) => {
    const t = process.hrtime.bigint();
    spawnSync(c, a, { stdio: ['ignore', devnull, 'ignore'] });
    if (r) ts[i].push(Number(process.hrtime.bigint() - t) / 1e6);
  });
for (const [i, [name]] of cmds.entries()) console.log(`| ${name} | ${median(ts[i]).toFixed(1)} |`);
