/** FNV-1a, 32 bits, of bytes [from, to) of `b`: a fingerprint, not a defence (and no node:crypto to load for it). */
export function fnv1a(b: Uint8Array, from = 0, to = b.length): number {
  let h = 0x811c9dc5;
  for (let i = from; i < to; i++) {
    h ^= b[i]!;
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}
