import { describe, expect, it } from 'vitest';
import {
  parseRawHttp,
  recogniseBanner,
  recogniseMysqlHandshake,
  recogniseServerHeader,
} from './service-recognition.ts';

const BANNERS: [string, string, string | undefined, string | undefined][] = [
  ['SSH-2.0-OpenSSH_7.2p2 Ubuntu-4ubuntu2.10', 'ssh', 'OpenSSH', '7.2p2'],
  ['SSH-2.0-OpenSSH_8.9p1', 'ssh', 'OpenSSH', '8.9p1'],
  ['SSH-2.0-dropbear_2019.78', 'ssh', 'Dropbear sshd', '2019.78'],
  ['SSH-2.0-libssh_0.8.1', 'ssh', 'libssh', '0.8.1'],
  ['SSH-1.99-Cisco-1.25', 'ssh', 'Cisco SSH', '1.25'],
  ['SSH-2.0-Go', 'ssh', undefined, undefined],
  ['220 (vsFTPd 2.3.4)', 'ftp', 'vsftpd', '2.3.4'],
  ['220 ProFTPD 1.3.5 Server (Debian)', 'ftp', 'ProFTPD', '1.3.5'],
  ['220-FileZilla Server version 0.9.41 beta', 'ftp', 'FileZilla ftpd', '0.9.41'],
  ['220---------- Welcome to Pure-FTPd [privsep] ----------', 'ftp', 'Pure-FTPd', undefined],
  ['220 Microsoft FTP Service', 'ftp', 'Microsoft ftpd', undefined],
  ['220 mail.acme.test ESMTP Exim 4.87 Mon, 01 Jan 2024 00:00:00 +0000', 'smtp', 'Exim smtpd', '4.87'],
  ['220 mx.example.com ESMTP Postfix (Debian/GNU)', 'smtp', 'Postfix smtpd', undefined],
  ['220 host.example.com ESMTP Sendmail 8.15.2/8.15.2; Mon, 1 Jan 2024', 'smtp', 'Sendmail', '8.15.2'],
  ['220 ex.example.com Microsoft ESMTP MAIL Service ready', 'smtp', 'Microsoft ESMTP', undefined],
  ['220 smtp.example.net ESMTP ready', 'smtp', undefined, undefined],
  ['+OK Dovecot (Ubuntu) ready.', 'pop3', 'Dovecot pop3d', undefined],
  ['+OK POP3 server ready', 'pop3', undefined, undefined],
  ['* OK [CAPABILITY IMAP4rev1 LITERAL+] Dovecot (Ubuntu) ready.', 'imap', 'Dovecot imapd', undefined],
  ['* OK IMAP4 ready', 'imap', undefined, undefined],
  ['$100\r\n# Server\r\nredis_version:4.0.9\r\nredis_mode:standalone', 'redis', 'Redis', '4.0.9'],
  ['-NOAUTH Authentication required.', 'redis', 'Redis', undefined],
  ["-ERR unknown command 'Host:'", 'redis', 'Redis', undefined],
  ['RFB 003.008', 'vnc', undefined, undefined],
];

describe('banner recognition', () => {
  it.each(BANNERS)('%s', (banner, service, product, version) => {
    const r = recogniseBanner(banner);
    expect(r?.service).toBe(service);
    expect(r?.product).toBe(product);
    expect(r?.version).toBe(version);
  });

  it('gives CPEs with the version', () => {
    expect(recogniseBanner('SSH-2.0-OpenSSH_7.2p2')?.cpe).toBe(
      'cpe:2.3:a:openbsd:openssh:7.2p2:*:*:*:*:*:*:*',
    );
    expect(recogniseBanner('220 (vsFTPd 2.3.4)')?.tech).toBe('vsftpd');
  });

  it('returns null for noise', () => {
    expect(recogniseBanner('\u0000\u0001garbage')).toBeNull();
  });

  it.each([
    ['nginx/1.14.0', 'nginx', '1.14.0'],
    ['nginx', 'nginx', undefined],
    ['Apache/2.4.49 (Unix)', 'Apache httpd', '2.4.49'],
    ['Apache', 'Apache httpd', undefined],
    // Coyote's 1.1 is the connector's version, not Tomcat's.
    ['Apache-Coyote/1.1', 'Apache Tomcat', undefined],
    ['Microsoft-IIS/7.5', 'Microsoft IIS httpd', '7.5'],
    ['lighttpd/1.4.45', 'lighttpd', '1.4.45'],
    ['Jetty(9.4.14.v20181114)', 'Jetty', '9.4.14'],
    ['openresty/1.19.3.1', 'OpenResty', '1.19.3.1'],
  ])('Server: %s', (header, product, version) => {
    const r = recogniseServerHeader(header, 'http');
    expect(r.product).toBe(product);
    expect(r.version).toBe(version);
  });

  it('reads MySQL and MariaDB handshakes', () => {
    const packet = (version: string) => {
      const payload = Buffer.concat([Buffer.from([0x0a]), Buffer.from(`${version}\0`), Buffer.alloc(30)]);
      const header = Buffer.alloc(4);
      header.writeUIntLE(payload.length, 0, 3);
      return Buffer.concat([header, payload]);
    };
    expect(recogniseMysqlHandshake(packet('5.5.62-0ubuntu0.14.04.1'))).toMatchObject({
      product: 'MySQL',
      version: '5.5.62',
    });
    expect(recogniseMysqlHandshake(packet('5.5.5-10.3.34-MariaDB-0+deb10u1'))).toMatchObject({
      product: 'MariaDB',
      version: '10.3.34',
    });
    expect(recogniseMysqlHandshake(Buffer.from('SSH-2.0-OpenSSH'))).toBeNull();
  });

  it('parses raw HTTP heads', () => {
    expect(parseRawHttp('HTTP/1.1 302 Found\r\nServer: nginx\r\nLocation: /x\r\n\r\nbody')).toEqual({
      status: 302,
      headers: { server: 'nginx', location: '/x' },
    });
    expect(parseRawHttp('SSH-2.0-x')).toBeNull();
  });
});
