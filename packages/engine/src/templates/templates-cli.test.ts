import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runTemplatesCommand } from './templates-cli.ts';

const OK =
  'id: ok\ninfo:\n  name: ok\n  severity: info\nhttp:\n  - path: ["{{BaseURL}}"]\n    matchers:\n      - type: status\n        status: [200]\n';

async function validate(args: string[]): Promise<{ code: number; text: string; lines: string[] }> {
  let text = '';
  const code = await runTemplatesCommand(['validate', ...args], (s) => {
    text += s;
  });
  return { code, text, lines: text.trim().split('\n') };
}

describe('perimeter-scan templates validate', () => {
  it('prints reasons, skip counts by reason and "valid N of M" last, with an exit code', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'tplcli-'));
    writeFileSync(path.join(dir, 'ok.yaml'), OK);
    writeFileSync(
      path.join(dir, 'bad.yaml'),
      'id: bad\ninfo:\n  name: bad\n  severity: info\nhttp:\n  - path: ["{{BaseURL}}"]\n    matchers:\n      - type: regex\n        regex: ["(oops"]\n',
    );
    writeFileSync(
      path.join(dir, 'oob.yaml'),
      'id: oob\ninfo:\n  name: oob\n  severity: info\nhttp:\n  - path: ["{{BaseURL}}/?x={{interactsh-url}}"]\n    matchers:\n      - type: word\n        words: ["x"]\n',
    );
    const { code, lines } = await validate([dir]);
    // An out-of-band template loads (it runs when the scan has an interaction server).
    expect(lines.at(-1)).toBe('valid 2 of 3');
    expect(
      lines.some((l) => l.startsWith('invalid bad.yaml: http[0].matchers[0].regex[0]: invalid regex:')),
    ).toBe(true);
    expect(lines.some((l) => l.startsWith('skipped oob.yaml'))).toBe(false);
    expect(code).toBe(1);
    expect(await runTemplatesCommand(['nope'], () => {})).toBe(2);
  });

  it('says plainly that a folder does not exist (exit 2, no stack trace)', async () => {
    const missing = path.join(tmpdir(), 'no-such-templates-folder-i12a');
    const { code, text } = await validate([missing]);
    expect(code).toBe(2);
    expect(text.trim()).toBe(`no such file or folder: ${missing}`);
  });

  it('validates a single file', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'tplcli-'));
    writeFileSync(path.join(dir, 'one.yaml'), OK);
    const { code, lines } = await validate([path.join(dir, 'one.yaml')]);
    expect(code).toBe(0);
    expect(lines.at(-1)).toBe('valid 1 of 1');
  });

  it('names the field and the problem of a schema error, and shows a YAML error whole', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'tplcli-'));
    writeFileSync(
      path.join(dir, 'payload.yaml'),
      `${OK.replace('    matchers:', '    payloads:\n      user:\n        a: 1\n    matchers:')}`,
    );
    writeFileSync(
      path.join(dir, 'words.yaml'),
      OK.replace('type: status\n        status: [200]', 'type: word\n        words: x'),
    );
    writeFileSync(path.join(dir, 'yaml.yaml'), 'id: y\ninfo:\n  name: [unclosed\n  severity: info\n');
    const { lines, text } = await validate([dir]);
    expect(lines).toContain(
      'invalid payload.yaml: http.0.payloads.user: expected a list or a string, got a mapping',
    );
    expect(lines).toContain('invalid words.yaml: http.0.matchers.0.words: expected a list, got a string');
    const yamlError = text.slice(text.indexOf('invalid yaml.yaml'));
    expect(yamlError).toMatch(/at line \d+, column \d+/);
    // The quoted source lines follow, indented under the message.
    expect(yamlError.split('\n')[1]).toMatch(/^ {4}/);
  });

  it('reads helpers/ payload files from the corpus root when given a sub-folder', async () => {
    const root = mkdtempSync(path.join(tmpdir(), 'tplcli-corpus-'));
    mkdirSync(path.join(root, 'helpers', 'wordlists'), { recursive: true });
    mkdirSync(path.join(root, 'http', 'default-logins'), { recursive: true });
    writeFileSync(path.join(root, 'helpers', 'wordlists', 'users.txt'), 'admin\nroot\n');
    writeFileSync(
      path.join(root, 'http', 'default-logins', 'login.yaml'),
      OK.replace('    matchers:', '    payloads:\n      user: helpers/wordlists/users.txt\n    matchers:'),
    );
    const { code, lines } = await validate([path.join(root, 'http')]);
    expect(lines.at(-1)).toBe('valid 1 of 1');
    expect(code).toBe(0);
  });

  it('loads a 1.25 MB template (the corpus has one) and still refuses one over the limit', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'tplcli-'));
    // Long words keep the YAML parse quick; the size is what the limit looks at.
    const words = Array.from(
      { length: 2_600 },
      (_, i) => `          - "plugin-${i}-${'p'.repeat(480)}"`,
    ).join('\n');
    const big = OK.replace('type: status\n        status: [200]', `type: word\n        words:\n${words}`);
    expect(big.length).toBeGreaterThan(1_250_000);
    writeFileSync(path.join(dir, 'big.yaml'), big);
    writeFileSync(path.join(dir, 'huge.yaml'), `${OK}#${'x'.repeat(4 * 1024 * 1024)}\n`);
    const { lines } = await validate([dir]);
    expect(lines).toContain('invalid huge.yaml: (file): larger than 4194304 bytes');
    expect(lines.at(-1)).toBe('valid 1 of 2');
  });
});
