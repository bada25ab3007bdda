import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compileOrThrow, scanAll, startHttp, tpl } from '../../../test/template-helpers.ts';
import { compileFlow, type FlowHost, runFlow } from './flow-interpreter.ts';
import { parseFlow } from './flow-parser.ts';

const PROTOCOLS = ['http', 'dns', 'tcp', 'network', 'ssl'];

/** A host that records protocol calls; `matches` says which calls match. */
function fakeHost(values: Record<string, unknown>, matches: (ref: string | number) => boolean = () => true) {
  const calls: string[] = [];
  const vars: Record<string, unknown> = {};
  const logs: string[] = [];
  const host: FlowHost = {
    runProtocol: async (protocol, ref) => {
      calls.push(`${protocol}(${ref}${Object.keys(vars).length ? ` ${JSON.stringify(vars)}` : ''})`);
      return matches(ref);
    },
    set: (name, value) => {
      vars[name] = value;
    },
    get: (name) => vars[name] ?? values[name],
    has: (name) => name in values || name in vars,
    log: (m) => logs.push(m),
  };
  return { host, calls, logs };
}

const run = async (
  source: string,
  values: Record<string, unknown> = {},
  matches?: (r: string | number) => boolean,
) => {
  const h = fakeHost(values, matches);
  const result = await runFlow(compileFlow(source, PROTOCOLS), h.host, PROTOCOLS);
  return { result, ...h };
};

describe('flow: the JavaScript subset of the corpus', () => {
  it('boolean chains short-circuit; `&` runs every request', async () => {
    expect((await run('http(1) && http(2)', {}, (r) => r !== 1)).calls).toEqual(['http(1)']);
    expect((await run('http(1) || http(2)')).calls).toEqual(['http(1)']);
    expect((await run('http(1) & http(2) & http(3)', {}, () => false)).calls).toHaveLength(3);
  });

  it('requests by id, if/else on template values, hasOwnProperty', async () => {
    const flow = `if ( !template.hasOwnProperty('username') || !template.hasOwnProperty('password') ) {
  // unauthenticated
  http("unauth-exploit")
} else {
  http("login") && http("auth-exploit")
}`;
    expect((await run(flow)).calls).toEqual(['http(unauth-exploit)']);
    expect((await run(flow, { username: 'u', password: 'p' })).calls).toEqual([
      'http(login)',
      'http(auth-exploit)',
    ]);
  });

  it('iterates extracted values with set()', async () => {
    const flow = `http(1)
for (let widget_id of iterate(template.widgets_id)) {
  set("widget_id", widget_id)
  http(2)
}`;
    const { calls } = await run(flow, { widgets_id: ['a', 'b'] });
    expect(calls).toEqual(['http(1)', 'http(2 {"widget_id":"a"})', 'http(2 {"widget_id":"b"})']);
  });

  it('runs the directory-listing flow (functions, for/in, string methods, push/includes)', async () => {
    const flow = `function target_is_in_scope(url) {
  if (url.startsWith(template.http_1_host) || url.startsWith("/")) {
    return true;
  }
  return false;
}
http(1);
if(template.links) {
  var path_checked = [];
  for(i=0; i<template.links.length; i++) {
    if (target_is_in_scope(template.links[i])) {
      var path = template.links[i].replace(template.http_1_host, "");
      var path_split = path.split("/");
      var path_to_check = "";
      for(p in path_split) {
        if (path_split[p] != "") {
          path_to_check += "/"+path_split[p];
          if (!path_checked.includes(path_to_check)) {
            path_checked.push(path_to_check);
            set("path_to_check", path_to_check);
            http(2);
          }
        }
      }
    }
  }
}`;
    const { calls } = await run(flow, {
      http_1_host: 'http://h',
      links: ['http://h/a/b/', '/a/c', 'https://elsewhere/x'],
    });
    expect(calls.map((c) => c.replace(/^http\(2 \{"path_to_check":"(.*)"\}\)$/, '$1'))).toEqual([
      'http(1)',
      '/a',
      '/a/b',
      '/a/c',
    ]);
  });

  it('runs arrow functions, regex literals, map/join, parseInt and padStart', async () => {
    const flow = `http(1);
encryptedPassword = template.encryptedPassword
const cleanedInput = encryptedPassword.replace('psyduck', '').match(/\\d+/g);
const hexValues = cleanedInput.map(value => {
  const num = parseInt(value);
  return isNaN(num) ? '00' : num.toString(16).padStart(2, '0');
});
log(hexValues);
set("encryptedPassword", '0x' + hexValues.join(''));
http(2)`;
    const { calls, logs } = await run(flow, { encryptedPassword: 'psyduck10,255,3' });
    expect(calls[1]).toBe('http(2 {"encryptedPassword":"0x0aff03"})');
    expect(logs).toEqual(['0a,ff,03']);
  });

  it('function expressions with early return and break in for…of', async () => {
    const flow = `let base_check = function () { return http(1) && http(2); };
let endpoint_check = function () {
  if (!http(3)) return false;
  for (let e of iterate(template.endpoints)) {
    set("endpoints", e);
    if (!(http(4) && http(5))) return false;
    break;
  }
  return true;
};
base_check() || endpoint_check()`;
    const { result, calls } = await run(flow, { endpoints: ['x', 'y'] }, (r) => r !== 2);
    expect(result).toBe(true);
    expect(calls.map((c) => c.slice(0, 7))).toEqual(['http(1)', 'http(2)', 'http(3)', 'http(4 ', 'http(5 ']);
  });

  it('ternaries over template lookups (CVE-2022-31101 style)', async () => {
    const flow =
      'http(1) && (template["id_wishlist"] && template["id_wishlist"][0] ? (http(7) && http(8)) : (http(5) && http(6)))';
    expect((await run(flow, { id_wishlist: ['3'] })).calls).toEqual(['http(1)', 'http(7)', 'http(8)']);
    expect((await run(flow)).calls).toEqual(['http(1)', 'http(5)', 'http(6)']);
  });

  it.each([
    ['constructor access', 'var s = "x"; s.constructor', /not allowed/],
    ['prototype pollution', 'var o = {}; o.__proto__ = 1', /not allowed/],
    ['endless loop', 'while (true) { }', /steps/],
    ['runaway recursion', 'function f() { return f() } f()', /nested too deeply/],
    ['unknown global', 'process.exit(1)', /process is not defined/],
    ['eval', 'eval("1")', /eval is not defined/],
  ])('refuses %s', async (_name, flow, error) => {
    await expect(run(flow)).rejects.toThrow(error);
  });

  it.each([
    ['template literal with a placeholder', `http(\`${'$'}{x}\`)`],
    ['unbalanced block', 'if (http(1)) {'],
    ['stray character', 'http(1) # comment'],
  ])('rejects %s at compile time with the line', (_name, flow) => {
    expect(() => parseFlow(flow)).toThrow(/line 1/);
  });
});

