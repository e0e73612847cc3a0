/** Parse an ISO timestamp or epoch (s or ms) into epoch ms; null when absent or invalid. */
export function toMs(v: unknown): number | null {
  if (typeof v === 'number' && Number.isFinite(v)) return v < 1e11 ? v * 1000 : v;
  if (typeof v === 'string' && v) {
    const t = Date.parse(v);
    return Number.isNaN(t) ? null : t;
  }
  return null;
}

export function maxMs(a: number | null, b: number | null): number | null {
  if (a == null) return b;
  if (b == null) return a;
  return a > b ? a : b;
}

export function minMs(a: number | null, b: number | null): number | null {
  if (a == null) return b;
  if (b == null) return a;
  return a < b ? a : b;
}

/** Compact age: 12s, 5m, 3h, 4d, 6w, 7mo, 2y. */
export function age(ms: number | null, now = Date.now()): string {
  return ageText(ageCode(ms, now));
}

const UNITS = ['s', 'm', 'h', 'd', 'w', 'mo', 'y'];

/** An age as one number: its count times 8 plus its unit (UNITS), -1 when unknown (`?`). */
export function ageCode(ms: number | null, now = Date.now()): number {
  if (ms == null) return -1;
  const s = Math.max(0, Math.round((now - ms) / 1000));
  if (s < 60) return s * 8;
  const m = Math.floor(s / 60);
  if (m < 60) return m * 8 + 1;
  const h = Math.floor(m / 60);
  if (h < 24) return h * 8 + 2;
  const d = Math.floor(h / 24);
  if (d < 14) return d * 8 + 3;
  if (d < 60) return Math.floor(d / 7) * 8 + 4;
  if (d < 365) return Math.floor(d / 30) * 8 + 5;
  return Math.floor(d / 365) * 8 + 6;
}

/** The text of an age code. */
export function ageText(code: number): string {
  return code < 0 ? '?' : `${Math.floor(code / 8)}${UNITS[code % 8]}`;
}

export function iso(ms: number | null): string | null {
  return ms == null ? null : new Date(ms).toISOString();
}

/** Local date and time, `YYYY-MM-DD HH:MM`. */
export function localTime(ms: number | null): string {
  if (ms == null) return '?';
  const d = new Date(ms);
  const p = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())} ${p(d.getHours())}:${p(d.getMinutes())}`;
}
