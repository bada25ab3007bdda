import { DslRuntimeError, type DslValue, toDslString } from './dsl-functions.ts';

/** nuclei's date/time helpers: `date_time`'s two format styles and the optional unix-time argument. */

const pad2 = (n: number): string => String(n).padStart(2, '0');

/** `%Y-%M-%D %H:%m:%s` (nuclei's simple format) or a Go layout such as `2006-01-02`. */
export function formatDateTime(format: string, date: Date): string {
  if (/%[A-Za-z]/.test(format)) {
    return format.replace(/%([A-Za-z])/g, (whole, c: string) => {
      switch (c) {
        case 'Y':
        case 'y':
          return String(date.getFullYear());
        case 'M':
          return pad2(date.getMonth() + 1);
        case 'D':
        case 'd':
          return pad2(date.getDate());
        case 'H':
        case 'h':
          return pad2(date.getHours());
        case 'm':
          return pad2(date.getMinutes());
        case 'S':
        case 's':
          return pad2(date.getSeconds());
        default:
          throw new DslRuntimeError(`invalid date time format '${whole}'`);
      }
    });
  }
  const months = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
  const days = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];
  const tokens: [string, () => string][] = [
    ['2006', () => String(date.getFullYear())],
    ['January', () => new Intl.DateTimeFormat('en', { month: 'long' }).format(date)],
    ['Monday', () => new Intl.DateTimeFormat('en', { weekday: 'long' }).format(date)],
    ['Jan', () => months[date.getMonth()] as string],
    ['Mon', () => days[date.getDay()] as string],
    ['MST', () => 'UTC'],
    ['-0700', () => offset(date, '')],
    ['-07:00', () => offset(date, ':')],
    ['01', () => pad2(date.getMonth() + 1)],
    ['02', () => pad2(date.getDate())],
    ['15', () => pad2(date.getHours())],
    ['03', () => pad2(date.getHours() % 12 || 12)],
    ['04', () => pad2(date.getMinutes())],
    ['05', () => pad2(date.getSeconds())],
    ['06', () => pad2(date.getFullYear() % 100)],
    ['PM', () => (date.getHours() < 12 ? 'AM' : 'PM')],
    ['.000', () => `.${String(date.getMilliseconds()).padStart(3, '0')}`],
  ];
  let out = '';
  let i = 0;
  outer: while (i < format.length) {
    for (const [token, value] of tokens) {
      if (format.startsWith(token, i)) {
        out += value();
        i += token.length;
        continue outer;
      }
    }
    out += format[i];
    i++;
  }
  return out;
}

function offset(date: Date, sep: string): string {
  const minutes = -date.getTimezoneOffset();
  const sign = minutes < 0 ? '-' : '+';
  const abs = Math.abs(minutes);
  return `${sign}${pad2(Math.floor(abs / 60))}${sep}${pad2(abs % 60)}`;
}

/** nuclei's optional unix-time argument: a number of seconds or a date string. */
export function timeArg(v: DslValue | undefined): Date {
  if (v === undefined) return new Date();
  const s = toDslString(v).trim();
  if (/^-?\d+(\.\d+)?$/.test(s)) return new Date(Number(s) * 1000);
  const t = Date.parse(s);
  if (Number.isNaN(t)) throw new DslRuntimeError(`'${s}' is not a time`);
  return new Date(t);
}
