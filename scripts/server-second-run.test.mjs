// npm test (scripts/test.mjs) runs the server's integration files (apps/server/test/) a second time
// on the external PostgreSQL, without the unit tests beside the code (apps/server/src/) and without
// faults.test.ts and start.test.ts, which bring a PostgreSQL of their own. A file left out that way
// must not depend on the database it is given, or the second run would miss it.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const read = (file) => readFileSync(path.join(root, file), 'utf8');

/** What reaches the suite's database: its fixtures, the provided URL, a client or a server of its own. */
const DATABASE_USE =
  /test\/support\/|\binject\(|from 'pg'|connectDatabase|startEmbeddedDatabase|createTestDatabase|createTestApp/;

describe('the files the external-PostgreSQL run leaves out', () => {
  it('the unit tests beside the server code reach no database', () => {
    const unitTests = execFileSync('git', ['ls-files', 'apps/server/src'], { cwd: root, encoding: 'utf8' })
      .split('\n')
      .filter((f) => f.endsWith('.test.ts'));
    expect(unitTests.length).toBeGreaterThan(10);
    expect(unitTests.filter((f) => DATABASE_USE.test(read(f)))).toEqual([]);
  });

  it('faults.test.ts runs every app on its own cluster', () => {
    const text = read('apps/server/test/faults.test.ts');
    expect(text).toContain('await createPgCluster()');
    const calls = text.split('createTestApp(').slice(1);
    expect(calls.length).toBeGreaterThan(0);
    for (const call of calls) expect(call.slice(0, call.indexOf(');'))).toMatch(/cluster\??\.url\(/);
  });

  it('start.test.ts starts the product on its embedded cluster', () => {
    const text = read('apps/server/test/start.test.ts');
    expect(text).not.toMatch(/DATABASE_URL|test\/support\/|\.\/support\//);
    expect(text).toContain("'scripts/start.mjs'");
  });
});
