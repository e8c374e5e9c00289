/**
 * Value formats: dates, times and datetimes, and numbers written the way a locale writes them
 * (thousands separators, decimal commas, currency symbols, percent signs). One module parses a
 * cell into the number the engine bins and formats a decoded number back in the source's format,
 * so a date stays a date and "$4,964.01" stays a dollar amount.
 *
 * Internal units (integers; the column is a numeric column of these):
 * - date: days since 1970-01-01 (proleptic Gregorian, no zone);
 * - time: seconds of the day, 0 … 86 399 (a zone, when written, is folded into UTC);
 * - datetime: seconds since 1970-01-01T00:00:00Z (a zone, when written, is folded into UTC).
 *
 * Temporal formats are strftime patterns (`%Y-%m-%d`, `%m/%d/%Y`, …; Frictionless Table Schema
 * uses the same notation) over the directives %Y %m %d %H %M %S %z; the token notation of the app
 * and of Table Schema imports (`MM/DD/YYYY`, `HH:MM`) is read too (`toStrftime`). Parsing is strict: a date
 * that does not exist (2023-02-30, 2023-13-01) is not a date. No library: the patterns are few
 * and fixed, and `Date.UTC` does the calendar arithmetic.
 *
 * The candidate lists (TEMPORAL_FORMATS, NUMBER_FORMATS) are PUBLIC: private discovery tests
 * them with a noisy count (src/core/discovery/formats.ts), never a list read off the data.
 */

export type TemporalKind = 'date' | 'time' | 'datetime';

/** A column's declared or discovered temporal type and format. */
export interface TemporalFormat {
  readonly kind: TemporalKind;
  /** strftime pattern over %Y %m %d %H %M %S %z and literal characters. */
  readonly format: string;
}

/** Thousands separators a number format may use ('' for none). */
export const NUMBER_FORMAT_GROUPS = ['', ',', '.', ' ', "'"] as const;

/** A number written with a locale's separators and optional affixes (currency, percent). */
export interface NumberFormat {
  readonly decimal: '.' | ',';
  /**
   * Thousands separator; '' for none. ' ' also accepts the no-break spaces U+00A0 and U+202F,
   * "'" the apostrophe U+2019.
   */
  readonly group: (typeof NUMBER_FORMAT_GROUPS)[number];
  /** Written before the number (after its sign): '$', '€', '£', or ''. */
  readonly prefix?: string;
  /** Written after the number: '%', ' %', '€', ' €', or ''. */
  readonly suffix?: string;
  /** Fixed decimals on output (currency: 2); absent: as many as the value needs. */
  readonly decimals?: number;
  /**
   * A Table Schema's `bareNumber: false` with no affix stated: on input any leading and trailing
   * characters that are not part of the number (a currency, `%`) are dropped (Frictionless's
   * rule); on output none is written (which one the source used is not known).
   */
  readonly anyAffix?: boolean;
}

export const SECONDS_PER_DAY = 86_400;
const MS_PER_DAY = 86_400_000;

/** The public temporal candidates discovery tests, in order (the first that parses a value wins it). */
export const TEMPORAL_FORMATS: readonly TemporalFormat[] = [
  { kind: 'date', format: '%Y-%m-%d' },
  { kind: 'date', format: '%m/%d/%Y' },
  { kind: 'date', format: '%d/%m/%Y' },
  { kind: 'date', format: '%Y%m%d' },
  { kind: 'datetime', format: '%Y-%m-%dT%H:%M:%S' },
  { kind: 'datetime', format: '%Y-%m-%dT%H:%M:%S%z' },
  { kind: 'datetime', format: '%Y-%m-%dT%H:%M' },
  { kind: 'datetime', format: '%Y-%m-%dT%H:%M%z' },
  { kind: 'datetime', format: '%Y-%m-%d %H:%M:%S' },
  { kind: 'datetime', format: '%Y-%m-%d %H:%M:%S%z' },
  { kind: 'datetime', format: '%Y-%m-%d %H:%M' },
  { kind: 'time', format: '%H:%M' },
  { kind: 'time', format: '%H:%M:%S' },
  { kind: 'time', format: '%H:%M%z' },
  { kind: 'time', format: '%H:%M:%S%z' },
];

