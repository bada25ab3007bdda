/**
 * Version comparison for real-world version strings: 2.4.49, 1.0.2k, 7.2p2, 8.3.0-beta1,
 * 1.12.4-rc.1, 5.6.40-1+deb8u1. A version is split into segments: runs of digits, runs of
 * letters, separated by `.`, `-`, `_`, `+`, `~` or `:`. Segments compare pairwise:
 * numbers numerically, letters lexically, a number is greater than letters (so 1.0 > 1.0-beta),
 * and a missing segment compares like 0 — except that a pre-release word (alpha, beta, rc, pre,
 * dev, snapshot, preview) after the last common segment makes the version smaller
 * (8.3.0-beta1 < 8.3.0), while any other suffix makes it greater (1.0.2k > 1.0.2, 7.2p2 > 7.2).
 */

type Segment = { num: number } | { word: string; pre: boolean };

const PRE_RELEASE = /^(alpha|beta|rc|cr|pre|preview|dev|snapshot|milestone|ea)$/i;
// `a`/`b`/`m` followed by a number are pre-releases (1.9.0b1 < 1.9.0); a lone letter is a
// later patch letter (OpenSSL's 1.0.2k > 1.0.2), and `p2` is a patch level (7.2p2 > 7.2).
const SHORT_PRE_RELEASE = /^(a|b|m)$/i;

function splitVersion(version: string): Segment[] {
  const out: Segment[] = [];
  const cleaned = version.trim().replace(/^v(?=\d)/i, '');
  const re = /(\d+)|([A-Za-z]+)/g;
  const matches = [...cleaned.matchAll(re)];
  matches.forEach((m, i) => {
    if (m[1] !== undefined) out.push({ num: Number.parseInt(m[1], 10) });
    else if (m[2] !== undefined) {
      const word = m[2].toLowerCase();
      const next = matches[i + 1];
      const adjacent =
        next !== undefined && next[1] !== undefined && next.index === (m.index ?? 0) + m[2].length;
      out.push({ word, pre: PRE_RELEASE.test(word) || (SHORT_PRE_RELEASE.test(word) && adjacent) });
    }
  });
  return out;
}

function isPreRelease(s: Segment | undefined): boolean {
  return s !== undefined && 'word' in s && s.pre;
}

/** Returns -1, 0 or 1. */
export function compareVersions(a: string, b: string): number {
  const sa = splitVersion(a);
  const sb = splitVersion(b);
  const n = Math.max(sa.length, sb.length);
  for (let i = 0; i < n; i++) {
    const x = sa[i];
    const y = sb[i];
    if (x === undefined || y === undefined) {
      // The longer version wins unless its extra part is zeros only or starts a pre-release.
      const rest = (x === undefined ? sb : sa).slice(i);
      const first = rest.find((s) => !('num' in s && s.num === 0));
      if (first === undefined) return 0;
      const sign = x === undefined ? -1 : 1;
      return isPreRelease(first) ? -sign : sign;
    }
    if ('num' in x && 'num' in y) {
      if (x.num !== y.num) return x.num < y.num ? -1 : 1;
      continue;
    }
    if ('word' in x && 'word' in y) {
      if (x.word === y.word) continue;
      const px = isPreRelease(x);
      const py = isPreRelease(y);
      if (px && !py) return -1;
      if (py && !px) return 1;
      return x.word < y.word ? -1 : 1;
    }
    // number vs word: a pre-release word is lower than a number; another word (1.0.2k vs 1.0.2.1)
    // is also treated as lower than a further numeric segment.
    return 'num' in x ? 1 : -1;
  }
  return 0;
}

const CONSTRAINT = /^\s*(>=|<=|!=|==|=|>|<|~>|\^)?\s*v?([^\s,]+)\s*$/;

/** hashicorp/go-version style constraints as nuclei's compare_versions uses: "< 2.0, >= 1.2". */
export function satisfiesConstraint(version: string, constraint: string): boolean {
  return constraint
    .split(',')
    .filter((c) => c.trim() !== '')
    .every((part) => {
      const m = CONSTRAINT.exec(part);
      if (!m) return false;
      const op = m[1] ?? '=';
      const target = m[2] as string;
      const c = compareVersions(version, target);
      switch (op) {
        case '>':
          return c > 0;
        case '>=':
          return c >= 0;
        case '<':
          return c < 0;
        case '<=':
          return c <= 0;
        case '!=':
          return c !== 0;
        case '~>': {
          // ~> 1.2.3 means >= 1.2.3, < 1.3
          const segs = target.split('.');
          if (c < 0) return false;
          if (segs.length < 2) return true;
          const upper = [...segs.slice(0, -2), String(Number(segs[segs.length - 2]) + 1)].join('.');
          return compareVersions(version, upper) < 0;
        }
        case '^': {
          const major = Number.parseInt(target, 10);
          return c >= 0 && compareVersions(version, String(major + 1)) < 0;
        }
        default:
          return c === 0;
      }
    });
}
