import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { sharedDataset } from '../../test/helpers.ts';
import { preloadFingerprints } from '../pipeline/scan.ts';
import {
  cpeWithVersion,
  FingerprintEngine,
  parsePattern,
  parseSetCookies,
  resolveVersion,
} from './fingerprint-engine.ts';
import { BUILTIN_FINGERPRINTS_DIR, type FingerprintSet, loadFingerprints } from './fingerprint-loader.ts';

function engineOf(
  techs: Record<string, object>,
  cats: Record<number, string> = { 1: 'CMS' },
): FingerprintEngine {
  const set: FingerprintSet = {
    technologies: new Map(),
    categories: new Map(Object.entries(cats).map(([k, v]) => [Number(k), v])),
    rejected: [],
  };
  for (const [k, v] of Object.entries(techs)) set.technologies.set(k, { cats: [1], ...v });
  return new FingerprintEngine(set);
}

const names = (r: { name: string; version?: string }[]) =>
  r.map((t) => (t.version ? `${t.name}@${t.version}` : t.name));

describe('pattern parsing and versions', () => {
  it('parses tags', () => {
    const p = parsePattern('nginx(?:/([\\d.]+))?\\;version:\\1\\;confidence:50');
    expect(p?.confidence).toBe(50);
    expect(p?.version).toBe('\\1');
    expect(p?.regex.test('NGINX/1.2')).toBe(true);
    expect(parsePattern('(unclosed')).toBeNull();
  });

  it.each([
    ['\\1', ['x', '1.2.3'], '1.2.3'],
    ['\\1?Enterprise:Community', ['x', 'enterprise'], 'Enterprise'],
    ['\\1?Enterprise:Community', ['x', undefined], 'Community'],
    ['\\1.\\2', ['x', '4', '7'], '4.7'],
    ['\\1', ['x', undefined], ''],
  ])('resolves %s', (template, groups, expected) => {
    const m = Object.assign([...groups], { index: 0, input: '' }) as unknown as RegExpExecArray;
    expect(resolveVersion(template, m)).toBe(expected);
  });

  it('puts the version in the CPE', () => {
    expect(cpeWithVersion('cpe:2.3:a:f5:nginx:*:*:*:*:*:*:*:*', '1.14.0')).toBe(
      'cpe:2.3:a:f5:nginx:1.14.0:*:*:*:*:*:*:*',
    );
    expect(cpeWithVersion('cpe:2.3:a:f5:nginx:*:*:*:*:*:*:*:*', undefined)).toBe(
      'cpe:2.3:a:f5:nginx:*:*:*:*:*:*:*:*',
    );
  });

  it('parses cookies', () => {
    expect(parseSetCookies(['PHPSESSID=abc; path=/', 'x=1'])).toEqual({ PHPSESSID: 'abc', x: '1' });
  });
});

describe('rule evaluation', () => {
  const engine = engineOf({
    A: { headers: { Server: 'a-server/([\\d.]+)\\;version:\\1' }, implies: ['B\\;confidence:50'] },
    B: { implies: 'C' },
    C: {},
    D: { html: '<div id="d-app"', excludes: 'E' },
    E: { meta: { generator: '^E$' } },
    F: { cookies: { f_session: '' }, requires: 'A' },
    G: { scriptSrc: 'g-lib-([\\d.]+)\\.js\\;version:\\1', requiresCategory: 2 },
    H: { url: '\\.aspx$', certIssuer: 'Acme CA' },
    I: { dns: { MX: 'mx\\.i-mail\\.example' } },
    J: { html: ['j-one\\;confidence:40', 'j-two\\;confidence:40'] },
    K: { scripts: 'k\\.init\\(\\{version:"([\\d.]+)"\\;version:\\1' },
  });

  it('headers with version, implies transitively with confidence', () => {
    const r = engine.analyze({ headers: { server: ['a-server/2.1'] } });
    expect(names(r)).toEqual(['A@2.1', 'B', 'C']);
    expect(r.find((t) => t.name === 'B')?.confidence).toBe(50);
    expect(r[0]?.categories).toEqual(['CMS']);
  });

  it('excludes and requires', () => {
    expect(names(engine.analyze({ html: '<div id="d-app">', meta: { generator: ['E'] } }))).toEqual(['D']);
    expect(names(engine.analyze({ cookies: { f_session: '1' } }))).toEqual([]);
    expect(
      names(engine.analyze({ cookies: { f_session: '1' }, headers: { server: ['a-server/1'] } })),
    ).toContain('F');
    expect(names(engine.analyze({ scriptSrc: ['/g-lib-1.0.js'] }))).toEqual([]);
  });

  it('url, certIssuer, dns, scripts', () => {
    expect(names(engine.analyze({ url: 'http://x/a.aspx' }))).toEqual(['H']);
    expect(names(engine.analyze({ certIssuer: 'CN=Acme CA' }))).toEqual(['H']);
    expect(names(engine.analyze({ dns: { MX: ['mx.i-mail.example'] } }))).toEqual(['I']);
    expect(names(engine.analyze({ scripts: ['k.init({version:"3.2"})'] }))).toEqual(['K@3.2']);
  });

  it('sums confidence up to 100', () => {
    expect(engine.analyze({ html: 'j-one' })[0]?.confidence).toBe(40);
    expect(engine.analyze({ html: 'j-one j-two' })[0]?.confidence).toBe(80);
  });
});

