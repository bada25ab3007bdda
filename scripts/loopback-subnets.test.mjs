// Test files run in parallel: two of them starting the lab on the same loopback /24 (it binds fixed
// ports on fixed addresses) fail at random, depending on which files happen to overlap. Phases
// overlap too (scripts/test.mjs runs the server suite on the external PostgreSQL beside the browser
// journeys), so each lab subnet belongs to one test file, and no other file uses its addresses.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

const testFiles = execFileSync('git', ['ls-files', 'apps', 'packages'], { cwd: root, encoding: 'utf8' })
  .split('\n')
  .filter((f) => /(\.test\.tsx?|\.e2e\.ts)$/.test(f) || /\/(test|e2e)\/.*\.ts$/.test(f));

/** Third octets of the labs a file starts: startLab({ subnet }), startTestLab(n), startE2eLab(subnet). */
function labOctets(text) {
  const octets = new Set();
  for (const m of text.matchAll(/startLab\(\{\s*subnet:\s*'127\.0\.(\d+)'/g)) octets.add(Number(m[1]));
  for (const m of text.matchAll(/startTestLab\((\d+)/g)) octets.add(Number(m[1]));
  for (const m of text.matchAll(/'127\.0\.(\d+)'/g)) octets.add(Number(m[1]));
  return octets;
}

/** Third octets of the 127.0.N.x addresses a file names. */
function addressOctets(text) {
  return new Set([...text.matchAll(/\b127\.0\.(\d+)\.\d+/g)].map((m) => Number(m[1])));
}

describe('loopback subnets of the test files', () => {
  const files = testFiles.map((file) => {
    const text = readFileSync(path.join(root, file), 'utf8');
    return { file, labs: labOctets(text), addresses: addressOctets(text) };
  });

  it('finds the labs of the suites (the patterns still match the code)', () => {
    const labs = files.filter((f) => f.labs.size > 0).map((f) => f.file);
    expect(labs).toContain('apps/server/test/workers.test.ts');
    expect(labs).toContain('packages/engine/test/pipeline-stages.test.ts');
    expect(labs).toContain('apps/web/e2e/scans.e2e.ts');
    expect(labs.length).toBeGreaterThan(25);
  });

  it('gives each lab subnet to one file, and no other file uses it', () => {
    const clashes = [];
    for (const a of files)
      for (const octet of a.labs)
        for (const b of files) {
          if (b === a || (!b.labs.has(octet) && !b.addresses.has(octet))) continue;
          // 127.0.1 is the lab's default subnet; 127.0.0.x is where servers on port 0 listen.
          if (octet <= 1) continue;
          clashes.push(`127.0.${octet}: lab of ${a.file}, also in ${b.file}`);
        }
    expect(clashes).toEqual([]);
  });
});
