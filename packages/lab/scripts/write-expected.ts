/**
 * Writes expected.json: what a correct class_resources scan of the lab reports (written out
 * by hand here, not derived from the lab's code), the planted issues, every finding of a full
 * scan (scanFindings) and the synthetic leak corpus; and the lab's CVE feed
 * (feeds/lab-cves.nvd2.json). Run: npm run expected -w packages/lab
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { LAB_CVE_FEED_PATH, labCveFeed } from '../src/cve-feed.ts';
import { EXPECTED_PATH, type ExpectedLab } from '../src/expected.ts';
import { PLANTED } from '../src/planted.ts';

const n = (octet: number) => `127.0.1.${octet}`;

const subdomains: ExpectedLab['assets']['subdomains'] = [
  { name: 'acme.test', ips: [n(10)], cnames: [] },
  { name: 'www.acme.test', ips: [n(10)], cnames: [] },
  { name: 'docs.acme.test', ips: [n(10)], cnames: ['www.acme.test'] },
  { name: 'app.acme.test', ips: [n(11)], cnames: [] },
  { name: 'grafana.acme.test', ips: [n(12)], cnames: [] },
  { name: 'api.acme.test', ips: [n(13)], cnames: [] },
  { name: 'secure.acme.test', ips: [n(14)], cnames: [] },
  { name: 'intranet-portal.acme.test', ips: [n(14)], cnames: [] },
  { name: 'cache.acme.test', ips: [n(15)], cnames: [] },
  { name: 'ssh.acme.test', ips: [n(16)], cnames: [] },
  { name: 'ftp.acme.test', ips: [n(17)], cnames: [] },
  { name: 'mail.acme.test', ips: [n(18)], cnames: [] },
  { name: 'db.acme.test', ips: [n(19)], cnames: [] },
  { name: 'ns1.acme.test', ips: [n(2)], cnames: [] },
  { name: 'legacy-vpn.acme.test', ips: [n(24)], cnames: [] },
  { name: 'shop.acme.test', ips: [], cnames: ['acme-shop.herokuapp.com'] },
  { name: 'dev.beta.test', ips: [n(20)], cnames: [] },
  { name: 'xq7-build.beta.test', ips: [n(21)], cnames: [] },
  { name: 'portal.wild.test', ips: [n(23)], cnames: [] },
];

const services: ExpectedLab['assets']['services'] = [
  { ip: n(10), port: 80, service: 'http', product: 'nginx', version: '1.14.0' },
  { ip: n(11), port: 80, service: 'http', product: 'Apache httpd', version: '2.4.49' },
  { ip: n(12), port: 3000, service: 'http' },
  { ip: n(13), port: 80, service: 'http' },
  { ip: n(14), port: 443, service: 'https', product: 'lighttpd', version: '1.4.45' },
  { ip: n(15), port: 6379, service: 'redis', product: 'Redis', version: '4.0.9' },
  { ip: n(16), port: 22, service: 'ssh', product: 'OpenSSH', version: '7.2p2' },
  { ip: n(17), port: 21, service: 'ftp', product: 'vsftpd', version: '2.3.4' },
  { ip: n(18), port: 25, service: 'smtp', product: 'Exim smtpd', version: '4.87' },
  { ip: n(18), port: 110, service: 'pop3', product: 'Dovecot pop3d' },
  { ip: n(18), port: 143, service: 'imap', product: 'Dovecot imapd' },
  { ip: n(19), port: 3306, service: 'mysql', product: 'MySQL', version: '5.5.62' },
  { ip: n(20), port: 8080, service: 'http', product: 'Jetty', version: '9.4.14' },
  { ip: n(21), port: 80, service: 'http', product: 'Microsoft IIS httpd', version: '7.5' },
  { ip: n(23), port: 80, service: 'http', product: 'Apache httpd', version: '2.4.29' },
  { ip: n(24), port: 80, service: 'http', product: 'Apache httpd', version: '2.2.15' },
];

const urls: ExpectedLab['assets']['urls'] = [
  { url: 'http://acme.test/', status: 200, title: 'Acme Corp' },
  { url: 'http://www.acme.test/', status: 200, title: 'Acme Corp' },
  { url: 'http://docs.acme.test/', status: 200, title: 'Acme Corp' },
  { url: 'http://app.acme.test/', status: 200, title: 'Acme App' },
  { url: 'http://grafana.acme.test:3000/', status: 200, title: 'Grafana' },
  { url: 'http://api.acme.test/', status: 200, title: '' },
  { url: 'https://secure.acme.test/', status: 200, title: 'Acme Secure Portal' },
  { url: 'https://intranet-portal.acme.test/', status: 200, title: 'Acme Secure Portal' },
  { url: 'http://legacy-vpn.acme.test/', status: 200, title: 'Legacy VPN portal' },
  { url: 'http://dev.beta.test:8080/', status: 200, title: 'Dashboard [Jenkins]' },
  { url: 'http://xq7-build.beta.test/', status: 200, title: 'IIS7' },
  { url: 'http://portal.wild.test/', status: 200, title: 'Wild Portal – Just another WordPress site' },
];

const t = (target: string, name: string, version?: string) =>
  version ? { target, name, version } : { target, name };
const technologies: ExpectedLab['assets']['technologies'] = [
  ...['acme.test', 'www.acme.test', 'docs.acme.test'].flatMap((h) => [
    t(`${h}:80`, 'Nginx', '1.14.0'),
    t(`${h}:80`, 'jQuery', '1.12.4'),
  ]),
  t('app.acme.test:80', 'Apache HTTP Server', '2.4.49'),
  t('app.acme.test:80', 'PHP', '5.6.40'),
  t('app.acme.test:80', 'UNIX'),
  t('grafana.acme.test:3000', 'Grafana', '8.3.0'),
  t('api.acme.test:80', 'Express'),
  t('api.acme.test:80', 'Node.js'),
  t('secure.acme.test:443', 'lighttpd', '1.4.45'),
  t('intranet-portal.acme.test:443', 'lighttpd', '1.4.45'),
  t('legacy-vpn.acme.test:80', 'Apache HTTP Server', '2.2.15'),
  t('legacy-vpn.acme.test:80', 'CentOS'),
  t('dev.beta.test:8080', 'Jenkins', '2.150.1'),
  t('dev.beta.test:8080', 'Jetty', '9.4.14'),
  t('dev.beta.test:8080', 'Java'),
  t('xq7-build.beta.test:80', 'IIS', '7.5'),
  t('xq7-build.beta.test:80', 'Microsoft ASP.NET', '2.0.50727'),
  t('xq7-build.beta.test:80', 'Windows Server'),
  t('portal.wild.test:80', 'Apache HTTP Server', '2.4.29'),
  t('portal.wild.test:80', 'Ubuntu'),
  t('portal.wild.test:80', 'WordPress', '4.7.1'),
  t('portal.wild.test:80', 'PHP'),
  t('portal.wild.test:80', 'MySQL'),
  t('portal.wild.test:80', 'jQuery', '1.12.4'),
  t(`${n(15)}:6379`, 'Redis', '4.0.9'),
  t(`${n(16)}:22`, 'OpenSSH', '7.2p2'),
  t(`${n(17)}:21`, 'vsftpd', '2.3.4'),
  t(`${n(18)}:25`, 'Exim', '4.87'),
  t(`${n(18)}:110`, 'Dovecot'),
  t(`${n(18)}:143`, 'Dovecot'),
  t(`${n(19)}:3306`, 'MySQL', '5.5.62'),
];

const emails = [
  'admin@beta.test',
  'api-team@acme.test',
  'dmarc-reports@acme.test',
  'hostmaster@acme.test',
  'hostmaster@wild.test',
  'info@acme.test',
  'security@acme.test',
  'webmaster@wild.test',
];

// Synthetic leak corpus: invented lines, invented sources. Some addresses are ones the scan
// sees; others are only in the corpus (a leak lookup by domain still finds them).
const leakCorpus: ExpectedLab['leakCorpus'] = [
  { email: 'info@acme.test', password: 'Summer2019!', sources: ['lab-combo-2019'], leakDate: '2019-07-14' },
  { email: 'info@acme.test', password: 'acme1234', sources: ['lab-forum-dump'], leakDate: '2016-03-02' },
  {
    email: 'security@acme.test',
    password: 'S3cur1ty#Acme',
    sources: ['lab-saas-breach'],
    leakDate: '2021-11-30',
  },
  {
    email: 'hostmaster@acme.test',
    password: 'dnsadmin',
    sources: ['lab-combo-2019', 'lab-paste-2020'],
    leakDate: '2020-02-18',
  },
  {
    email: 'jane.doe@acme.test',
    password: 'Jane!1985',
    sources: ['lab-saas-breach'],
    leakDate: '2021-11-30',
  },
  { email: 'j.smith@acme.test', password: 'qwerty123', sources: ['lab-forum-dump'], leakDate: '2016-03-02' },
  {
    email: 'admin@beta.test',
    password: 'betaAdmin2020',
    sources: ['lab-paste-2020'],
    leakDate: '2020-08-09',
  },
  {
    email: 'webmaster@wild.test',
    password: 'wp-admin-4.7',
    sources: ['lab-cms-leak'],
    leakDate: '2018-01-22',
  },
];

type ScanFinding = ExpectedLab['scanFindings'][number];
const tpl = (templateId: string, host: string, at: { port?: number; path?: string } = {}, planted?: string) =>
  ({ subclass: 'exploit_scanner', templateId, host, ...at, ...(planted ? { planted } : {}) }) as ScanFinding;
const cves = (
  tech: string,
  version: string,
  hosts: string[],
  port: number,
  ids: string[],
  planted?: string,
) =>
  hosts.flatMap((host) =>
    ids.map(
      (cve) =>
        ({
          subclass: 'exploit_db',
          cve,
          tech,
          version,
          host,
          port,
          ...(planted && host === hosts[0] ? { planted } : {}),
        }) as ScanFinding,
    ),
  );

/** The same nginx site with jQuery answers on acme.test, www and docs (CNAME www). */
const acmeSite = ['www.acme.test', 'acme.test', 'docs.acme.test'];
const JQUERY_CVES = ['CVE-2015-9251', 'CVE-2019-11358', 'CVE-2020-11022', 'CVE-2020-11023'];

