/**
 * A small XPath 1.0 subset over a tolerant HTML/XML tree, enough for the xpath matchers and
 * extractors templates use: absolute and `//` paths, `*`, `@attr`, `text()`, positional
 * `[n]`, and predicates `[@a]`, `[@a='v']`, `[contains(@a,'v')]`, `[text()='v']`,
 * `[contains(text(),'v')]`, `[starts-with(@a,'v')]`, unions `a|b` and `concat(…)`.
 */

interface XNode {
  tag: string;
  attrs: Record<string, string>;
  children: XNode[];
  text: string;
  parent?: XNode;
}

const VOID = new Set([
  'area',
  'base',
  'br',
  'col',
  'embed',
  'hr',
  'img',
  'input',
  'link',
  'meta',
  'param',
  'source',
  'track',
  'wbr',
]);
const RAW_TEXT = new Set(['script', 'style']);

function decodeEntities(s: string): string {
  return s
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&#39;|&apos;/g, "'")
    .replace(/&#(\d+);/g, (_m, d: string) => String.fromCharCode(Number(d)))
    .replace(/&amp;/g, '&');
}

export function parseMarkup(source: string): XNode {
  const root: XNode = { tag: '#root', attrs: {}, children: [], text: '' };
  let current = root;
  const re =
    /<!--[\s\S]*?-->|<!\[CDATA\[([\s\S]*?)\]\]>|<![^>]*>|<\?[\s\S]*?\?>|<\/\s*([A-Za-z][\w:.-]*)\s*>|<([A-Za-z][\w:.-]*)((?:\s+[^\s=/>]+(?:\s*=\s*(?:"[^"]*"|'[^']*'|[^\s>]+))?)*)\s*(\/?)>/g;
  let last = 0;
  const addText = (t: string) => {
    if (t === '') return;
    const node: XNode = { tag: '#text', attrs: {}, children: [], text: decodeEntities(t), parent: current };
    current.children.push(node);
  };
  for (let m = re.exec(source); m !== null; m = re.exec(source)) {
    addText(source.slice(last, m.index));
    last = re.lastIndex;
    if (m[1] !== undefined) {
      addText(m[1]);
    } else if (m[2] !== undefined) {
      const tag = m[2].toLowerCase();
      let n: XNode | undefined = current;
      while (n && n.tag !== tag) n = n.parent;
      if (n?.parent) current = n.parent;
    } else if (m[3] !== undefined) {
      const tag = m[3].toLowerCase();
      const attrs: Record<string, string> = {};
      for (const a of (m[4] ?? '').matchAll(/([^\s=/>]+)(?:\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s>]+)))?/g)) {
        attrs[(a[1] as string).toLowerCase()] = decodeEntities(a[2] ?? a[3] ?? a[4] ?? '');
      }
      const node: XNode = { tag, attrs, children: [], text: '', parent: current };
      current.children.push(node);
      if (RAW_TEXT.has(tag) && m[5] !== '/') {
        const end = source.toLowerCase().indexOf(`</${tag}`, last);
        const stop = end < 0 ? source.length : end;
        node.children.push({
          tag: '#text',
          attrs: {},
          children: [],
          text: source.slice(last, stop),
          parent: node,
        });
        const close = source.indexOf('>', stop);
        last = close < 0 ? source.length : close + 1;
        re.lastIndex = last;
      } else if (!VOID.has(tag) && m[5] !== '/') current = node;
    }
  }
  addText(source.slice(last));
  return root;
}

function textOf(n: XNode): string {
  if (n.tag === '#text') return n.text;
  return n.children.map(textOf).join('');
}

type Predicate = (n: XNode, position: number) => boolean;
interface Step {
  axis: 'child' | 'descendant';
  test: string; // tag, '*', 'text()', '@attr', 'node()'
  predicates: Predicate[];
}

export interface XPathQuery {
  source: string;
  /** Selected values: the text of elements, attribute values or text nodes. */
  select(markup: string): string[];
}

function parsePredicate(src: string): Predicate {
  const p = src.trim();
  if (/^\d+$/.test(p)) {
    const n = Number(p);
    return (_node, pos) => pos === n;
  }
  if (p === 'last()') return () => true;
  const value = (operand: string, n: XNode): string | undefined => {
    const o = operand.trim();
    if (o.startsWith('@')) return n.attrs[o.slice(1).toLowerCase()];
    if (o === 'text()' || o === '.') return textOf(n);
    const q = /^(['"])(.*)\1$/.exec(o);
    if (q) return q[2];
    const child = n.children.find((c) => c.tag === o.toLowerCase());
    return child ? textOf(child) : undefined;
  };
  const fn = /^(contains|starts-with)\s*\((.+?),\s*(['"])(.*)\3\s*\)$/.exec(p);
  if (fn) {
    const [, name, operand, , needle] = fn as unknown as [string, string, string, string, string];
    return (n) => {
      const v = value(operand, n);
      return v !== undefined && (name === 'contains' ? v.includes(needle) : v.startsWith(needle));
    };
  }
  const eq = /^(.+?)\s*(!=|=)\s*(.+)$/.exec(p);
  if (eq) {
    const [, left, op, right] = eq as unknown as [string, string, string, string];
    return (n) => {
      const a = value(left, n);
      const b = value(right, n);
      if (a === undefined || b === undefined) return false;
      return op === '=' ? a === b : a !== b;
    };
  }
  if (p.startsWith('@') || /^[\w-]+$/.test(p)) return (n) => value(p, n) !== undefined;
  throw new Error(`unsupported xpath predicate '${p}'`);
}

function splitSteps(path: string): Step[] {
  const steps: Step[] = [];
  let i = 0;
  if (!path.startsWith('/')) path = `//${path}`;
  while (i < path.length) {
    let axis: Step['axis'] = 'child';
    if (path.startsWith('//', i)) {
      axis = 'descendant';
      i += 2;
    } else if (path[i] === '/') i += 1;
    else throw new Error(`unexpected '${path[i]}' in xpath`);
    let j = i;
    let depth = 0;
    let quote = '';
    while (j < path.length) {
      const c = path[j] as string;
      if (quote) {
        if (c === quote) quote = '';
      } else if (c === '"' || c === "'") quote = c;
      else if (c === '[') depth++;
      else if (c === ']') depth--;
      else if (c === '/' && depth === 0) break;
      j++;
    }
    const raw = path.slice(i, j);
    i = j;
    const m = /^([^[]+)((?:\[.*\])*)$/.exec(raw);
    if (!m) throw new Error(`invalid xpath step '${raw}'`);
    const test = (m[1] as string).trim();
    if (!/^(\*|@?[\w:.-]+|text\(\)|node\(\)|\.)$/.test(test))
      throw new Error(`unsupported xpath step '${test}'`);
    const predicates: Predicate[] = [];
    for (const pm of (m[2] ?? '').matchAll(/\[((?:[^\]'"]|'[^']*'|"[^"]*")*)\]/g))
      predicates.push(parsePredicate(pm[1] as string));
    steps.push({ axis, test: test.toLowerCase(), predicates });
  }
  return steps;
}

function descendants(n: XNode, out: XNode[]): void {
  for (const c of n.children) {
    out.push(c);
    descendants(c, out);
  }
}

/** Splits on a separator outside quotes, brackets and parentheses. */
function splitTop(src: string, sep: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let quote = '';
  let start = 0;
  for (let i = 0; i < src.length; i++) {
    const c = src[i] as string;
    if (quote) {
      if (c === quote) quote = '';
    } else if (c === '"' || c === "'") quote = c;
    else if (c === '[' || c === '(') depth++;
    else if (c === ']' || c === ')') depth--;
    else if (c === sep && depth === 0) {
      parts.push(src.slice(start, i));
      start = i + 1;
    }
  }
  parts.push(src.slice(start));
  return parts.map((p) => p.trim());
}

/**
 * A path, a union of paths (`//a/@href|//img/@src`) or `concat(path, 'literal', …)` (the
 * string value of each path's first node, joined).
 */
export function compileXPath(source: string): XPathQuery {
  const text = source.trim();
  const union = splitTop(text, '|');
  if (union.length > 1) {
    const parts = union.map(compileXPath);
    return { source, select: (markup) => parts.flatMap((q) => q.select(markup)) };
  }
  const concat = /^concat\s*\(([\s\S]*)\)$/.exec(text);
  if (concat) {
    const args = splitTop(concat[1] as string, ',').map((a) => {
      const lit = /^(['"])([\s\S]*)\1$/.exec(a);
      if (lit) return lit[2] as string;
      return compileXPath(a);
    });
    if (args.length < 2) throw new Error('concat() needs two arguments or more');
    return {
      source,
      select(markup: string): string[] {
        const values = args.map((a) =>
          typeof a === 'string' ? { v: a, path: false } : { v: a.select(markup)[0], path: true },
        );
        if (values.every((x) => !x.path || x.v === undefined)) return [];
        return [values.map((x) => x.v ?? '').join('')];
      },
    };
  }
  return compilePath(text, source);
}

function compilePath(text: string, source: string): XPathQuery {
  const steps = splitSteps(text);
  if (steps.length === 0) throw new Error('empty xpath');
  return {
    source,
    select(markup: string): string[] {
      let nodes: XNode[] = [parseMarkup(markup)];
      for (let si = 0; si < steps.length; si++) {
        const step = steps[si] as Step;
        if (step.test.startsWith('@')) {
          const name = step.test.slice(1);
          return nodes.flatMap((n) => {
            const pool: XNode[] = [n];
            if (step.axis === 'descendant') descendants(n, pool);
            return pool.map((x) => x.attrs[name]).filter((v): v is string => v !== undefined);
          });
        }
        const next: XNode[] = [];
        for (const n of nodes) {
          const pool: XNode[] = [];
          if (step.axis === 'descendant') descendants(n, pool);
          else pool.push(...n.children);
          const candidates = pool.filter((c) => {
            if (step.test === 'text()') return c.tag === '#text';
            if (step.test === 'node()') return true;
            if (step.test === '*') return c.tag !== '#text';
            return c.tag === step.test;
          });
          candidates.forEach((c, idx) => {
            if (step.predicates.every((p) => p(c, idx + 1))) next.push(c);
          });
        }
        nodes = next;
      }
      return nodes.map(textOf);
    },
  };
}
