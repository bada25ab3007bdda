import {
  type FlowHost,
  type FlowRecord,
  type FlowValue,
  HostFunction,
  host,
  type Scope,
  toNumber,
  toText,
  truthy,
} from './flow-values.ts';

/** The globals a flow sees: one function per protocol block, `set`, `iterate`, `log`/`console.log`, and the few JavaScript built-ins the corpus calls. */
export function declareGlobals(g: Scope, hostApi: FlowHost, protocols: readonly string[]): void {
  for (const p of protocols)
    g.declare(
      p,
      host(async (args) => {
        const ref = args[0];
        return hostApi.runProtocol(p, typeof ref === 'string' ? ref : ref === undefined ? 1 : toNumber(ref));
      }),
    );
  g.declare(
    'set',
    host((args) => {
      hostApi.set(toText(args[0] ?? ''), args[1] === undefined ? '' : args[1]);
      return undefined;
    }),
  );
  g.declare(
    'iterate',
    host((args) => {
      const out: FlowValue[] = [];
      for (const a of args) {
        if (Array.isArray(a)) out.push(...a);
        else if (a !== null && a !== undefined && a !== '') out.push(a);
      }
      return out;
    }),
  );
  const log = host((args) => {
    hostApi.log(args.map(toText).join(' '));
    return undefined;
  });
  g.declare('log', log);
  const rec = (entries: Record<string, FlowValue>): FlowRecord =>
    Object.assign(Object.create(null) as FlowRecord, entries);
  g.declare('console', rec({ log }));
  g.declare(
    'parseInt',
    host((a) => Number.parseInt(toText(a[0] ?? ''), a[1] === undefined ? 10 : toNumber(a[1]))),
  );
  g.declare(
    'parseFloat',
    host((a) => Number.parseFloat(toText(a[0] ?? ''))),
  );
  g.declare(
    'isNaN',
    host((a) => Number.isNaN(toNumber(a[0]))),
  );
  g.declare(
    'Number',
    host((a) => toNumber(a[0])),
  );
  g.declare(
    'String',
    host((a) => toText(a[0] ?? '')),
  );
  g.declare(
    'Boolean',
    host((a) => truthy(a[0])),
  );
  g.declare(
    'Math',
    rec({
      floor: host((a) => Math.floor(toNumber(a[0]))),
      ceil: host((a) => Math.ceil(toNumber(a[0]))),
      round: host((a) => Math.round(toNumber(a[0]))),
      abs: host((a) => Math.abs(toNumber(a[0]))),
      max: host((a) => Math.max(...a.map(toNumber))),
      min: host((a) => Math.min(...a.map(toNumber))),
    }),
  );
  g.declare('template', new HostFunction(() => undefined));
}