const scanFindings: ScanFinding[] = [
  // exploit_scanner: the planted issues…
  tpl('missing-security-headers', 'www.acme.test', { port: 80, path: '/' }, 'LAB-WWW-MISSING-HEADERS'),
  tpl('git-config-exposure', 'app.acme.test', { port: 80, path: '/.git/config' }, 'LAB-APP-GIT-CONFIG'),
  tpl('dotenv-exposure', 'app.acme.test', { port: 80, path: '/.env' }, 'LAB-APP-DOTENV'),
  tpl('phpinfo-exposure', 'app.acme.test', { port: 80, path: '/phpinfo.php' }, 'LAB-APP-PHPINFO'),
  tpl('directory-listing', 'app.acme.test', { port: 80, path: '/uploads/' }, 'LAB-APP-DIRLIST'),
  tpl(
    'CVE-2021-41773',
    'app.acme.test',
    { port: 80, path: '/icons/.%2e/%2e%2e/%2e%2e/%2e%2e/etc/passwd' },
    'LAB-APP-APACHE-CVE-2021-41773',
  ),
  tpl('grafana-login-panel', 'grafana.acme.test', { port: 3000, path: '/login' }, 'LAB-GRAFANA-LOGIN'),
  tpl(
    'CVE-2021-43798',
    'grafana.acme.test',
    { port: 3000, path: '/public/plugins/alertlist/../../../../../../../../etc/passwd' },
    'LAB-GRAFANA-CVE-2021-43798',
  ),
  tpl('cors-any-origin-credentials', 'api.acme.test', { port: 80, path: '/' }, 'LAB-API-CORS'),
  tpl(
    'open-redirect-generic',
    'api.acme.test',
    { port: 80, path: '/redirect?url=https://example.com' },
    'LAB-API-OPEN-REDIRECT',
  ),
  tpl('tls-expired-certificate', 'secure.acme.test', { port: 443 }, 'LAB-SECURE-TLS-EXPIRED'),
  tpl('tls-self-signed-certificate', 'secure.acme.test', { port: 443 }, 'LAB-SECURE-TLS-SELFSIGNED'),
  tpl('redis-unauthenticated', 'cache.acme.test', { port: 6379 }, 'LAB-REDIS-NOAUTH'),
  tpl('ftp-anonymous-login', 'ftp.acme.test', { port: 21 }, 'LAB-FTP-ANONYMOUS'),
  tpl('mysql-exposed', 'db.acme.test', { port: 3306 }, 'LAB-MYSQL-EXPOSED'),
  tpl('jenkins-unauthenticated-dashboard', 'dev.beta.test', { port: 8080, path: '/' }, 'LAB-JENKINS-EXPOSED'),
  tpl('heroku-dangling-cname', 'shop.acme.test', {}, 'LAB-DNS-TAKEOVER-SHOP'),
  tpl('dns-zone-transfer', 'beta.test', {}, 'LAB-DNS-AXFR-BETA'),
  tpl('spf-record-missing', 'beta.test', {}, 'LAB-DNS-NO-SPF-BETA'),
  tpl('dmarc-record-missing', 'beta.test', {}, 'LAB-DNS-NO-DMARC-BETA'),
  // …and what else is true of the lab: only api.acme.test sends the security headers,
  ...[
    ['acme.test', 80],
    ['docs.acme.test', 80],
    ['app.acme.test', 80],
    ['dev.beta.test', 8080],
    ['legacy-vpn.acme.test', 80],
    ['portal.wild.test', 80],
    ['xq7-build.beta.test', 80],
    ['secure.acme.test', 443],
    ['intranet-portal.acme.test', 443],
  ].map(([host, port]) =>
    tpl('missing-security-headers', host as string, { port: port as number, path: '/' }),
  ),
  // the expired self-signed certificate also names intranet-portal.acme.test,
  tpl('tls-expired-certificate', 'intranet-portal.acme.test', { port: 443 }),
  tpl('tls-self-signed-certificate', 'intranet-portal.acme.test', { port: 443 }),
  // the HTTPS site sends no Strict-Transport-Security (the TLS stage, under both names),
  tpl('http-missing-hsts', 'secure.acme.test', { port: 443, path: '/' }),
  tpl('http-missing-hsts', 'intranet-portal.acme.test', { port: 443, path: '/' }),
  // IIS shows its default page, Exim its banner, and acme.test's DMARC policy is p=none.
  tpl('iis-default-page', 'xq7-build.beta.test', { port: 80, path: '/' }),
  tpl('smtp-banner-detect', 'mail.acme.test', { port: 25 }),
  tpl('dmarc-policy-none', 'acme.test'),

  // exploit_db: every planted version with its CVEs (the lab's CVE feed), on every name serving it.
  ...cves(
    'Nginx',
    '1.14.0',
    acmeSite,
    80,
    ['CVE-2019-9511', 'CVE-2019-9513', 'CVE-2019-9516'],
    'LAB-WWW-NGINX-OUTDATED',
  ),
  ...cves('jQuery', '1.12.4', acmeSite, 80, JQUERY_CVES, 'LAB-WWW-JQUERY-OUTDATED'),
  // WordPress 4.7.1 bundles jQuery 1.12.4 too.
  ...cves('jQuery', '1.12.4', ['portal.wild.test'], 80, JQUERY_CVES),
  ...cves(
    'Apache HTTP Server',
    '2.4.49',
    ['app.acme.test'],
    80,
    ['CVE-2021-41773', 'CVE-2021-42013'],
    'LAB-APP-APACHE-OUTDATED',
  ),
  ...cves('PHP', '5.6.40', ['app.acme.test'], 80, ['CVE-2019-9641'], 'LAB-APP-PHP-EOL'),
  // The version behind the Grafana traversal template is also a CVE match.
  ...cves('Grafana', '8.3.0', ['grafana.acme.test'], 3000, ['CVE-2021-43798']),
  ...cves(
    'OpenSSH',
    '7.2p2',
    ['ssh.acme.test'],
    22,
    ['CVE-2016-6210', 'CVE-2016-6515'],
    'LAB-SSH-OPENSSH-OUTDATED',
  ),
  ...cves('vsftpd', '2.3.4', ['ftp.acme.test'], 21, ['CVE-2011-2523'], 'LAB-FTP-VSFTPD-234'),
  ...cves('Exim', '4.87', ['mail.acme.test'], 25, ['CVE-2019-10149'], 'LAB-SMTP-EXIM-487'),
  ...cves('WordPress', '4.7.1', ['portal.wild.test'], 80, ['CVE-2017-1001000'], 'LAB-WP-OUTDATED'),

  // leakcheck: a finding per e-mail and leak of the corpus (the local index answers the
  // domain search, so addresses no page shows are found too).
  ...leakCorpus.map(
    (l): ScanFinding => ({
      subclass: 'leakcheck',
      email: l.email,
      leakDate: l.leakDate,
      sources: [...l.sources].sort(),
      mainDomain: l.email.slice(l.email.indexOf('@') + 1),
    }),
  ),
];

const expected: ExpectedLab = {
  subnet: '127.0.1',
  domains: ['acme.test', 'beta.test', 'wild.test'],
  assets: {
    subdomains,
    ips: [...new Set(subdomains.flatMap((s) => s.ips))].sort(),
    services,
    urls,
    technologies,
    emails,
  },
  findings: PLANTED.map(({ removable: _r, ...f }) => f),
  scanFindings,
  leakCorpus,
};

writeFileSync(EXPECTED_PATH, `${JSON.stringify(expected, null, 2)}\n`);
console.log(`wrote ${EXPECTED_PATH.pathname}`);

mkdirSync(new URL('.', LAB_CVE_FEED_PATH), { recursive: true });
writeFileSync(LAB_CVE_FEED_PATH, `${JSON.stringify(labCveFeed(), null, 2)}\n`);
console.log(`wrote ${LAB_CVE_FEED_PATH.pathname}`);
