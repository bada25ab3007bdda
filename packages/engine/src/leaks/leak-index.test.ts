import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { emailFromSoaRname, emailsFromDmarc, extractEmails } from './email-harvest.ts';
import { LeakCipher, maskPassword } from './leak-crypto.ts';
import { LocalLeakIndex } from './local-leak-index.ts';

const KEY = 'a'.repeat(64);

describe('password masking and encryption', () => {
  it.each([
    ['', ''],
    ['abc', '***'],
    ['abcd', '****'],
    ['secret', '******'],
    ['password', 'p******d'],
    ['passw0rd12', 'p********2'],
    ['Summer2019!', 'S*********!'],
    ['пароль123', 'п*******3'],
  ])('mask(%j) = %j', (input, masked) => {
    expect(maskPassword(input)).toBe(masked);
  });

  it('digests passwords with a key: same key same digest, another key or a plain SHA-256 never matches', () => {
    const a = new LeakCipher(KEY);
    const d = a.digest('Summer2019!');
    expect(d).toMatch(/^h1:[0-9a-f]{32}$/);
    expect(new LeakCipher(KEY).digest('Summer2019!')).toBe(d);
    expect(new LeakCipher('b'.repeat(64)).digest('Summer2019!')).not.toBe(d);
    const plain = createHash('sha256').update('Summer2019!').digest('hex');
    expect(d.slice(3)).not.toBe(plain.slice(0, 32));
  });

  it('round-trips with AES-256-GCM, with a fresh IV each time, and rejects tampering and wrong keys', () => {
    const c = new LeakCipher(KEY);
    const a = c.encrypt('hunter2');
    const b = c.encrypt('hunter2');
    expect(a).not.toBe(b);
    expect(a.startsWith('v1:')).toBe(true);
    expect(a).not.toContain('hunter2');
    expect(c.decrypt(a)).toBe('hunter2');
    const raw = Buffer.from(a.slice(3), 'base64');
    raw[raw.length - 1] = (raw[raw.length - 1] as number) ^ 1;
    expect(() => c.decrypt(`v1:${raw.toString('base64')}`)).toThrow();
    expect(() => new LeakCipher('b'.repeat(64)).decrypt(a)).toThrow();
  });

  it('accepts 32-byte keys as buffer, hex, base64 or a long passphrase', () => {
    const buf = Buffer.alloc(32, 7);
    const forms = [buf, buf.toString('hex'), buf.toString('base64')];
    const sealed = new LeakCipher(buf).encrypt('x');
    for (const k of forms) expect(new LeakCipher(k).decrypt(sealed)).toBe('x');
    expect(
      new LeakCipher('a long enough passphrase').decrypt(
        new LeakCipher('a long enough passphrase').encrypt('y'),
      ),
    ).toBe('y');
    expect(() => new LeakCipher('short')).toThrow(/too short/);
    expect(() => new LeakCipher(Buffer.alloc(16))).toThrow(/32 bytes/);
  });
});

describe('local leak index', () => {
  it('imports combo lines and CSV, keeps passwords encrypted and answers masked', async () => {
    const index = new LocalLeakIndex(KEY);
    const combo = index.importCombo(
      'info@acme.test:Summer2019!\n# comment\nbad line\njane.doe@acme.test:Jane!1985\nother@beta.test;betaAdmin2020\n',
      'lab-combo-2019',
      '2019-07-14',
    );
    expect(combo).toMatchObject({ imported: 3, skipped: 1 });
    const csv = index.importCsv(
      'email,password,source,leak date\n"info@acme.test",acme1234,lab-forum-dump,2016-03-02\nnot-an-email,x,y,z\nhostmaster@acme.test,dnsadmin,lab-combo-2019|lab-paste-2020,2020-02-18\n',
    );
    expect(csv).toMatchObject({ imported: 2, skipped: 1 });
    expect(index.size).toBe(5);
    const stored = JSON.stringify([...(index as unknown as { byDomain: Map<string, unknown> }).byDomain]);
    expect(stored).not.toContain('Summer2019!');
    expect(stored).not.toContain('dnsadmin');
    const acme = await index.searchDomain('acme.test');
    expect(acme.map((r) => [r.email, r.passwordMasked, r.leakDate, r.sources])).toEqual([
      ['hostmaster@acme.test', 'd******n', '2020-02-18', ['lab-combo-2019', 'lab-paste-2020']],
      ['info@acme.test', 'a******4', '2016-03-02', ['lab-forum-dump']],
      ['info@acme.test', 'S*********!', '2019-07-14', ['lab-combo-2019']],
      ['jane.doe@acme.test', 'J*******5', '2019-07-14', ['lab-combo-2019']],
    ]);
    expect(new LeakCipher(KEY).decrypt(acme[0]?.passwordEncrypted as string)).toBe('dnsadmin');
    expect((await index.searchEmail('OTHER@beta.test')).map((r) => r.passwordMasked)).toEqual([
      'b***********0',
    ]);
  });

  it('merges sources of the same leak imported twice', async () => {
    const index = new LocalLeakIndex(KEY);
    index.importCombo('a@x.test:pw123456', 'one', '2020-01-01');
    index.importCombo('a@x.test:pw123456', 'two', '2020-01-01');
    expect((await index.searchDomain('x.test')).map((r) => r.sources)).toEqual([['one', 'two']]);
  });
});

describe('e-mail harvesting', () => {
  it.each([
    ['<a href="mailto:info@acme.test">mail</a>', ['info@acme.test']],
    ['<a href="mailto:sales%40acme.test?subject=hi">x</a>', ['sales@acme.test']],
    [
      'write to security&#64;acme.test or jobs [at] acme [dot] test',
      ['jobs@acme.test', 'security@acme.test'],
    ],
    ['Contact: api-team@acme.test, other@example.com, img@2x.png@acme.test', ['api-team@acme.test']],
    ['dev@dev.acme.test and Upper@ACME.TEST', ['dev@dev.acme.test', 'upper@acme.test']],
  ] as [string, string[]][])('extractEmails(%j)', (text, expected) => {
    expect(extractEmails(text, 'acme.test')).toEqual(expected);
  });

  it.each([
    ['hostmaster.acme.test.', 'hostmaster@acme.test'],
    ['john\\.doe.acme.test', 'john.doe@acme.test'],
    ['admin.beta.test', 'admin@beta.test'],
    ['nodomain', undefined],
  ])('SOA rname %s', (rname, email) => {
    expect(emailFromSoaRname(rname)).toBe(email);
  });

  it.each([
    ['v=DMARC1; p=none; rua=mailto:dmarc-reports@acme.test', ['dmarc-reports@acme.test']],
    [
      'v=DMARC1;p=reject;rua=mailto:a@acme.test!10m,mailto:b@x.test;ruf=mailto:F@acme.test',
      ['a@acme.test', 'b@x.test', 'f@acme.test'],
    ],
    ['v=DMARC1; p=reject', []],
  ] as [string, string[]][])('DMARC %s', (record, expected) => {
    expect(emailsFromDmarc(record)).toEqual(expected);
  });
});
