/** Recognises product and version from what a service said first (or answered to a probe). */

export interface RecognisedService {
  service: string;
  product?: string;
  version?: string;
  /** The technology name used for CVE matching (Wappalyzer-style), when known. */
  tech?: string;
  cpe?: string;
}

interface BannerRule {
  pattern: RegExp;
  service: string;
  product?: string;
  tech?: string;
  /** CPE with `{version}` in place of the version. */
  cpe?: string;
}

// Order matters: specific products before the generic protocol rules.
const BANNER_RULES: BannerRule[] = [
  {
    pattern: /^SSH-[\d.]+-OpenSSH_([\w.]+)/,
    service: 'ssh',
    product: 'OpenSSH',
    tech: 'OpenSSH',
    cpe: 'cpe:2.3:a:openbsd:openssh:{version}:*:*:*:*:*:*:*',
  },
  {
    pattern: /^SSH-[\d.]+-dropbear_([\d.]+)/,
    service: 'ssh',
    product: 'Dropbear sshd',
    tech: 'Dropbear',
    cpe: 'cpe:2.3:a:dropbear_ssh_project:dropbear_ssh:{version}:*:*:*:*:*:*:*',
  },
  {
    pattern: /^SSH-[\d.]+-libssh[_-]([\d.]+)/,
    service: 'ssh',
    product: 'libssh',
    tech: 'libssh',
    cpe: 'cpe:2.3:a:libssh:libssh:{version}:*:*:*:*:*:*:*',
  },
  { pattern: /^SSH-[\d.]+-Cisco-([\d.]+)/, service: 'ssh', product: 'Cisco SSH' },
  { pattern: /^SSH-[\d.]+-/, service: 'ssh' },
  {
    pattern: /^220[ -].*\(vsFTPd ([\d.]+)\)/,
    service: 'ftp',
    product: 'vsftpd',
    tech: 'vsftpd',
    cpe: 'cpe:2.3:a:vsftpd_project:vsftpd:{version}:*:*:*:*:*:*:*',
  },
  {
    pattern: /^220[ -]ProFTPD ([\d.]+[a-z]?)/,
    service: 'ftp',
    product: 'ProFTPD',
    tech: 'ProFTPD',
    cpe: 'cpe:2.3:a:proftpd:proftpd:{version}:*:*:*:*:*:*:*',
  },
  {
    pattern: /^220[ -].*FileZilla Server(?: version)? ([\d.]+)/,
    service: 'ftp',
    product: 'FileZilla ftpd',
    tech: 'FileZilla Server',
    cpe: 'cpe:2.3:a:filezilla-project:filezilla_server:{version}:*:*:*:*:*:*:*',
  },
  { pattern: /^220[ -].*Pure-FTPd/, service: 'ftp', product: 'Pure-FTPd', tech: 'Pure-FTPd' },
  { pattern: /^220[ -].*Microsoft FTP Service/, service: 'ftp', product: 'Microsoft ftpd', tech: 'IIS' },
  {
    pattern: /^220[ -]\S+ ESMTP Exim ([\d.]+)/,
    service: 'smtp',
    product: 'Exim smtpd',
    tech: 'Exim',
    cpe: 'cpe:2.3:a:exim:exim:{version}:*:*:*:*:*:*:*',
  },
  {
    pattern: /^220[ -]\S+ ESMTP Postfix/,
    service: 'smtp',
    product: 'Postfix smtpd',
    tech: 'Postfix',
    cpe: 'cpe:2.3:a:postfix:postfix:*:*:*:*:*:*:*:*',
  },
  {
    pattern: /^220[ -].*Sendmail ([\d.]+)/,
    service: 'smtp',
    product: 'Sendmail',
    tech: 'Sendmail',
    cpe: 'cpe:2.3:a:sendmail:sendmail:{version}:*:*:*:*:*:*:*',
  },
  {
    pattern: /^220[ -].*Microsoft ESMTP MAIL Service(?:, Version: ([\d.]+))?/,
    service: 'smtp',
    product: 'Microsoft ESMTP',
    tech: 'Microsoft Exchange Server',
  },
  { pattern: /^220[ -].*\bOpenSMTPD\b/, service: 'smtp', product: 'OpenSMTPD', tech: 'OpenSMTPD' },
  { pattern: /^220[ -].*\bE?SMTP\b/i, service: 'smtp' },
  { pattern: /^220[ -].*\bFTP\b/i, service: 'ftp' },
  { pattern: /^\+OK Dovecot/, service: 'pop3', product: 'Dovecot pop3d', tech: 'Dovecot' },
  { pattern: /^\+OK/, service: 'pop3' },
  { pattern: /^\* OK .*Dovecot/, service: 'imap', product: 'Dovecot imapd', tech: 'Dovecot' },
  { pattern: /^\* OK .*Cyrus IMAP.*?v([\d.]+)/, service: 'imap', product: 'Cyrus imapd', tech: 'Cyrus IMAP' },
  { pattern: /^\* OK/, service: 'imap' },
  {
    pattern: /redis_version:([\d.]+)/,
    service: 'redis',
    product: 'Redis',
    tech: 'Redis',
    cpe: 'cpe:2.3:a:redis:redis:{version}:*:*:*:*:*:*:*',
  },
  {
    pattern: /^-NOAUTH|^-ERR (?:unknown command|wrong number of arguments)|^\+PONG/,
    service: 'redis',
    product: 'Redis',
    tech: 'Redis',
  },
  { pattern: /^RFB 003\.889/, service: 'vnc', product: 'Apple remote desktop vnc' },
  { pattern: /^RFB (\d{3}\.\d{3})/, service: 'vnc' },
  // Varnish's management CLI: status 107 (authentication challenge) or 200 with its banner.
  {
    pattern: /^107 \d+\s*\n[a-z]{32}\n\nAuthentication required\./,
    service: 'varnish-cli',
    product: 'Varnish CLI',
    tech: 'Varnish',
  },
  {
    pattern: /^200 \d+\s*\n-+\nVarnish Cache CLI[\s\S]*?varnish-([\d.]+)/,
    service: 'varnish-cli',
    product: 'Varnish CLI',
    tech: 'Varnish',
  },
  { pattern: /^@RSYNCD: \d+/, service: 'rsync', product: 'rsync' },
  { pattern: /^AMQP/, service: 'amqp' },
  {
    pattern: /^VERSION (\d+\.\d+\.\d+)/,
    service: 'memcached',
    product: 'Memcached',
    tech: 'Memcached',
    cpe: 'cpe:2.3:a:memcached:memcached:{version}:*:*:*:*:*:*:*',
  },
  { pattern: /^-ERR .*memcache/, service: 'memcached', product: 'Memcached', tech: 'Memcached' },
];