describe('Perimeter fingerprints on captured responses', () => {
  const set = loadFingerprints(BUILTIN_FINGERPRINTS_DIR);
  const engine = new FingerprintEngine(set);

  it('has at least 80 valid technologies with CPEs', () => {
    expect(set.rejected).toEqual([]);
    expect(set.technologies.size).toBeGreaterThanOrEqual(80);
    expect([...set.technologies.values()].filter((t) => t.cpe).length).toBeGreaterThanOrEqual(60);
  });

  it.each([
    [{ headers: { server: ['nginx/1.14.0'] } }, ['Nginx@1.14.0']],
    [
      { headers: { server: ['Apache/2.4.49 (Unix)'], 'x-powered-by': ['PHP/5.6.40'] } },
      ['Apache HTTP Server@2.4.49', 'PHP@5.6.40', 'UNIX'],
    ],
    [{ headers: { server: ['Apache/2.2.15 (CentOS)'] } }, ['Apache HTTP Server@2.2.15', 'CentOS']],
    [
      { headers: { server: ['Microsoft-IIS/10.0'], 'x-aspnet-version': ['4.0.30319'] } },
      ['IIS@10.0', 'Microsoft ASP.NET@4.0.30319', 'Windows Server'],
    ],
    [{ headers: { 'x-powered-by': ['Express'] } }, ['Express', 'Node.js']],
    [
      { headers: { server: ['Jetty(9.4.14.v20181114)'], 'x-jenkins': ['2.150.1'] } },
      ['Java', 'Jenkins@2.150.1', 'Jetty@9.4.14'],
    ],
    [
      {
        html: '<script>window.grafanaBootData = {"settings":{"buildInfo":{"version":"8.3.0","commit":"x"}}};</script><title>Grafana</title>',
      },
      ['Grafana@8.3.0'],
    ],
    [{ scriptSrc: ['/js/jquery-1.12.4.min.js'] }, ['jQuery@1.12.4']],
    [{ scriptSrc: ['https://code.jquery.com/jquery-3.7.1.min.js'] }, ['jQuery@3.7.1']],
    [
      { scriptSrc: ['/wp-includes/js/jquery/jquery.js?ver=1.12.4'] },
      ['jQuery@1.12.4', 'WordPress', 'PHP', 'MySQL'].sort(),
    ],
    [{ meta: { generator: ['WordPress 6.4.2'] } }, ['MySQL', 'PHP', 'WordPress@6.4.2']],
    [{ meta: { generator: ['Drupal 7 (https://www.drupal.org)'] } }, ['Drupal@7', 'PHP']],
    [{ headers: { server: ['openresty/1.21.4.1'] } }, ['Nginx', 'OpenResty@1.21.4.1']],
    [{ cookies: { laravel_session: 'x' } }, ['Laravel', 'PHP']],
    [
      { html: '<title>Login to Webmin</title>', headers: { server: ['MiniServ/1.890'] } },
      ['Perl', 'Webmin@1.890'],
    ],
    [{ certIssuer: "C=US, O=Let's Encrypt, CN=R3" }, ["Let's Encrypt"]],
    [{ dns: { MX: ['aspmx.l.google.com'] } }, ['Google Workspace']],
    // Query-string versions only where the fingerprint says they are the product's own.
    [{ scriptSrc: ['/static/js/jquery.colorbox-min.js?ver=5.2.1'] }, ['jQuery']],
    [
      {
        scriptSrc: ['js/vendor/jquery/jquery.min.js?v=5.2.1', 'js/messages.php?l=en&v=5.2.1'],
        cookies: { phpMyAdmin: 'x' },
      },
      ['MySQL', 'PHP', 'jQuery', 'phpMyAdmin@5.2.1'],
    ],
    // Tomcat by its default page's title, and Java with it.
    [{ html: '<head>\n    <title>Apache Tomcat</title>\n</head>' }, ['Apache Tomcat', 'Java']],
    // The service named Tomcat 10.1.60 on the wire (its error page): one truth, Java implied.
    [
      { html: '<p>app</p>', known: [{ name: 'Apache Tomcat', version: '10.1.60' }] },
      ['Apache Tomcat@10.1.60', 'Java'],
    ],
    [
      { headers: { server: ['nginx/1.22.1'] }, known: [{ name: 'Nginx', version: '1.22.1' }] },
      ['Nginx@1.22.1'],
    ],
  ])('%j', (input, expected) => {
    expect(names(engine.analyze(input)).sort()).toEqual([...expected].sort());
  });

  it('carries versioned CPEs', () => {
    const nginx = engine.analyze({ headers: { server: ['nginx/1.14.0'] } })[0];
    expect(nginx?.cpe).toBe('cpe:2.3:a:f5:nginx:1.14.0:*:*:*:*:*:*:*');
  });
});

