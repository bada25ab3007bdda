import { createHash } from 'node:crypto';
import { createRequire } from 'node:module';
import { Column, DrizzleQueryError, getTableName, is, Param, Placeholder, SQL, sql } from 'drizzle-orm';
import pg from 'pg';

/**
 * Statements prepared once per shape. Drizzle turns a query into SQL text by walking its whole
 * tree (every selected column, condition and order term, each checked by class): ~110 µs of CPU
 * for an events page of 30 columns, about as much as sending it and reading its rows. A hot read
 * whose shape repeats (the same columns, conditions and order, other values) is built once with
 * placeholders where its values go, kept here, and executed with each request's values.
 *
 * On a handle whose sessions are its own (`nameStatementsOn`: no pooler in transaction mode between
 * it and PostgreSQL, where a session's statement would reach another client or be gone) each is
 * also a named statement on the server, parsed once per connection: its name is a digest of its
 * text, so the same text is the same statement whichever shape built it. Those sessions run with
 * `plan_cache_mode = force_custom_plan` (connectDatabase), so PostgreSQL still plans each execution
 * for its own values and never uses a generic plan on the skewed findings; what is saved is the
 * parse and analysis of the text. Elsewhere they are unnamed (`prepare('')`): parsed and planned
 * per execution, as a query built per request is. docs/events-queries.md has the figures.
 */

/** Handles whose statements may be named on the server (see above; set by connectDatabase). */
const sessionHandles = new WeakSet<object>();

/** Marks a handle's sessions as its own: its prepared statements are named on the server. */
export function nameStatementsOn(handle: object): void {
  sessionHandles.add(handle);
}

/** Whether a handle's prepared statements are named on the server. */
export const namesStatements = (handle: object): boolean => sessionHandles.has(handle);

/** A statement's name on the server: a digest of its text (a different text is a different name). */
export const statementName = (text: string): string =>
  `p_${createHash('sha1').update(text).digest('base64url').slice(0, 20)}`;

/** A statement's executor (Drizzle's prepared query: placeholders filled, rows mapped). */
export interface Prepared<T> {
  execute(values?: Record<string, unknown>): Promise<T>;
}

/** A value's conversion from the driver's (a column's own, or a selected SQL expression's). */
interface Decoder {
  mapFromDriverValue(value: unknown): unknown;
}

/** What Drizzle's node-postgres prepared select holds (drizzle-orm 0.45, pinned): read once per shape. */
interface DrizzleSelect {
  client: { query(config: object, values: unknown[]): Promise<{ rows: unknown[][] }> };
  queryConfig: { text: string; rowMode?: string; name?: string | undefined };
  rawQueryConfig?: { name?: string | undefined };
  params: unknown[];
  logger: { logQuery(query: string, params: unknown[]): void };
  fields?: { path: string[]; field: unknown }[];
  joinsNotNullableMap?: Record<string, boolean>;
  customResultMapper?: unknown;
}

/** The decoder Drizzle's mapResultRow picks for a selected field. */
function decoderOf(field: unknown): Decoder | undefined {
  if (is(field, Column)) return field;
  // SQL's decoder is internal to Drizzle (its mapWith): the one mapResultRow applies.
  if (is(field, SQL)) return (field as unknown as { decoder: Decoder }).decoder;
  if (is(field, SQL.Aliased)) return (field.sql as unknown as { decoder: Decoder }).decoder;
  return undefined;
}

/**
 * A prepared select executed as Drizzle executes it, with its row mapping decided once instead of
 * per value. Drizzle's mapResultRow checks each value's field by class, walks its path with an
 * iterator and reduces the row through a closure, for every value: an events page of 30 columns ×
 * 10–20 rows cost 911 µs of CPU to read and turn into events, 767 µs mapped this way (in one
 * process, the bench's cases, interleaved). Here each column's decoder and key are found when the
 * shape is prepared, and a row is one object literal (rowBuilder): the same statement text, type parsers,
 * values, errors and rows (test/db-prepared.test.ts compares them with Drizzle's own execute);
 * anything else (joins, a custom mapper, a field kind not listed) keeps Drizzle's execute.
 * `named`: the statement is named on the server (see the top of this file), either way.
 */
