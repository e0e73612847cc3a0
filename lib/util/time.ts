/** Parse an ISO timestamp or epoch (s or ms) into epoch ms; null when absent or invalid. */
export function toMs(v: unknown): number | null {
  if (typeof v === 'number' && Number.isFinite(v)) return v < 1e11 ? v * 1000 : v;
  if (typeof v === 'string' && v) {
    const t = v.length === 24 ? isoZ(v) : Date.parse(v);
    return Number.isNaN(t) ? null : t;
  }
  return null;
}

/** The n decimal digits at `at`, as a number; -1 when any is not a digit. */
export function digits(s: string, at: number, n: number): number {
  let v = 0;
  for (let i = at; i < at + n; i++) {
    const d = s.charCodeAt(i) - 48;
    if (d < 0 || d > 9) return -1;
    v = v * 10 + d;
  }
  return v;
}

/** Days from 1970-01-01 to a date of the proleptic Gregorian calendar (month 1–12). */
function daysFromCivil(y: number, m: number, d: number): number {
  const yy = m <= 2 ? y - 1 : y;
  const era = Math.floor(yy / 400);
  const yoe = yy - era * 400;
  const doy = Math.floor((153 * (m > 2 ? m - 3 : m + 9) + 2) / 5) + d - 1;
  return era * 146097 + yoe * 365 + Math.floor(yoe / 4) - Math.floor(yoe / 100) + doy - 719468;
}

/**
 * `YYYY-MM-DDTHH:MM:SS.sssZ`, the form nearly every transcript line's time takes, read by hand in
 * about half the time Date.parse takes (a build reads a million of them). Anything else, and any
 * value Date.parse might read otherwise (a day past the 28th, a year before 1970), goes to
 * Date.parse, so the result is always the same as its.
 */
function isoZ(s: string): number {
  if (
    s.charCodeAt(4) !== 45 ||
    s.charCodeAt(7) !== 45 ||
    s.charCodeAt(10) !== 84 ||
    s.charCodeAt(13) !== 58 ||
    s.charCodeAt(16) !== 58 ||
    s.charCodeAt(19) !== 46 ||
    s.charCodeAt(23) !== 90
  )
    return Date.parse(s);
  const y = digits(s, 0, 4);
  const mo = digits(s, 5, 2);
  const d = digits(s, 8, 2);
  const h = digits(s, 11, 2);
  const mi = digits(s, 14, 2);
  const se = digits(s, 17, 2);
  const ms = digits(s, 20, 3);
  if ((y | mo | d | h | mi | se | ms) < 0 || y < 1970 || mo < 1 || mo > 12 || d < 1 || d > 28 || h > 23 || mi > 59 || se > 59) {
    return Date.parse(s);
  }
  return ((daysFromCivil(y, mo, d) * 24 + h) * 60 + mi) * 60_000 + se * 1000 + ms;
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

/**
 * The first time after `now` at which `ms` has another age (ageCode), or a millisecond before it
 * (never after): Infinity when it is unknown. An age is a step of whole elapsed seconds (rounded),
 * minutes, hours, days, weeks (from 14 days), months of 30 days (from 60) and years of 365 (from
 * 365): the next step is the next whole one of its unit, or the next unit's first.
 */
export function nextAgeChange(ms: number | null, now: number): number {
  if (ms == null) return Infinity;
  const s = Math.max(0, Math.round((now - ms) / 1000));
  let next: number;
  if (s < 60) next = s + 1;
  else if (s < 3600) next = (Math.floor(s / 60) + 1) * 60;
  else if (s < 86400) next = (Math.floor(s / 3600) + 1) * 3600;
  else {
    const d = Math.floor(s / 86400);
    const nd =
      d < 14
        ? d + 1
        : d < 60
          ? Math.min((Math.floor(d / 7) + 1) * 7, 60)
          : d < 365
            ? Math.min((Math.floor(d / 30) + 1) * 30, 365)
            : (Math.floor(d / 365) + 1) * 365;
    next = nd * 86400;
  }
  // the rounded seconds reach `next` once now - ms >= (next - 0.5) s; a millisecond earlier, so that
  // no rounding of the sum makes it late
  return ms + next * 1000 - 501;
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

const DURATION: Record<string, number> = {
  ms: 1,
  s: 1e3,
  m: 60e3,
  h: 3600e3,
  d: 86400e3,
  w: 7 * 86400e3,
  mo: 30 * 86400e3,
  y: 365 * 86400e3,
};

/**
 * A length of time in ms: `500ms`, `90s`, `30m` (minutes), `12h`, `7d`, `3w`, `2mo` (30 days), `1y`
 * (365 days); a bare number counts in `bare` units, and without them is none. Null when it is none.
 */
export function parseDuration(v: string, bare?: 's'): number | null {
  const m = /^(\d+(?:\.\d+)?)\s*(ms|mo|s|m|h|d|w|y)?$/i.exec(v.trim());
  const unit = m ? (m[2]?.toLowerCase() ?? bare) : undefined;
  if (!m || unit === undefined) return null;
  const ms = Number(m[1]) * (DURATION[unit] ?? Number.NaN);
  return Number.isFinite(ms) ? Math.round(ms) : null;
}

let pause: Int32Array | null = null;

/** Block this thread for `ms` milliseconds: a wait for code that cannot await (a retry, a full pipe). */
export function sleepSync(ms: number): void {
  pause ??= new Int32Array(new SharedArrayBuffer(4));
  Atomics.wait(pause, 0, 0, ms);
}