describe('loader', () => {
  it('loads any directory in the format and reports invalid entries', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'fp-'));
    writeFileSync(path.join(dir, 'categories.json'), JSON.stringify({ 7: { name: 'Things' } }));
    writeFileSync(
      path.join(dir, 'a.json'),
      JSON.stringify({ Alpha: { cats: [7], headers: { 'X-Alpha': '' } }, Broken: { cats: 'no' } }),
    );
    const set = loadFingerprints(dir);
    expect([...set.technologies.keys()]).toEqual(['Alpha']);
    expect(set.rejected.map((r) => r.name)).toEqual(['Broken']);
    const r = new FingerprintEngine(set).analyze({ headers: { 'x-alpha': ['1'] } });
    expect(r).toEqual([{ name: 'Alpha', confidence: 100, categories: ['Things'] }]);
  });

  const webapp = sharedDataset('fingerprints', 'webappanalyzer');
  it.runIf(webapp)('loads the maintained webappanalyzer set (shared dataset)', () => {
    const set = loadFingerprints(webapp as string);
    expect(set.technologies.size).toBeGreaterThan(7000);
    expect(set.categories.size).toBeGreaterThan(100);
    const engine = new FingerprintEngine(set);
    const r = names(
      engine.analyze({ headers: { server: ['nginx/1.14.0'], 'x-powered-by': ['PHP/5.6.40'] } }),
    );
    expect(r).toContain('Nginx@1.14.0');
    expect(r).toContain('PHP@5.6.40');
  });

  const mit = sharedDataset('fingerprints', 'wappalyzer-mit-2023-01');
  it.runIf(mit)('loads the MIT 2023 Wappalyzer set (shared dataset)', () => {
    const set = loadFingerprints(mit as string);
    expect(set.technologies.size).toBeGreaterThan(3000);
    const r = names(new FingerprintEngine(set).analyze({ meta: { generator: ['WordPress 4.7.1'] } }));
    expect(r).toContain('WordPress@4.7.1');
  });
});

describe('preloading', () => {
  it('loads the built-in set a scan uses, before the first scan', () => {
    const builtin = new FingerprintEngine(loadFingerprints([BUILTIN_FINGERPRINTS_DIR])).size;
    expect(builtin).toBeGreaterThan(100);
    expect(preloadFingerprints()).toBe(builtin);
    expect(preloadFingerprints({ fingerprints: { noBuiltin: true } })).toBe(0);
  });
});
