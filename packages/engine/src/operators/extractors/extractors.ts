import { compileGoRegex, toDslString } from '../dsl/dsl-functions.ts';
import { type CompiledDsl, compileDsl } from '../dsl/dsl-interpreter.ts';
import { OperatorCompileError, type OperatorEvent, partAsString, readPart } from '../operator-types.ts';
import { compileXPath, type XPathQuery } from '../xpath.ts';
import { compileJsonQuery, type JsonQuery } from './json-query.ts';

interface ExtractorBase {
  name?: string;
  part?: string;
  internal?: boolean;
  'case-insensitive'?: boolean;
}

/** Extractors as written in a template: a discriminated union on `type`. */
export type ExtractorDef =
  | (ExtractorBase & { type: 'regex'; regex: string[]; group?: number })
  | (ExtractorBase & { type: 'kval'; kval: string[] })
  | (ExtractorBase & { type: 'json'; json: string[] })
  | (ExtractorBase & { type: 'xpath'; xpath: string[]; attribute?: string })
  | (ExtractorBase & { type: 'dsl'; dsl: string[] });

export interface CompiledExtractor {
  name?: string;
  type: ExtractorDef['type'];
  /** Internal extractors feed variables of later requests and are not reported. */
  internal: boolean;
  extract(event: OperatorEvent): string[];
}

function unique(values: string[]): string[] {
  return [...new Set(values)];
}

export function compileExtractor(def: ExtractorDef, field = 'extractors'): CompiledExtractor {
  const ci = def['case-insensitive'] === true;
  const wrap = (fn: (event: OperatorEvent) => string[]): CompiledExtractor => ({
    ...(def.name !== undefined ? { name: def.name } : {}),
    type: def.type,
    internal: def.internal === true,
    extract: (event) => {
      const values = unique(fn(event).filter((v) => v !== ''));
      return ci ? values.map((v) => v.toLowerCase()) : values;
    },
  });
  switch (def.type) {
    case 'regex': {
      if (!Array.isArray(def.regex) || def.regex.length === 0)
        throw new OperatorCompileError(`${field}.regex`, 'no regex');
      const group = def.group ?? 0;
      const res = def.regex.map((r, i) => {
        try {
          const re = compileGoRegex(String(r));
          return new RegExp(re.source, `${re.flags.replace('g', '')}g`);
        } catch (err) {
          throw new OperatorCompileError(`${field}.regex[${i}]`, `invalid regex: ${(err as Error).message}`);
        }
      });
      return wrap((event) => {
        const text = partAsString(readPart(event, def.part));
        const out: string[] = [];
        for (const re of res)
          for (const m of text.matchAll(re)) if (m[group] !== undefined) out.push(m[group] as string);
        return out;
      });
    }
    case 'kval': {
      // An empty `kval:` extracts nothing, as nuclei reads it (CVE-2021-44228's template has one).
      if (!Array.isArray(def.kval)) throw new OperatorCompileError(`${field}.kval`, 'no kval');
      return wrap((event) =>
        def.kval.flatMap((k) => {
          const v = readPart(event, String(k).toLowerCase().replace(/-/g, '_'));
          return v === undefined ? [] : Array.isArray(v) ? v.map(toDslString) : [toDslString(v)];
        }),
      );
    }
    case 'json': {
      if (!Array.isArray(def.json) || def.json.length === 0)
        throw new OperatorCompileError(`${field}.json`, 'no json');
      const queries: JsonQuery[] = def.json.map((q, i) => {
        try {
          return compileJsonQuery(String(q));
        } catch (err) {
          throw new OperatorCompileError(`${field}.json[${i}]`, (err as Error).message);
        }
      });
      return wrap((event) => {
        const v = readPart(event, def.part);
        let doc: unknown;
        try {
          doc = typeof v === 'string' ? JSON.parse(v) : v;
        } catch {
          return [];
        }
        return queries.flatMap((q) =>
          q
            .run(doc)
            .filter((x) => x !== null && x !== undefined)
            .map((x) => (typeof x === 'string' ? x : JSON.stringify(x))),
        );
      });
    }
    case 'xpath': {
      if (!Array.isArray(def.xpath) || def.xpath.length === 0)
        throw new OperatorCompileError(`${field}.xpath`, 'no xpath');
      const queries: XPathQuery[] = def.xpath.map((x, i) => {
        try {
          const q = String(x);
          return compileXPath(def.attribute ? `${q}/@${def.attribute}` : q);
        } catch (err) {
          throw new OperatorCompileError(`${field}.xpath[${i}]`, (err as Error).message);
        }
      });
      return wrap((event) => {
        const text = partAsString(readPart(event, def.part));
        return queries.flatMap((q) => q.select(text).map((s) => s.trim()));
      });
    }
    case 'dsl': {
      if (!Array.isArray(def.dsl) || def.dsl.length === 0)
        throw new OperatorCompileError(`${field}.dsl`, 'no dsl');
      const exprs: CompiledDsl[] = def.dsl.map((d, i) => {
        try {
          return compileDsl(String(d));
        } catch (err) {
          throw new OperatorCompileError(`${field}.dsl[${i}]`, (err as Error).message);
        }
      });
      return wrap((event) =>
        exprs.flatMap((e) => {
          try {
            const v = e.evaluate(event.values);
            if (Array.isArray(v)) return v.filter((x) => x !== null && x !== '').map(toDslString);
            return v === null || v === false ? [] : [toDslString(v)];
          } catch {
            return [];
          }
        }),
      );
    }
    default: {
      const t: string = (def as { type: string }).type;
      throw new OperatorCompileError(`${field}.type`, `unknown extractor type '${t}'`);
    }
  }
}
