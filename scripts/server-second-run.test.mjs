// npm test (scripts/test.mjs) runs the server's integration files (apps/server/test/) a second time
// on the external PostgreSQL, without the unit tests beside the code (apps/server/src/). A file
// left out that way must not depend on the database it is given, or the second run would miss it.
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
});