export function mappedOnce<T>(prepared: Prepared<T>, { named = false } = {}): Prepared<T> {
  const q = prepared as unknown as DrizzleSelect;
  if (!named) return mapped(prepared);
  // Both of Drizzle's configs (rows as arrays, or as objects without fields): whichever executes.
  const setName = (name: string | undefined) => {
    q.queryConfig.name = name;
    if (q.rawQueryConfig) q.rawQueryConfig.name = name;
  };
  setName(statementName(q.queryConfig.text));
  const run = mapped(prepared);
  return {
    async execute(values) {
      try {
        return await run.execute(values);
      } catch (e) {
        // The session lacks the statement the driver parsed in it (26000), or holds one of that
        // name it did not (42P05): not a session of its own after all (a pooler in transaction
        // mode moved it). Its name is its text's digest, so nothing else was run: run it unnamed,
        // and unnamed from then on.
        const code = (e as { cause?: { code?: string } }).cause?.code;
        if ((code !== '26000' && code !== '42P05') || q.queryConfig.name === undefined) throw e;
        setName(undefined);
        return run.execute(values);
      }
    },
  };
}

/** mappedOnce's row mapping (or Drizzle's execute, where it does not apply). */
function mapped<T>(prepared: Prepared<T>): Prepared<T> {
  const q = prepared as unknown as DrizzleSelect;
  const fields = q.fields;
  if (!fields || q.customResultMapper || q.queryConfig?.rowMode !== 'array') return prepared;
  // Without joins the map names only the selected table, never null: Drizzle nulls no nested object
  // (it would null one for a column of a table the map says may be missing, never for an SQL field).
  const notNullable = q.joinsNotNullableMap ?? {};
  const withoutJoins = fields.every(
    (f) => f.path.length === 1 || !is(f.field, Column) || notNullable[getTableName(f.field.table)] === true,
  );
  const decoders = fields.map((f) => decoderOf(f.field));
  if (
    !withoutJoins ||
    Object.values(notNullable).some((v) => v !== true) ||
    decoders.some((d) => d === undefined) ||
    fields.some((f) => f.path.length > 2)
  )
    return prepared;
  // Each parameter: a placeholder's name, or a constant (a value Drizzle encoded when it built the
  // statement). A Param wrapping a placeholder (an encoder to apply per value) keeps Drizzle's execute.
  if (q.params.some((p) => is(p, Param))) return prepared;
  const names = q.params.map((p) => (is(p, Placeholder) ? p.name : undefined));
  const toRow = rowBuilder(
    fields.map((f) => f.path as [string, string?]),
    decoders as Decoder[],
  );
  if (!toRow) return prepared;
  const { client, queryConfig, logger } = q;
  // On a pool (the events pages' handles) each execution reuses the column parsers of the last.
  const last: { description?: Description } = {};
  const run =
    client instanceof pg.Pool
      ? (params: unknown[]) =>
          client.query(
            new DescribedQuery(
              queryConfig.text,
              queryConfig.name,
              (queryConfig as { types?: unknown }).types,
              params,
              last,
            ) as unknown as pg.QueryConfig,
          ) as unknown as Promise<{ rows: unknown[][] }>
      : (params: unknown[]) => client.query(queryConfig, params);
  return {
    async execute(values: Record<string, unknown> = {}) {
      const params = q.params.map((p, i) => {
        const name = names[i];
        if (name === undefined) return p;
        if (!(name in values)) throw new Error(`No value for placeholder "${name}" was provided`);
        return values[name];
      });
      logger.logQuery(queryConfig.text, params);
      let result: { rows: unknown[][] };
      try {
        result = await run(params);
      } catch (e) {
        throw new DrizzleQueryError(queryConfig.text, params, e as Error);
      }
      return result.rows.map(toRow) as T;
    },
  };
}

/** The columns of a statement's last row description, and the parsers pg chose for them. */
interface Description {
  fields: { dataTypeID: number; format: string }[];
  types: number[];
  parsers: unknown[];
}

/** What pg's connection does for a query (pg 8.23.1, pinned): the extended protocol's messages. */
interface PgConnection {
  parsedStatements: Record<string, unknown>;
  submittedNamedStatements: Record<string, unknown>;
  parse(query: { text: string; name?: string; types?: unknown }): void;
  bind(config: object): void;
  close(msg: { type: 'S'; name?: string }): void;
  sync(): void;
}