const LOCALES: readonly Pick<NumberFormat, 'decimal' | 'group'>[] = [
  { decimal: '.', group: ',' }, // en: 1,234.50
  { decimal: ',', group: '.' }, // de, es, it, nl: 1.234,50
  { decimal: ',', group: ' ' }, // fr, nordic: 1 234,50
  { decimal: '.', group: "'" }, // ch: 1'234.50
];
const AFFIXES: readonly { prefix: string; suffix: string; decimals?: number }[] = [
  { prefix: '', suffix: '' },
  { prefix: '$', suffix: '', decimals: 2 },
  { prefix: '€', suffix: '', decimals: 2 },
  { prefix: '£', suffix: '', decimals: 2 },
  { prefix: '', suffix: ' €', decimals: 2 },
  { prefix: '', suffix: '€', decimals: 2 },
  { prefix: '', suffix: '%' },
  { prefix: '', suffix: ' %' },
];

/**
 * The public number candidates discovery tests (after plain numbers, which values.ts parses):
 * each locale's separators with each affix. A currency affix fixes 2 decimals on output.
 */
export const NUMBER_FORMATS: readonly NumberFormat[] = AFFIXES.flatMap((a) =>
  LOCALES.map((l) => ({
    ...l,
    prefix: a.prefix,
    suffix: a.suffix,
    ...(a.decimals ? { decimals: a.decimals } : {}),
  })),
);

/** The number format a locale tag names ('en', 'en-US', 'de-DE', 'fr', 'de-CH', …), or undefined. */
export function numberFormatForLocale(
  tag: string,
  affix: { prefix?: string; suffix?: string } = {},
): NumberFormat | undefined {
  const lang = tag.toLowerCase();
  const base = /-ch$/.test(lang)
    ? LOCALES[3]
    : /^(en|ja|zh|ko|he|th)(-|$)/.test(lang)
      ? LOCALES[0]
      : /^(de|es|it|nl|pt|id|tr|da)(-|$)/.test(lang)
        ? LOCALES[1]
        : /^(fr|sv|nb|no|fi|pl|cs|ru|uk|sk|hu)(-|$)/.test(lang)
          ? LOCALES[2]
          : undefined;
  if (!base) return undefined;
  const currency = /[$€£¥]/.test(`${affix.prefix ?? ''}${affix.suffix ?? ''}`);
  return {
    ...base,
    prefix: affix.prefix ?? '',
    suffix: affix.suffix ?? '',
    ...(currency ? { decimals: 2 } : {}),
  };
}

// ---------------------------------------------------------------------------------------------
// Temporal

interface Compiled {
  readonly regex: RegExp;
  readonly fields: readonly string[];
}

const compiled = new Map<string, Compiled>();

const DIRECTIVES: Readonly<Record<string, string>> = {
  Y: '(\\d{4})',
  m: '(\\d{1,2})',
  d: '(\\d{1,2})',
  H: '(\\d{1,2})',
  M: '(\\d{2})',
  S: '(\\d{2})',
  z: '(Z|[+-]\\d{2}:?\\d{2})',
};

