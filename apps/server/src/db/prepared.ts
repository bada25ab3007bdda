import { type Placeholder, sql } from 'drizzle-orm';

/**
 * Statements prepared once per shape. Drizzle turns a query into SQL text by walking its whole
 * tree (every selected column, condition and order term, each checked by class): ~110 µs of CPU
 * for an events page of 30 columns, about as much as sending it and reading its rows. A hot read
 * whose shape repeats (the same columns, conditions and order, other values) is built once with
 * placeholders where its values go, kept here, and executed with each request's values.
 *
 * The statements are unnamed on the server (`prepare('')`): PostgreSQL parses and plans each
 * execution for its own values, exactly as it does a query built per request, so no plan is ever
 * chosen for other values (a generic plan) and nothing accumulates in the server's sessions.
 */

/** A statement's executor (Drizzle's prepared query: placeholders filled, rows mapped). */
export interface Prepared<T> {
  execute(values?: Record<string, unknown>): Promise<T>;
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
