/**
 * Writes expected.json: what a correct class_resources scan of the lab reports (written out
 * by hand here, not derived from the lab's code), the planted issues and the synthetic leak
 * corpus. Run: npx tsx packages/lab/scripts/write-expected.ts
 */
import { writeFileSync } from 'node:fs';
import { EXPECTED_PATH, type ExpectedLab } from '../src/expected.js';
import { PLANTED } from '../src/planted.js';

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
  leakCorpus,
};

writeFileSync(EXPECTED_PATH, `${JSON.stringify(expected, null, 2)}\n`);
console.log(`wrote ${EXPECTED_PATH.pathname}`);