function escapeRegex(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** The directives a pattern uses, or an error naming what is wrong with it. */
export function temporalPatternProblem(declared: TemporalFormat): string | undefined {
  const seen = new Set<string>();
  const format = { ...declared, format: toStrftime(declared.format) };
  if (/YY/.test(format.format)) return `"${declared.format}": two-digit years (YY) are not read; use YYYY`;
  for (let i = 0; i < format.format.length; i++) {
    if (format.format[i] !== '%') continue;
    const d = format.format[++i];
    if (d === undefined || !(d in DIRECTIVES))
      return `"${format.format}": unknown directive %${d ?? ''} (use %Y %m %d %H %M %S %z)`;
    if (seen.has(d)) return `"${format.format}": %${d} appears twice`;
    seen.add(d);
  }
  const has = (ds: string) => [...ds].every((d) => seen.has(d));
  if (format.kind === 'date' && !(has('Ymd') && !seen.has('H')))
    return `"${format.format}": a date needs %Y, %m and %d and no time of day`;
  if (format.kind === 'time' && !(has('HM') && !seen.has('Y') && !seen.has('m') && !seen.has('d')))
    return `"${format.format}": a time needs %H and %M and no date`;
  if (format.kind === 'datetime' && !has('YmdHM'))
    return `"${format.format}": a datetime needs %Y %m %d %H %M`;
  return undefined;
}

/**
 * A pattern in strftime notation. The token notation of the app and of Table Schema imports
 * (`MM/DD/YYYY`, `HH:MM[:SS]`, `YYYY-MM-DDTHH:MM:SSZ`) is read too: YYYY, MM, DD, HH, SS, Z, and
 * MM after HH (and its separator) means minutes. A pattern with a % is strftime already.
 */
export function toStrftime(format: string): string {
  if (format.includes('%')) return format;
  let out = '';
  let afterHour = false;
  for (let i = 0; i < format.length; ) {
    const rest = format.slice(i);
    if (rest.startsWith('YYYY')) {
      out += '%Y';
      i += 4;
      afterHour = false;
    } else if (rest.startsWith('HH')) {
      out += '%H';
      i += 2;
      afterHour = true;
    } else if (rest.startsWith('MM')) {
      out += afterHour ? '%M' : '%m';
      i += 2;
    } else if (rest.startsWith('DD')) {
      out += '%d';
      i += 2;
      afterHour = false;
    } else if (rest.startsWith('SS')) {
      out += '%S';
      i += 2;
    } else if (rest[0] === 'Z' && i === format.length - 1) {
      out += '%z';
      i += 1;
    } else {
      out += rest[0];
      i += 1;
    }
  }
  return out;
}

function compile(raw: string): Compiled {
  let c = compiled.get(raw);
  if (c) return c;
  const format = toStrftime(raw);
  let source = '^';
  const fields: string[] = [];
  for (let i = 0; i < format.length; i++) {
    if (format[i] === '%' && format[i + 1] in DIRECTIVES) {
      source += DIRECTIVES[format[++i]];
      fields.push(format[i]);
    } else {
      source += escapeRegex(format[i]);
    }
  }
  c = { regex: new RegExp(`${source}$`), fields };
  compiled.set(raw, c);
  return c;
}

function daysInMonth(year: number, month: number): number {
  return new Date(Date.UTC(year, month, 0)).getUTCDate();
}

/** Zone offset in seconds east of UTC from 'Z', '+02:00' or '-0530'. */
function zoneSeconds(z: string): number | undefined {
  if (z === 'Z') return 0;
  const sign = z[0] === '-' ? -1 : 1;
  const digits = z.slice(1).replace(':', '');
  const h = Number(digits.slice(0, 2));
  const m = Number(digits.slice(2, 4));
  if (h > 23 || m > 59) return undefined;
  return sign * (h * 3600 + m * 60);
}

/** Days from 1970-01-01 to a valid calendar date (Date.UTC maps years 0–99 to 1900+: none here). */
function epochDay(year: number, month: number, day: number): number {
  const d = new Date(0);
  d.setUTCFullYear(year, month - 1, day);
  return Math.round(d.getTime() / MS_PER_DAY);
}

/**
 * The internal value (see the file comment) of a cell written in `format`, or undefined when the
 * cell is not a valid value of it (wrong shape, a month 13, a 30 February, an hour 24).
 */
export function parseTemporal(format: TemporalFormat, text: string): number | undefined {
  const { regex, fields } = compile(format.format);
  const m = regex.exec(text);
  if (!m) return undefined;
  let year = 1970;
  let month = 1;
  let day = 1;
  let hour = 0;
  let minute = 0;
  let second = 0;
  let zone = 0;
  for (let i = 0; i < fields.length; i++) {
    const s = m[i + 1];
    switch (fields[i]) {
      case 'Y':
        year = Number(s);
        break;
      case 'm':
        month = Number(s);
        break;
      case 'd':
        day = Number(s);
        break;
      case 'H':
        hour = Number(s);
        break;
      case 'M':
        minute = Number(s);
        break;
      case 'S':
        second = Number(s);
        break;
      case 'z': {
        const z = zoneSeconds(s);
        if (z === undefined) return undefined;
        zone = z;
        break;
      }
    }
  }
  if (month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month)) return undefined;
  if (hour > 23 || minute > 59 || second > 59) return undefined;
  const ofDay = hour * 3600 + minute * 60 + second - zone;
  if (format.kind === 'date') return epochDay(year, month, day);
  if (format.kind === 'time') return ((ofDay % SECONDS_PER_DAY) + SECONDS_PER_DAY) % SECONDS_PER_DAY;
  return epochDay(year, month, day) * SECONDS_PER_DAY + ofDay;
}

