// What a parsed TOML value is, for the config readers' messages (lib/launch/config.ts,
// lib/hooks/config.ts): smol-toml gives tables as plain objects and dates as Date.

/** Is the value a TOML table (not an array, a date or null)? */
export const isTable = (v: unknown): v is Record<string, unknown> =>
  !!v && typeof v === 'object' && !Array.isArray(v) && !(v instanceof Date);

/** The value's TOML kind for an error message: `a table`, `an array`, `a date`, `a string`, … */
export function tomlType(v: unknown): string {
  if (Array.isArray(v)) return 'an array';
  if (v === null) return 'null';
  if (v instanceof Date) return 'a date';
  if (typeof v === 'object') return 'a table';
  return `a ${typeof v}`;
}
