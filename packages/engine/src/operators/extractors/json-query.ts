/**
 * The subset of jq that nuclei's json extractors use: `.a.b`, `.a[0]`, `.a[]`, `.["k"]`,
 * pipes `|`, comma-free paths, `keys`, `length`, and `select(.x == "v")`.
 */

type Json = unknown;

export interface JsonQuery {
  source: string;
  run(input: Json): Json[];
}

type Op =
  | { kind: 'key'; key: string }
  | { kind: 'index'; index: number }
  | { kind: 'iterate' }
  | { kind: 'fn'; name: string }
  | { kind: 'select'; path: Op[]; op: string; value: Json };

function parsePath(src: string): Op[] {
  const ops: Op[] = [];
  let s = src.trim();
  if (s === '.' || s === '') return ops;
  if (s === 'keys' || s === 'length' || s === 'tostring') return [{ kind: 'fn', name: s }];
  const sel = /^select\((.+?)\s*(==|!=)\s*(.+)\)$/.exec(s);
  if (sel) {
    return [
      {
        kind: 'select',
        path: parsePath(sel[1] as string),
        op: sel[2] as string,
        value: JSON.parse(sel[3] as string),
      },
    ];
  }
  if (!s.startsWith('.')) throw new Error(`unsupported jq expression '${src}'`);
  const patterns: [RegExp, (m: RegExpExecArray) => Op][] = [
    [/^\.?\[\]\??/, () => ({ kind: 'iterate' })],
    [/^\.?\[(-?\d+)\]\??/, (m) => ({ kind: 'index', index: Number(m[1]) })],
    [/^\.?\["([^"]*)"\]\??/, (m) => ({ kind: 'key', key: m[1] as string })],
    [/^\.([A-Za-z_$][\w$-]*)\??/, (m) => ({ kind: 'key', key: m[1] as string })],
    [/^\."([^"]*)"\??/, (m) => ({ kind: 'key', key: m[1] as string })],
  ];
  while (s.length > 0) {
    let m: RegExpExecArray | null = null;
    for (const [re, make] of patterns) {
      m = re.exec(s);
      if (m) {
        ops.push(make(m));
        break;
      }
    }
    if (!m) throw new Error(`unsupported jq expression '${src}'`);
    s = s.slice(m[0].length).trim();
  }
  return ops;
}

function apply(ops: Op[], input: Json): Json[] {
  let values: Json[] = [input];
  for (const op of ops) {
    const next: Json[] = [];
    for (const v of values) {
      if (op.kind === 'key') {
        if (v !== null && typeof v === 'object' && !Array.isArray(v))
          next.push((v as Record<string, Json>)[op.key] ?? null);
        else if (v === null) next.push(null);
      } else if (op.kind === 'index') {
        if (Array.isArray(v)) next.push(v[op.index < 0 ? v.length + op.index : op.index] ?? null);
      } else if (op.kind === 'iterate') {
        if (Array.isArray(v)) next.push(...v);
        else if (v !== null && typeof v === 'object') next.push(...Object.values(v));
      } else if (op.kind === 'fn') {
        if (op.name === 'keys' && v !== null && typeof v === 'object')
          next.push(Array.isArray(v) ? v.map((_x, i) => i) : Object.keys(v).sort());
        else if (op.name === 'length')
          next.push(
            Array.isArray(v)
              ? v.length
              : typeof v === 'string'
                ? v.length
                : v !== null && typeof v === 'object'
                  ? Object.keys(v).length
                  : 0,
          );
        else if (op.name === 'tostring') next.push(typeof v === 'string' ? v : JSON.stringify(v));
      } else if (op.kind === 'select') {
        const got = apply(op.path, v);
        const hit = got.some((g) => JSON.stringify(g) === JSON.stringify(op.value));
        if (op.op === '==' ? hit : !hit) next.push(v);
      }
    }
    values = next;
  }
  return values;
}

/** Splits on a separator outside string literals. */
function splitOutside(src: string, sep: string): string[] {
  const parts: string[] = [];
  let cur = '';
  let quoted = false;
  for (let i = 0; i < src.length; i++) {
    const c = src[i] as string;
    if (c === '"' && src[i - 1] !== '\\') quoted = !quoted;
    if (c === sep && !quoted) {
      parts.push(cur);
      cur = '';
    } else cur += c;
  }
  parts.push(cur);
  return parts;
}

type Stage = (input: Json) => Json[];

function compileStage(src: string): Stage {
  const terms = splitOutside(src, '+').map((t) => t.trim());
  if (terms.length === 1) {
    const ops = parsePath(src);
    return (input) => apply(ops, input);
  }
  // String addition: "prefix" + .path
  const parts = terms.map((t): Stage => {
    if (/^"(?:[^"\\]|\\.)*"$/.test(t)) {
      const lit = JSON.parse(t) as string;
      return () => [lit];
    }
    const ops = parsePath(t);
    return (input) => apply(ops, input);
  });
  return (input) => {
    const values = parts.map((p) => p(input)[0]);
    if (values.some((v) => v === null || v === undefined)) return [null];
    return [values.map((v) => (typeof v === 'string' ? v : JSON.stringify(v))).join('')];
  };
}

export function compileJsonQuery(source: string): JsonQuery {
  const stages = splitOutside(source, '|').map((p) => compileStage(p.trim()));
  return {
    source,
    run(input: Json): Json[] {
      let values: Json[] = [input];
      for (const stage of stages) values = values.flatMap((v) => stage(v));
      return values;
    },
  };
}