describe('flow in a template run (loopback 127.0.200.x)', () => {
  let server: Awaited<ReturnType<typeof startHttp>>;
  const seen: string[] = [];
  beforeAll(async () => {
    server = await startHttp((req, res) => {
      seen.push(req.url ?? '');
      if (req.url === '/list') {
        res.setHeader('Content-Type', 'application/json');
        res.end('{"items":[{"id":"7"},{"id":"9"}]}');
        return;
      }
      const m = /^\/item\/(\d+)$/.exec(req.url ?? '');
      res.statusCode = m ? 200 : 404;
      res.end(m?.[1] === '9' ? 'secret-item' : 'plain');
    }, '127.0.200.1');
  });
  afterAll(() => server.close());

  it('extracts every id, loops over them with set(), and reports the match of the second block', async () => {
    const t = compileOrThrow(
      tpl(
        'flow-loop',
        `flow: |
  http(1)
  for (let id of iterate(template.ids)) {
    set("id", id)
    http(2)
  }
http:
  - method: GET
    path: ["{{BaseURL}}/list"]
    extractors:
      - type: json
        name: ids
        internal: true
        json: [".items[].id"]
  - method: GET
    path: ["{{BaseURL}}/item/{{id}}"]
    matchers:
      - type: word
        words: ["secret-item"]
`,
      ),
    );
    const { findings } = await scanAll([t], [server.url]);
    expect(seen).toEqual(['/list', '/item/7', '/item/9']);
    expect(findings.map((f) => f.matchedAt)).toEqual([`${server.url}/item/9`]);
  });
});
