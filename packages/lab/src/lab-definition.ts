/**
 * What the lab plants: zones, hosts and services. Addresses are written as a host number
 * (the last octet) so the whole lab can move to another /24 inside 127.0.0.0/8.
 */

export type ServiceKind = 'http' | 'https' | 'ssh' | 'ftp' | 'smtp' | 'pop3' | 'imap' | 'redis' | 'mysql';

export interface PlantedService {
  /** The usual port; `fallbackPorts` maps it when low ports cannot be bound. */
  port: number;
  kind: ServiceKind;
  /** Name of the HTTP site (see http-sites.ts) for http/https services. */
  site?: string;
}

export interface LabHost {
  octet: number;
  role: string;
  services: PlantedService[];
  /** Only present with `hostileRecords` (the scope test). */
  hostile?: boolean;
}

export const DEFAULT_SUBNET = '127.0.1';
export const DEFAULT_DNS_HOST = '127.0.0.1';
export const DEFAULT_DNS_PORT = 5300;

/**
 * Used when the process may not bind ports below 1024 (all low ports move), or when a usual
 * port is already taken by another program listening on every address (that port moves).
 */
export const FALLBACK_PORTS: Record<number, number> = {
  21: 2121,
  22: 2222,
  25: 2525,
  80: 8000,
  110: 1110,
  143: 1143,
  443: 8443,
  3000: 13000,
  3306: 13306,
  6379: 16379,
  8080: 18080,
};

export const LAB_HOSTS: LabHost[] = [
  { octet: 2, role: 'name server (no services)', services: [] },
  {
    octet: 10,
    role: 'corporate site: nginx 1.14, jQuery 1.12.4',
    services: [{ port: 80, kind: 'http', site: 'www' }],
  },
  {
    octet: 11,
    role: 'PHP app on Apache 2.4.49: .git, .env, phpinfo, directory listing',
    services: [{ port: 80, kind: 'http', site: 'app' }],
  },
  { octet: 12, role: 'Grafana 8.3.0', services: [{ port: 3000, kind: 'http', site: 'grafana' }] },
  {
    octet: 13,
    role: 'API: CORS reflecting any origin, open redirect',
    services: [{ port: 80, kind: 'http', site: 'api' }],
  },
  {
    octet: 14,
    role: 'TLS with an expired self-signed certificate',
    services: [{ port: 443, kind: 'https', site: 'secure' }],
  },
  { octet: 15, role: 'Redis without auth', services: [{ port: 6379, kind: 'redis' }] },
  { octet: 16, role: 'SSH OpenSSH 7.2p2', services: [{ port: 22, kind: 'ssh' }] },
  { octet: 17, role: 'FTP vsFTPd 2.3.4 (anonymous login)', services: [{ port: 21, kind: 'ftp' }] },
  {
    octet: 18,
    role: 'mail: Exim 4.87, Dovecot POP3/IMAP',
    services: [
      { port: 25, kind: 'smtp' },
      { port: 110, kind: 'pop3' },
      { port: 143, kind: 'imap' },
    ],
  },
  { octet: 19, role: 'MySQL 5.5.62 exposed', services: [{ port: 3306, kind: 'mysql' }] },
  {
    octet: 20,
    role: 'Jenkins 2.150.1 (beta.test)',
    services: [{ port: 8080, kind: 'http', site: 'jenkins' }],
  },
  {
    octet: 21,
    role: 'IIS 7.5 build server only visible through AXFR',
    services: [{ port: 80, kind: 'http', site: 'iis' }],
  },
  {
    octet: 22,
    role: 'wildcard target of *.wild.test (parked page)',
    services: [{ port: 80, kind: 'http', site: 'parked' }],
  },
  {
    octet: 23,
    role: 'WordPress 4.7.1 on Apache 2.4.29',
    services: [{ port: 80, kind: 'http', site: 'wordpress' }],
  },
  {
    octet: 24,
    role: 'legacy VPN portal only visible in certificate transparency',
    services: [{ port: 80, kind: 'http', site: 'legacy' }],
  },
  {
    octet: 25,
    role: 'redirects to the cloud metadata address (scope test)',
    services: [{ port: 80, kind: 'http', site: 'jump' }],
    hostile: true,
  },
  {
    octet: 250,
    role: 'crt.sh-compatible certificate-transparency API',
    services: [{ port: 80, kind: 'http', site: 'ct' }],
  },
];

