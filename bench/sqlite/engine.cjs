'use strict';
// One small interface over both engines, so every probe runs the same SQL on each:
//   open(file, {readonly}) -> { exec(sql), all(sql, ...p), get(sql, ...p), rows(sql, ...p) (arrays),
//                               iter(sql, ...p) (arrays), stmt(sql) -> {run, all, rows}, close(), sqlite }
// ENGINE=better (better-sqlite3 from /work/main) or ENGINE=node (node:sqlite, Node >= 22.5).
const ENGINE = process.env.ENGINE || (process.versions.node.split('.')[0] >= 22 ? 'node' : 'better');

function quietRequireNodeSqlite() {
  // node:sqlite warns "SQLite is an experimental feature" once per process on first load; a CLI
  // drops exactly that warning (CommonJS: the filter is in place before the require runs).
  const orig = process.emitWarning;
  process.emitWarning = (w, ...a) => {
    const t = typeof a[0] === 'string' ? a[0] : a[0]?.type;
    if (t === 'ExperimentalWarning' && String(w).includes('SQLite')) return;
    return orig.call(process, w, ...a);
  };
  try {
    return require('node:sqlite');
  } finally {
    process.emitWarning = orig;
  }
}

function open(file, opts = {}) {
  if (ENGINE === 'better') {
    const D = require('/work/main/node_modules/better-sqlite3');
    const db = new D(file, { readonly: !!opts.readonly, fileMustExist: !!opts.readonly, timeout: opts.timeout ?? 5000 });
    const cache = new Map();
    const prep = (sql) => {
      let s = cache.get(sql);
      if (!s) {
        s = db.prepare(sql);
        cache.set(sql, s);
      }
      return s;
    };
    return {
      engine: 'better-sqlite3',
      exec: (sql) => db.exec(sql),
      all: (sql, ...p) => prep(sql).all(...p),
      get: (sql, ...p) => prep(sql).get(...p),
      rows: (sql, ...p) =>
        prep(sql)
          .raw(true)
          .all(...p),
      iter: (sql, ...p) =>
        prep(sql)
          .raw(true)
          .iterate(...p),
      stmt: (sql) => {
        const s = db.prepare(sql);
        return { run: (...p) => s.run(...p), all: (...p) => s.all(...p) };
      },
      close: () => db.close(),
    };
  }
  const { DatabaseSync } = quietRequireNodeSqlite();
  const db = new DatabaseSync(file, { readOnly: !!opts.readonly, timeout: opts.timeout ?? 5000 });
  const cache = new Map();
  const prep = (sql) => {
    let s = cache.get(sql);
    if (!s) {
      s = db.prepare(sql);
      cache.set(sql, s);
    }
    return s;
  };
  const arr = (sql) => {
    const s = db.prepare(sql);
    s.setReturnArrays(true);
    return s;
  };
  return {
    engine: 'node:sqlite',
    exec: (sql) => db.exec(sql),
    all: (sql, ...p) => prep(sql).all(...p),
    get: (sql, ...p) => prep(sql).get(...p),
    rows: (sql, ...p) => arr(sql).all(...p),
    iter: (sql, ...p) => arr(sql).iterate(...p),
    stmt: (sql) => {
      const s = db.prepare(sql);
      return { run: (...p) => s.run(...p), all: (...p) => s.all(...p) };
    },
    close: () => db.close(),
  };
}

// mulberry32: deterministic PRNG
function prng(seed) {
  return () => {
    seed |= 0;
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
const median = (a) => {
  const s = [...a].sort((x, y) => x - y);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};
const ms = (t0) => Number(process.hrtime.bigint() - t0) / 1e6;
const now = () => process.hrtime.bigint();
module.exports = { open, ENGINE, prng, median, ms, now, quietRequireNodeSqlite };