/** What DescribedQuery reads of pg's Query (pg 8.23.1, pinned). */
interface PgQuery {
  text: string;
  name?: string;
  types?: unknown;
  values?: unknown[];
  portal: string;
  binary?: boolean;
  rows?: number;
  _rowMode?: string;
  _result: { fields: unknown[]; _parsers: unknown[] | undefined };
  _results: unknown;
  _accumulateRows: boolean;
  callback?: unknown;
  _checkForMultirow(): void;
  hasBeenParsed(connection: PgConnection): boolean;
  handleError(err: unknown, connection: PgConnection): void;
  _getRows(connection: PgConnection, rows: number | undefined): void;
  prepare(connection: PgConnection): void;
  handleRowDescription(msg: { fields: { dataTypeID: number; format: string }[] }): void;
  listeners(event: string): unknown[];
}
const PgQueryClass = pg.Query as unknown as new (config: object | string) => PgQuery;
const pgModule = createRequire(import.meta.url);
/** pg's conversion of a bound value to the protocol's text (what its Query.prepare binds with). */
const { prepareValue } = pgModule('pg/lib/utils.js') as { prepareValue: (value: unknown) => unknown };
/** pg's result of a query (what its Query's constructor makes for a config's row mode and types). */
const PgResult = pgModule('pg/lib/result.js') as new (rowMode: string, types: unknown) => PgQuery['_result'];

/**
 * pg's query of a prepared select that takes its columns' parsers from the statement's previous
 * execution (`last`) when its row description has the same column types. On every execution pg's
 * Result.addFields otherwise builds, besides the parsers, an object keyed by the column names for
 * rows returned as objects (never here: rows come as arrays) — for ~30 columns a dictionary then
 * copied by a spread: 19 µs of the API's CPU per request under the bench's load (--cpu-prof).
 *
 * Once the statement's columns are known it no longer asks for them: pg sends a Describe with every
 * execution, and PostgreSQL answers each with the row description (~30 column names, a type
 * lookup per column), which pg then parses into ~30 objects: ~15 µs of the API's CPU per request
 * under the bench's load (--cpu-prof), besides PostgreSQL's. The columns of a statement are those
 * of its text, the same text every execution: a named statement whose result changed (a
 * migration) fails in PostgreSQL ("cached plan must not change result type"), and a row of
 * another width than the known one fails its parsing (a parser missing), never read wrong.
 * test/db-prepared.test.ts holds its rows to Drizzle's, which fails if pg's internals move.
 */
class DescribedQuery extends PgQueryClass {
  /**
   * pg's Query copies a config object by its property descriptors (utils.normalizeQueryConfig),
   * ~4 µs of the API's CPU per request under the bench's load (--cpu-prof); given the text alone it
   * copies nothing, and the rest is set here as its constructor sets it from a config.
   */
  constructor(
    text: string,
    name: string | undefined,
    types: unknown,
    values: unknown[],
    private readonly last: { description?: Description },
  ) {
    super(text);
    this.name = name;
    this.types = types;
    this.values = values;
    this._rowMode = 'array';
    this._result = new PgResult('array', types);
    this._results = this._result;
  }

  /** pg's Query.prepare (8.23.1) without the Describe when the columns are known. */
  override prepare(connection: PgConnection) {
    const known = this.last.description;
    if (!known) return super.prepare(connection);
    this.described(known);
    if (!this.hasBeenParsed(connection)) {
      connection.parse({ text: this.text, name: this.name, types: this.types });
      if (this.name) connection.submittedNamedStatements[this.name] = this.text;
    }
    try {
      connection.bind({
        portal: this.portal,
        statement: this.name,
        values: this.values,
        binary: this.binary,
        valueMapper: prepareValue,
      });
    } catch (err) {
      connection.close({ type: 'S', name: this.name });
      connection.sync();
      this.handleError(err, connection);
      return;
    }
    this._getRows(connection, this.rows);
  }

  override handleRowDescription(msg: { fields: { dataTypeID: number; format: string }[] }) {
    const { fields } = msg;
    const known = this.last.description;
    let same = known !== undefined && known.types.length === fields.length;
    for (let i = 0; same && i < fields.length; i++)
      same = fields[i]!.dataTypeID === known!.types[i] && fields[i]!.format === 'text';
    if (!same) {
      super.handleRowDescription(msg);
      if (fields.every((f) => f.format === 'text') && this._result._parsers)
        this.last.description = {
          fields,
          types: fields.map((f) => f.dataTypeID),
          parsers: this._result._parsers,
        };
      return;
    }
    this.described(known!);
  }

