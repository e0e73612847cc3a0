// A map of lists, added to in place (a list spread into a new one per value, `[...(m.get(k) ?? []), v]`,
// copies every value before it: quadratic when many share a key).

/** Add `v` to the list of `k` in `m`. */
export function addTo<K, V>(m: Map<K, V[]>, k: K, v: V): void {
  const had = m.get(k);
  if (had) had.push(v);
  else m.set(k, [v]);
}