const pad = (x: number, width = 2) => String(x).padStart(width, '0');

/** The cell for internal value x (an integer) in `format`; a zone is written as Z (UTC). */
export function formatTemporal(format: TemporalFormat, x: number): string {
  const v = Math.floor(x);
  let days: number;
  let ofDay: number;
  if (format.kind === 'date') {
    days = v;
    ofDay = 0;
  } else if (format.kind === 'time') {
    days = 0;
    ofDay = ((v % SECONDS_PER_DAY) + SECONDS_PER_DAY) % SECONDS_PER_DAY;
  } else {
    days = Math.floor(v / SECONDS_PER_DAY);
    ofDay = v - days * SECONDS_PER_DAY;
  }
  const date = new Date(days * MS_PER_DAY);
  let out = '';
  const f = toStrftime(format.format);
  for (let i = 0; i < f.length; i++) {
    if (f[i] !== '%' || !(f[i + 1] in DIRECTIVES)) {
      out += f[i];
      continue;
    }
    switch (f[++i]) {
      case 'Y':
        out += pad(date.getUTCFullYear(), 4);
        break;
      case 'm':
        out += pad(date.getUTCMonth() + 1);
        break;
      case 'd':
        out += pad(date.getUTCDate());
        break;
      case 'H':
        out += pad(Math.floor(ofDay / 3600));
        break;
      case 'M':
        out += pad(Math.floor((ofDay % 3600) / 60));
        break;
      case 'S':
        out += pad(ofDay % 60);
        break;
      case 'z':
        out += 'Z';
        break;
    }
  }
  return out;
}

/** Day of the week of internal value x: 0 Monday … 6 Sunday (dates and datetimes). */
export function weekdayOf(kind: TemporalKind, x: number): number {
  const days = kind === 'date' ? x : Math.floor(x / SECONDS_PER_DAY);
  // 1970-01-01 was a Thursday (3).
  return (((days + 3) % 7) + 7) % 7;
}

/** Hour of the day of internal value x (times and datetimes). */
export function hourOf(kind: TemporalKind, x: number): number {
  const s = kind === 'date' ? 0 : ((x % SECONDS_PER_DAY) + SECONDS_PER_DAY) % SECONDS_PER_DAY;
  return Math.floor(s / 3600);
}

/** Calendar year of internal value x (dates and datetimes). */
export function yearOf(kind: TemporalKind, x: number): number {
  const days = kind === 'date' ? x : Math.floor(x / SECONDS_PER_DAY);
  return new Date(days * MS_PER_DAY).getUTCFullYear();
}

/** Internal value of the first instant of year y, month m (1–12). */
export function monthStart(kind: TemporalKind, year: number, month: number): number {
  const days = epochDay(year + Math.floor((month - 1) / 12), ((month - 1) % 12) + 1, 1);
  return kind === 'date' ? days : days * SECONDS_PER_DAY;
}

