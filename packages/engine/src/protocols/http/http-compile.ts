import {
  attackOf,
  type CompileContext,
  checkPlaceholders,
  compileOperators,
  liftWaits,
  loadPayloads,
  type ProtocolCompiler,
  TemplateCompileError,
} from '../../templates/compile-support.ts';
import { AnnotationError, compileAnnotations } from '../../templates/raw-annotations.ts';
import type { HttpRequestDoc } from '../../templates/template-schema.ts';
import type { CompiledHttpRequest, RawHttpSpec } from '../../templates/template-types.ts';

function parseRaw(text: string): RawHttpSpec {
  const annotations: Record<string, string> = {};
  const lines = text.replace(/^\s*\n/, '').split('\n');
  while (lines.length > 0 && /^\s*@/.test(lines[0] as string)) {
    const line = (lines.shift() as string).trim();
    const m = /^@([\w-]+)\s*:?\s*(.*)$/.exec(line);
    // `@once` has no value; the others are `@name: value`.
    if (m) annotations[(m[1] as string).toLowerCase()] = (m[2] as string).trim();
  }
  const rest = lines.join('\n');
  const requestLine = rest.trimStart().split('\n')[0] ?? '';
  // The method may be a placeholder (`{{verb}} http://… HTTP/1.1`), checked once filled in.
  if (!/^([A-Za-z]+|\{\{[^{}]+\}\})\s+\S+/.test(requestLine.trim()))
    throw new TemplateCompileError('raw', `invalid request line '${requestLine.trim().slice(0, 60)}'`);
  try {
    return { kind: 'raw', text: rest.trimStart(), annotations, annotated: compileAnnotations(annotations) };
  } catch (err) {
    if (err instanceof AnnotationError) throw new TemplateCompileError('raw', err.message);
    throw err;
  }
}

/** One `http:` (or legacy `requests:`) block: its path/raw specs, options, payloads and operators. */
export function compileHttpRequest(
  r: HttpRequestDoc,
  field: string,
  ctx: CompileContext,
): Omit<CompiledHttpRequest, 'index'> {
  const payloads = loadPayloads(field, r.payloads, ctx);
  const specs: CompiledHttpRequest['specs'] = [];
  for (const [j, written] of (r.path ?? []).entries()) {
    const { text: p, waitMs } = liftWaits(written);
    checkPlaceholders(`${field}.path[${j}]`, [p]);
    specs.push({ kind: 'path', path: p, ...(waitMs ? { waitMs } : {}) });
  }
  for (const [j, written] of (r.raw ?? []).entries()) {
    const { text, waitMs } = liftWaits(written);
    checkPlaceholders(`${field}.raw[${j}]`, [text]);
    try {
      specs.push({ ...parseRaw(text), ...(waitMs ? { waitMs } : {}) });
    } catch (err) {
      if (err instanceof TemplateCompileError)
        throw new TemplateCompileError(`${field}.raw[${j}]`, err.message);
      throw err;
    }
  }
  if (specs.length === 0) throw new TemplateCompileError(`${field}.path`, 'a request needs path or raw');
  const method = (r.method ?? 'GET').toUpperCase();
  if (!/^[A-Z]+$/.test(method))
    throw new TemplateCompileError(`${field}.method`, `invalid method '${r.method}'`);
  checkPlaceholders(`${field}.headers`, Object.values(r.headers ?? {}));
  if (r.body !== undefined) checkPlaceholders(`${field}.body`, [r.body]);
  return {
    protocol: 'http',
    ...(r.id ? { id: r.id } : {}),
    method,
    specs,
    headers: r.headers ?? {},
    ...(r.body !== undefined ? { body: r.body } : {}),
    redirects: r.redirects === true || r['host-redirects'] === true,
    hostRedirects: r['host-redirects'] === true && r.redirects !== true,
    maxRedirects: r['max-redirects'] ?? 10,
    stopAtFirstMatch: r['stop-at-first-match'] === true,
    cookieReuse: r['cookie-reuse'] === true || r['disable-cookie'] !== true,
    reqCondition: r['req-condition'] === true,
    ...(r['max-size'] !== undefined ? { maxSize: r['max-size'] } : {}),
    unsafe: r.unsafe === true && (r.raw ?? []).length > 0,
    readAll: r['read-all'] === true,
    payloads,
    attack: attackOf(r.attack, payloads),
    ...compileOperators(field, r),
  };
}

export const httpCompiler: ProtocolCompiler = {
  keys: ['http', 'requests'],
  flowNames: ['http'],
  field: 'http',
  compile: compileHttpRequest,
};
