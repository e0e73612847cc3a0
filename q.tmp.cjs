const D=require('better-sqlite3');const db=new D(process.argv[3],{readonly:true});
const t=(name,sql,...a)=>{const s=db.prepare(sql).raw();let n=0;const t0=performance.now();for(const r of s.iterate(...a))n++;console.log(name,n,(performance.now()-t0).toFixed(0)+'ms', db.prepare('EXPLAIN QUERY PLAN '+sql).all(...a).map(r=>r.detail).join('; '));};
const m=process.argv[2]||'"backoff"*';
for (let i=0;i<2;i++){
t('join','SELECT p.id, p.id>>24, p.role, p.flags, p.key FROM words JOIN pieces p ON p.id=words.rowid WHERE words MATCH ?',m);
t('join idx','SELECT p.id, p.id>>24, p.role, p.flags, p.key FROM words JOIN pieces p INDEXED BY pieces_meta ON p.id=words.rowid WHERE words MATCH ?',m);
}
