import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runTemplatesCommand } from './templates-cli.js';

describe('perimeter-scan templates validate', () => {
  it('prints reasons and "valid N of M" last, with an exit code', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'tplcli-'));
    writeFileSync(
      path.join(dir, 'ok.yaml'),
      'id: ok\ninfo:\n  name: ok\n  severity: info\nhttp:\n  - path: ["{{BaseURL}}"]\n    matchers:\n      - type: status\n        status: [200]\n',
    );
    writeFileSync(
      path.join(dir, 'bad.yaml'),
      'id: bad\ninfo:\n  name: bad\n  severity: info\nhttp:\n  - path: ["{{BaseURL}}"]\n    matchers:\n      - type: regex\n        regex: ["(oops"]\n',
    );
    writeFileSync(
      path.join(dir, 'oob.yaml'),
      'id: oob\ninfo:\n  name: oob\n  severity: info\nhttp:\n  - path: ["{{BaseURL}}/?x={{interactsh-url}}"]\n    matchers:\n      - type: word\n        words: ["x"]\n',
    );
    let text = '';
    const code = await runTemplatesCommand(['validate', dir], (s) => {
      text += s;
    });
    const lines = text.trim().split('\n');
    expect(lines.at(-1)).toBe('valid 1 of 3');
    expect(lines).toContain(
      'invalid bad.yaml: http[0].matchers[0].regex[0]: invalid regex: Invalid regular expression: /(oops/: Unterminated group',
    );
    expect(lines.some((l) => l.startsWith('skipped oob.yaml: needs an out-of-band'))).toBe(true);
    expect(code).toBe(1);
    expect(await runTemplatesCommand(['nope'], () => {})).toBe(2);
  });
});