export type RecordSpec =
  | { type: 'A'; name: string; host: number; hostile?: boolean }
  | { type: 'A'; name: string; address: string; hostile: true }
  | { type: 'CNAME'; name: string; target: string; hostile?: boolean }
  | { type: 'MX'; name: string; exchange: string; preference: number }
  | { type: 'NS'; name: string; target: string }
  | { type: 'TXT'; name: string; values: string[] }
  | { type: 'SOA'; name: string; mname: string; rname: string };

export interface ZoneSpec {
  name: string;
  allowAxfr: boolean;
  records: RecordSpec[];
}

export const LAB_ZONES: ZoneSpec[] = [
  {
    name: 'acme.test',
    allowAxfr: false,
    records: [
      { type: 'SOA', name: 'acme.test', mname: 'ns1.acme.test', rname: 'hostmaster.acme.test' },
      { type: 'NS', name: 'acme.test', target: 'ns1.acme.test' },
      { type: 'A', name: 'acme.test', host: 10 },
      { type: 'MX', name: 'acme.test', exchange: 'mail.acme.test', preference: 10 },
      { type: 'TXT', name: 'acme.test', values: ['v=spf1 mx -all'] },
      {
        type: 'TXT',
        name: '_dmarc.acme.test',
        values: ['v=DMARC1; p=none; rua=mailto:dmarc-reports@acme.test'],
      },
      { type: 'A', name: 'ns1.acme.test', host: 2 },
      { type: 'A', name: 'www.acme.test', host: 10 },
      { type: 'CNAME', name: 'docs.acme.test', target: 'www.acme.test' },
      { type: 'A', name: 'app.acme.test', host: 11 },
      { type: 'A', name: 'grafana.acme.test', host: 12 },
      { type: 'A', name: 'api.acme.test', host: 13 },
      { type: 'A', name: 'secure.acme.test', host: 14 },
      // Only named in the certificate of secure.acme.test (SAN discovery).
      { type: 'A', name: 'intranet-portal.acme.test', host: 14 },
      { type: 'A', name: 'cache.acme.test', host: 15 },
      { type: 'A', name: 'ssh.acme.test', host: 16 },
      { type: 'A', name: 'ftp.acme.test', host: 17 },
      { type: 'A', name: 'mail.acme.test', host: 18 },
      { type: 'A', name: 'db.acme.test', host: 19 },
      // Only named by the certificate-transparency API.
      { type: 'A', name: 'legacy-vpn.acme.test', host: 24 },
      // Dangling CNAME to an unclaimed provider name (subdomain takeover).
      { type: 'CNAME', name: 'shop.acme.test', target: 'acme-shop.herokuapp.com' },
      // Scope test only.
      { type: 'A', name: 'metadata.acme.test', address: '169.254.169.254', hostile: true },
      { type: 'A', name: 'internal.acme.test', address: '10.0.0.1', hostile: true },
      { type: 'CNAME', name: 'intra.acme.test', target: 'internal.acme.test', hostile: true },
      { type: 'A', name: 'jump.acme.test', host: 25, hostile: true },
    ],
  },
  {
    name: 'beta.test',
    // Zone transfer allowed; no SPF and no DMARC.
    allowAxfr: true,
    records: [
      { type: 'SOA', name: 'beta.test', mname: 'ns1.acme.test', rname: 'admin.beta.test' },
      { type: 'NS', name: 'beta.test', target: 'ns1.acme.test' },
      { type: 'MX', name: 'beta.test', exchange: 'mail.acme.test', preference: 10 },
      { type: 'A', name: 'dev.beta.test', host: 20 },
      { type: 'A', name: 'xq7-build.beta.test', host: 21 },
    ],
  },
  {
    name: 'wild.test',
    allowAxfr: false,
    records: [
      { type: 'SOA', name: 'wild.test', mname: 'ns1.acme.test', rname: 'hostmaster.wild.test' },
      { type: 'NS', name: 'wild.test', target: 'ns1.acme.test' },
      { type: 'TXT', name: 'wild.test', values: ['v=spf1 -all'] },
      { type: 'TXT', name: '_dmarc.wild.test', values: ['v=DMARC1; p=reject'] },
      { type: 'A', name: '*.wild.test', host: 22 },
      { type: 'A', name: 'portal.wild.test', host: 23 },
    ],
  },
];

/** Names the certificate-transparency API returns, per domain (crt.sh `name_value` rows). */
export const CT_NAMES: Record<string, string[]> = {
  'acme.test': ['www.acme.test', 'legacy-vpn.acme.test', 'old-crm.acme.test', '*.acme.test'],
  'beta.test': [],
  'wild.test': ['portal.wild.test'],
};

export const LAB_DOMAINS = LAB_ZONES.map((z) => z.name);