  /** What pg's handleRowDescription does, with addFields's parsers known. */
  private described(known: Description) {
    this._checkForMultirow();
    this._result.fields = known.fields;
    this._result._parsers = known.parsers;
    this._accumulateRows = Boolean(this.callback) || !this.listeners('row').length;
  }
}

/**
 * A statement's row from its values, as one object literal of the selection's keys in order
 * (nested for a nested selection), compiled once per statement. Drizzle's mapResultRow — and the
 * loop that replaced it — added the ~30 keys of an events row one store at a time, and V8 keeps an
 * object given more than a dozen keys that way as a dictionary (a hash table): 2–5 µs a row to
 * build on Node 20, and slow to read again (toEvent) or to add the subclass to; under the bench's
 * load that mapping and the tagging were 44 µs of the API's CPU per request (--cpu-prof). A literal
 * builds the row with its keys in place: 0.1–0.15 µs a row (30 keys, alone). The text is made of
 * the selection's own keys (JSON-quoted) and value indexes — code generated from the repositories'
 * selections, as Fastify's serializer is from a route's schema; no value read from the database or
 * a request is ever compiled (test/db-prepared.test.ts: keys holding quotes or code stay keys).
 * Undefined (Drizzle's execute stays) for a key a literal would read as something else (__proto__).
 */
function rowBuilder(
  paths: [string, string?][],
  decoders: Decoder[],
): ((raw: unknown[]) => Record<string, unknown>) | undefined {
  if (paths.some((p) => p.includes('__proto__'))) return undefined;
  const value = (i: number) => `raw[${i}] === null ? null : d[${i}].mapFromDriverValue(raw[${i}])`;
  // Each top-level key once, where it first appears; a nested selection's keys within it.
  const keys = new Map<string, string[]>();
  paths.forEach(([key, nested], i) => {
    const parts = keys.get(key) ?? [];
    keys.set(key, parts);
    parts.push(nested === undefined ? value(i) : `${JSON.stringify(nested)}: ${value(i)}`);
  });
  const literal = [...keys]
    .map(([key, parts]) => {
      const nested = paths.some(([k, n]) => k === key && n !== undefined);
      return `${JSON.stringify(key)}: ${nested ? `{ ${parts.join(', ')} }` : parts[0]}`;
    })
    .join(', ');
  const build = new Function('d', 'raw', `return { ${literal} };`) as (
    d: Decoder[],
    raw: unknown[],
  ) => Record<string, unknown>;
  return (raw) => build(decoders, raw);
}

/** The values of one request's placeholders, named in the order they are bound. */
export class Bindings {
  readonly values: Record<string, unknown> = {};
  private next = 0;

  /**
   * A placeholder for `value`. A shape binds its values in the same order every time, so the
   * names of one request's values are those of the statement prepared by an earlier one.
   */
  readonly bind = (value: unknown): Placeholder => {
    const name = `b${this.next++}`;
    this.values[name] = value;
    return sql.placeholder(name);
  };

  /** A value under a name of its own (page bounds and the like, bound after the filters). */
  set(name: string, value: unknown): Placeholder {
    this.values[name] = value;
    return sql.placeholder(name);
  }
}

/**
 * Prepared statements of one database handle by shape key, the least recently used dropped past
 * `max`. The key must name everything of the statement that is not a placeholder.
 */
export class PreparedCache {
  private readonly byHandle = new WeakMap<object, Map<string, Prepared<unknown>>>();

  constructor(private readonly max = 500) {}

  get<T>(handle: object, key: string, build: () => Prepared<T>): Prepared<T> {
    let statements = this.byHandle.get(handle);
    if (!statements) {
      statements = new Map();
      this.byHandle.set(handle, statements);
    }
    let statement = statements.get(key);
    if (statement) statements.delete(key);
    else statement = build() as Prepared<unknown>;
    statements.set(key, statement);
    if (statements.size > this.max) statements.delete(statements.keys().next().value as string);
    return statement as Prepared<T>;
  }

  /** How many statements a handle holds (tests). */
  size(handle: object): number {
    return this.byHandle.get(handle)?.size ?? 0;
  }
}