interface ServerHeaderRule {
  pattern: RegExp;
  product: string;
  tech: string;
  cpe?: string;
}

const SERVER_HEADER_RULES: ServerHeaderRule[] = [
  {
    pattern: /^nginx(?:\/([\d.]+))?/i,
    product: 'nginx',
    tech: 'Nginx',
    cpe: 'cpe:2.3:a:f5:nginx:{version}:*:*:*:*:*:*:*',
  },
  { pattern: /^openresty(?:\/([\d.]+))?/i, product: 'OpenResty', tech: 'OpenResty' },
  // Coyote's "1.1" is the connector's version, not Tomcat's: Tomcat, version unknown here.
  { pattern: /^Apache-Coyote\b/i, product: 'Apache Tomcat', tech: 'Apache Tomcat' },
  {
    pattern: /^Apache(?:\/([\d.]+))?/i,
    product: 'Apache httpd',
    tech: 'Apache HTTP Server',
    cpe: 'cpe:2.3:a:apache:http_server:{version}:*:*:*:*:*:*:*',
  },
  {
    pattern: /^Microsoft-IIS(?:\/([\d.]+))?/i,
    product: 'Microsoft IIS httpd',
    tech: 'IIS',
    cpe: 'cpe:2.3:a:microsoft:internet_information_services:{version}:*:*:*:*:*:*:*',
  },
  {
    pattern: /^lighttpd(?:\/([\d.]+))?/i,
    product: 'lighttpd',
    tech: 'lighttpd',
    cpe: 'cpe:2.3:a:lighttpd:lighttpd:{version}:*:*:*:*:*:*:*',
  },
  {
    pattern: /^Jetty\(([\d.]+)/i,
    product: 'Jetty',
    tech: 'Jetty',
    cpe: 'cpe:2.3:a:eclipse:jetty:{version}:*:*:*:*:*:*:*',
  },
  { pattern: /^LiteSpeed/i, product: 'LiteSpeed httpd', tech: 'LiteSpeed' },
  { pattern: /^Caddy/i, product: 'Caddy httpd', tech: 'Caddy' },
  { pattern: /^gunicorn(?:\/([\d.]+))?/i, product: 'Gunicorn', tech: 'Gunicorn' },
  { pattern: /^Werkzeug(?:\/([\d.]+))?/i, product: 'Werkzeug httpd', tech: 'Flask' },
  { pattern: /^Kestrel/i, product: 'Kestrel', tech: 'Kestrel' },
  { pattern: /^cloudflare/i, product: 'cloudflare', tech: 'Cloudflare' },
  { pattern: /^Varnish/i, product: 'Varnish', tech: 'Varnish' },
  { pattern: /^Tengine(?:\/([\d.]+))?/i, product: 'Tengine', tech: 'Tengine' },
];

function withVersion(cpe: string | undefined, version: string | undefined): string | undefined {
  if (!cpe) return undefined;
  return cpe.replace('{version}', version ?? '*');
}

function clean(version: string | undefined): string | undefined {
  return version?.replace(/\.$/, '') || undefined;
}

/** From the first bytes a text protocol sent (or a probe's answer). */
export function recogniseBanner(banner: string): RecognisedService | null {
  const text = banner.replace(/^\s+/, '');
  for (const rule of BANNER_RULES) {
    const m = rule.pattern.exec(text);
    if (!m) continue;
    const version = clean(m[1]);
    const out: RecognisedService = { service: rule.service };
    if (rule.product) out.product = rule.product;
    if (version && rule.product) out.version = version;
    if (rule.tech) out.tech = rule.tech;
    const cpe = withVersion(rule.cpe, out.version);
    if (cpe) out.cpe = cpe;
    return out;
  }
  return null;
}

/** From an HTTP `Server` header. */
export function recogniseServerHeader(server: string | undefined, service: string): RecognisedService {
  if (!server) return { service };
  for (const rule of SERVER_HEADER_RULES) {
    const m = rule.pattern.exec(server.trim());
    if (!m) continue;
    const version = clean(m[1]);
    const out: RecognisedService = { service, product: rule.product, tech: rule.tech };
    if (version) out.version = version;
    const cpe = withVersion(rule.cpe, version);
    if (cpe) out.cpe = cpe;
    return out;
  }
  return { service };
}

/** Telnet (RFC 854): option negotiation (IAC WILL/WONT/DO/DONT) before anything else. */
export function recogniseTelnet(data: Buffer): RecognisedService | null {
  if (data.length < 3 || data[0] !== 0xff || (data[1] as number) < 0xfb || (data[1] as number) > 0xfe)
    return null;
  return { service: 'telnet' };
}

/** MySQL / MariaDB initial handshake packet (protocol 10). */
export function recogniseMysqlHandshake(data: Buffer): RecognisedService | null {
  if (data.length < 6) return null;
  const payloadLength = data.readUIntLE(0, 3);
  if (payloadLength < 2 || payloadLength > 4096) return null;
  const protocol = data[4];
  if (protocol === 0xff) {
    // Error packet (e.g. "Host is not allowed to connect"): still MySQL.
    return { service: 'mysql', product: 'MySQL', tech: 'MySQL' };
  }
  if (protocol !== 0x0a) return null;
  const end = data.indexOf(0, 5);
  if (end < 0) return null;
  const raw = data.subarray(5, end).toString('latin1');
  const m = /^(\d+\.\d+\.\d+)/.exec(raw.replace(/^5\.5\.5-/, ''));
  if (!m) return null;
  const mariadb = /mariadb/i.test(raw);
  const version = m[1] as string;
  return mariadb
    ? {
        service: 'mysql',
        product: 'MariaDB',
        version,
        tech: 'MariaDB',
        cpe: `cpe:2.3:a:mariadb:mariadb:${version}:*:*:*:*:*:*:*`,
      }
    : {
        service: 'mysql',
        product: 'MySQL',
        version,
        tech: 'MySQL',
        cpe: `cpe:2.3:a:oracle:mysql:${version}:*:*:*:*:*:*:*`,
      };
}

/** Parses the status line and headers of a raw HTTP/1.x response. */
export function parseRawHttp(text: string): { status: number; headers: Record<string, string> } | null {
  const m = /^HTTP\/\d(?:\.\d)? (\d{3})/.exec(text);
  if (!m) return null;
  const headers: Record<string, string> = {};
  const head = text.split(/\r?\n\r?\n/)[0] ?? '';
  for (const line of head.split(/\r?\n/).slice(1)) {
    const i = line.indexOf(':');
    if (i > 0) headers[line.slice(0, i).trim().toLowerCase()] = line.slice(i + 1).trim();
  }
  return { status: Number(m[1]), headers };
}