// ---------------------------------------------------------------------------------------------
// Numbers

const numberRegexes = new Map<string, RegExp>();

function groupClass(group: NumberFormat['group']): string {
  if (group === ' ') return '[ \\u00a0\\u202f]';
  if (group === "'") return "['\\u2019]";
  return escapeRegex(group);
}

function numberRegex(f: NumberFormat): RegExp {
  const key = `${f.decimal}|${f.group}`;
  let r = numberRegexes.get(key);
  if (!r) {
    const d = escapeRegex(f.decimal);
    const grouped = f.group ? `|\\d{1,3}(?:${groupClass(f.group)}\\d{3})+` : '';
    r = new RegExp(`^(?:(?:\\d+${grouped})(?:${d}\\d+)?|${d}\\d+)$`);
    numberRegexes.set(key, r);
  }
  return r;
}

/** Leading characters that cannot start a number in a format with this decimal mark. */
function affixRegex(decimal: NumberFormat['decimal']): RegExp {
  return decimal === '.' ? /^[^0-9.+-]+/ : /^[^0-9,+-]+/;
}

/**
 * The number a cell holds in format f, or undefined. The affixes are optional (a column whose
 * cells mostly say "$" may hold a bare "0"), a sign may stand before or after the prefix, and
 * thousands separators, when present, must group by three. Percent stays in percent (12% → 12).
 */
export function parseFormattedNumber(f: NumberFormat, text: string): number | undefined {
  // No-break spaces (Intl writes "1 234,50 €" with U+00A0 / U+202F) read as spaces.
  let s = text.trim().replace(/[\u00a0\u202f]/g, ' ');
  let negative = false;
  let signed = false;
  const takeSign = () => {
    if (!signed && (s[0] === '-' || s[0] === '+')) {
      negative = s[0] === '-';
      signed = true;
      s = s.slice(1);
    }
  };
  takeSign();
  if (f.prefix && s.startsWith(f.prefix)) s = s.slice(f.prefix.length);
  if (f.anyAffix) s = s.replace(affixRegex(f.decimal), '');
  takeSign();
  if (f.anyAffix) s = s.replace(/[^0-9]+$/, '');
  const suffix = f.suffix ?? '';
  if (suffix && s.endsWith(suffix)) s = s.slice(0, -suffix.length);
  else if (suffix.trim() !== suffix && s.endsWith(suffix.trim())) s = s.slice(0, -suffix.trim().length);
  if (!numberRegex(f).test(s)) return undefined;
  const plain = (f.group ? s.replace(new RegExp(groupClass(f.group), 'g'), '') : s).replace(f.decimal, '.');
  const x = Number(plain);
  if (!Number.isFinite(x)) return undefined;
  return negative ? -x : x;
}

/** A plain decimal text (as decoding writes it) in format f. */
export function formatNumberText(f: NumberFormat, plain: string): string {
  let x = Number(plain);
  if (!Number.isFinite(x)) return plain;
  const negative = x < 0;
  x = Math.abs(x);
  let body = f.decimals !== undefined ? x.toFixed(f.decimals) : String(x);
  if (/e/i.test(body)) body = x.toFixed(Math.min(20, Math.max(0, -Math.floor(Math.log10(x)) + 6)));
  const [int, frac] = body.split('.');
  const grouped = f.group ? int.replace(/\B(?=(\d{3})+(?!\d))/g, f.group) : int;
  const number = frac ? `${grouped}${f.decimal}${frac}` : grouped;
  return `${negative ? '-' : ''}${f.prefix ?? ''}${number}${f.suffix ?? ''}`;
}

/** A short public label of a number format ('1,234.5', '$1,234.50', '1.234,5 €', '12%'). */
export function describeNumberFormat(f: NumberFormat): string {
  return formatNumberText(f, '1234.5');
}
