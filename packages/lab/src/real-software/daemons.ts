/**
 * The daemons of the real-software lab: Debian packages started by hand, each bound only to
 * its own address of a loopback /24, with a configuration generated in a temporary folder.
 * No system configuration or default address is used: every listener is named here.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { copyFileSync, cpSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';

/** One port of a daemon as the expected file describes it. */
export interface RealPort {
  port: number;
  /** Our service name (`http`, `https`, `ssh`, `ssl/imap`, ...). */
  service: string;
  product: string;
  /** The version as the service shows it on the wire (computed from `RealDaemon.version`). */
  exposes?: (version: string) => string;
  tls?: boolean;
}

/** What a daemon needs to run: a command line, and files prepared beforehand. */
export interface Launch {
  command: string;
  args: string[];
  env?: Record<string, string>;
  /** Run as this user (through runuser) instead of root. */
  user?: string;
}

export interface PrepareContext {
  /** This daemon's own folder (world-writable: the daemons drop privileges). */
  dir: string;
  address: string;
  /** Address of another daemon of the lab, by id (proxies point at their back end). */
  addressOf: (id: string) => string;
  /** A self-signed certificate and key made for this lab (PEM paths). */
  cert: { cert: string; key: string; weakCert: string; weakKey: string };
}

export interface RealDaemon {
  id: string;
  /** The Debian package whose presence and version the lab checks. */
  package: string;
  /** Last octet of its address in the lab's /24. */
  octet: number;
  /** The daemon's own version, from its own output (`nginx -v`, ...). */
  version: () => string;
  ports: RealPort[];
  prepare: (ctx: PrepareContext) => Launch;
  /** Slow starters (JVM, database initialisation) are waited for longer. */
  startTimeoutMs?: number;
  /**
   * The daemon listens only on addresses an interface carries (BIND): its address is added to
   * `lo` for the lab's lifetime (a loopback alias) and removed at stop.
   */
  needsAlias?: boolean;
}

/** What a command prints on stdout and stderr together (versions go to either). */
function output(command: string, args: string[]): string {
  const r = spawnSync(command, args, { encoding: 'utf8', timeout: 20_000 });
  return `${r.stdout ?? ''}${r.stderr ?? ''}`;
}

/** `pattern`'s first group in the command's output, or a clear error. */
function versionFrom(command: string, args: string[], pattern: RegExp): () => string {
  return () => {
    const out = output(command, args);
    const m = pattern.exec(out);
    if (!m?.[1]) throw new Error(`cannot read the version of ${command} from: ${out.slice(0, 200)}`);
    return m[1];
  };
}

/** The upstream part of a Debian package version (`1:9.2p1-2+deb12u10` → `9.2p1`). */
export function upstreamVersion(debianVersion: string): string {
  return debianVersion
    .replace(/^\d+:/, '')
    .replace(/-[^-]*$/, '')
    .replace(/\+dfsg\d*$/, '');
}

const majorMinor = (v: string) => v.split('.').slice(0, 2).join('.');
const same = (v: string) => v;

const write = (file: string, text: string) => writeFileSync(file, text);

const WWW_INDEX =
  '<!doctype html><html><head><title>Lab page</title></head><body><p>Lab page</p></body></html>\n';

function www(dir: string): string {
  const root = path.join(dir, 'www');
  mkdirSync(root, { recursive: true });
  write(path.join(root, 'index.html'), WWW_INDEX);
  return root;
}

export const REAL_DAEMONS: RealDaemon[] = [
  {
    id: 'nginx',
    package: 'nginx',
    octet: 10,
    version: versionFrom('nginx', ['-v'], /nginx\/([\d.]+)/),
    ports: [
      { port: 80, service: 'http', product: 'nginx', exposes: same },
      { port: 443, service: 'https', product: 'nginx', exposes: same, tls: true },
    ],
    prepare: ({ dir, address, cert }) => {
      const root = www(dir);
      const conf = path.join(dir, 'nginx.conf');
      const temp = ['client_body', 'proxy', 'fastcgi', 'uwsgi', 'scgi']
        .map((t) => `  ${t}_temp_path ${dir}/${t};`)
        .join('\n');
      write(
        conf,
        `pid ${dir}/nginx.pid;
error_log ${dir}/error.log;
daemon off;
worker_processes 1;
events { worker_connections 256; }
http {
  access_log off;
${temp}
  server { listen ${address}:80; root ${root}; }
  server {
    listen ${address}:443 ssl;
    root ${root};
    ssl_certificate ${cert.cert};
    ssl_certificate_key ${cert.key};
    ssl_protocols TLSv1.2 TLSv1.3;
  }
}
`,
      );
      return { command: 'nginx', args: ['-c', conf, '-e', `${dir}/error.log`] };
    },
  },
  {
    id: 'apache2',
    package: 'apache2',
    octet: 11,
    version: versionFrom('apache2', ['-v'], /Apache\/([\d.]+)/),
    ports: [
      { port: 80, service: 'http', product: 'Apache httpd', exposes: same },
      { port: 443, service: 'https', product: 'Apache httpd', exposes: same, tls: true },
    ],
    prepare: ({ dir, address, cert }) => {
      const root = www(dir);
      const mods = ['mpm_event', 'authz_core', 'dir', 'mime', 'ssl', 'socache_shmcb', 'headers']
        .map((m) => `LoadModule ${m}_module /usr/lib/apache2/modules/mod_${m}.so`)
        .join('\n');
      const conf = path.join(dir, 'apache2.conf');
      // An old-style TLS set-up on purpose: every protocol version OpenSSL still has, the
      // weakest cipher suites it allows, a 1024-bit key signed with SHA-1.
      write(
        conf,
        `ServerRoot ${dir}
${mods}
ServerName apache.lab.test
PidFile ${dir}/apache2.pid
ErrorLog ${dir}/error.log
Mutex file:${dir} default
DefaultRuntimeDir ${dir}
User www-data
Group www-data
TypesConfig /etc/mime.types
DocumentRoot ${root}
Listen ${address}:80
Listen ${address}:443
SSLSessionCache shmcb:${dir}/ssl_scache(512000)
<VirtualHost ${address}:443>
  SSLEngine on
  SSLCertificateFile ${cert.weakCert}
  SSLCertificateKeyFile ${cert.weakKey}
  SSLProtocol all
  SSLCipherSuite ALL:@SECLEVEL=0
  SSLHonorCipherOrder off
</VirtualHost>
`,
      );
      return { command: 'apache2', args: ['-f', conf, '-DFOREGROUND'] };
    },
  },
  {
    id: 'lighttpd',
    package: 'lighttpd',
    octet: 12,
    version: versionFrom('lighttpd', ['-v'], /lighttpd\/([\d.]+)/),
    ports: [{ port: 80, service: 'http', product: 'lighttpd', exposes: same }],
    prepare: ({ dir, address }) => {
      const root = www(dir);
      const conf = path.join(dir, 'lighttpd.conf');
      write(
        conf,
        `server.document-root = "${root}"
server.bind = "${address}"
server.port = 80
server.pid-file = "${dir}/lighttpd.pid"
server.errorlog = "${dir}/error.log"
server.username = "www-data"
server.groupname = "www-data"
index-file.names = ( "index.html" )
mimetype.assign = ( ".html" => "text/html" )
`,
      );
      return { command: 'lighttpd', args: ['-D', '-f', conf] };
    },
  },
  {
    id: 'tomcat10',
    package: 'tomcat10',
    octet: 13,
    version: versionFrom('sh', ['/usr/share/tomcat10/bin/version.sh'], /Apache Tomcat\/([\d.]+)/),
    ports: [{ port: 8080, service: 'http', product: 'Apache Tomcat', exposes: same }],
    startTimeoutMs: 120_000,
    prepare: ({ dir, address }) => {
      const base = path.join(dir, 'base');
      for (const d of ['conf', 'logs', 'temp', 'work', 'webapps'])
        mkdirSync(path.join(base, d), { recursive: true });
      for (const f of [
        'catalina.properties',
        'context.xml',
        'logging.properties',
        'tomcat-users.xml',
        'web.xml',
      ])
        copyFileSync(path.join('/etc/tomcat10', f), path.join(base, 'conf', f));
      cpSync('/var/lib/tomcat10/webapps/ROOT', path.join(base, 'webapps/ROOT'), { recursive: true });
      write(
        path.join(base, 'conf/server.xml'),
        `<?xml version="1.0" encoding="UTF-8"?>
<Server port="-1" shutdown="SHUTDOWN">
  <Service name="Catalina">
    <Connector port="8080" address="${address}" protocol="HTTP/1.1" connectionTimeout="20000" />
    <Engine name="Catalina" defaultHost="localhost">
      <Host name="localhost" appBase="webapps" unpackWARs="false" autoDeploy="false" />
    </Engine>
  </Service>
</Server>
`,
      );
      return {
        command: '/usr/share/tomcat10/bin/catalina.sh',
        args: ['run'],
        env: {
          CATALINA_HOME: '/usr/share/tomcat10',
          CATALINA_BASE: base,
          CATALINA_TMPDIR: path.join(base, 'temp'),
          JAVA_OPTS: '-Xms32m -Xmx128m -XX:+UseSerialGC -XX:TieredStopAtLevel=1 -Xshare:auto',
        },
      };
    },
  },
  {
    id: 'haproxy',
    package: 'haproxy',
    octet: 14,
    version: versionFrom('haproxy', ['-v'], /HAProxy version ([\d.]+)/),
    // HAProxy shows no version of its own; the back end (nginx) is not its product.
    ports: [{ port: 80, service: 'http', product: 'HAProxy' }],
    prepare: ({ dir, address, addressOf }) => {
      const conf = path.join(dir, 'haproxy.cfg');
      write(
        conf,
        `global
  pidfile ${dir}/haproxy.pid
defaults
  mode http
  timeout connect 5s
  timeout client 30s
  timeout server 30s
frontend web
  bind ${address}:80
  default_backend app
backend app
  server app1 ${addressOf('nginx')}:80
`,
      );
      return { command: 'haproxy', args: ['-db', '-f', conf] };
    },
  },
  {
    id: 'varnish',
    package: 'varnish',
    octet: 15,
    version: versionFrom('varnishd', ['-V'], /varnish-([\d.]+)/),
    ports: [
      // Via: 1.1 varnish (Varnish/7.1) — major and minor only.
      { port: 80, service: 'http', product: 'Varnish', exposes: majorMinor },
      { port: 6082, service: 'varnish-cli', product: 'Varnish CLI' },
    ],
    prepare: ({ dir, address, addressOf }) => {
      write(path.join(dir, 'secret'), 'lab-varnish-secret\n');
      return {
        command: 'varnishd',
        args: [
          '-F',
          '-n',
          path.join(dir, 'work'),
          '-a',
          `${address}:80`,
          '-T',
          `${address}:6082`,
          '-S',
          path.join(dir, 'secret'),
          '-b',
          `${addressOf('nginx')}:80`,
          '-s',
          'malloc,16m',
        ],
      };
    },
  },
  {
    id: 'squid',
    package: 'squid',
    octet: 16,
    version: versionFrom('squid', ['-v'], /Version ([\d.]+)/),
    ports: [{ port: 3128, service: 'http-proxy', product: 'Squid http proxy', exposes: same }],
    prepare: ({ dir, address }) => {
      const conf = path.join(dir, 'squid.conf');
      write(
        conf,
        `http_port ${address}:3128
pid_filename ${dir}/squid.pid
cache_log ${dir}/cache.log
access_log none
cache_store_log none
cache deny all
cache_mem 8 MB
coredump_dir ${dir}
icp_port 0
htcp_port 0
snmp_port 0
dns_v4_first on
http_access deny all
`,
      );
      return { command: 'squid', args: ['-N', '-f', conf] };
    },
  },
  {
    id: 'openssh',
    package: 'openssh-server',
    octet: 17,
    // sshd -V prints "OpenSSH_9.2" while its banner says 9.2p1: the package's upstream version.
    version: () => upstreamVersion(dpkgVersion('openssh-server') ?? ''),
    ports: [{ port: 22, service: 'ssh', product: 'OpenSSH', exposes: same }],
    prepare: ({ dir, address }) => {
      const key = path.join(dir, 'ssh_host_ed25519_key');
      execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-f', key]);
      mkdirSync('/run/sshd', { recursive: true, mode: 0o755 });
      const conf = path.join(dir, 'sshd_config');
      write(
        conf,
        `ListenAddress ${address}:22
HostKey ${key}
PidFile ${dir}/sshd.pid
UsePAM no
PasswordAuthentication no
`,
      );
      return { command: '/usr/sbin/sshd', args: ['-D', '-e', '-f', conf] };
    },
  },
  {
    id: 'vsftpd',
    package: 'vsftpd',
    octet: 18,
    // vsftpd -v writes to its standard input.
    version: versionFrom('sh', ['-c', 'vsftpd -v 0>&1'], /version ([\d.]+)/),
    ports: [{ port: 21, service: 'ftp', product: 'vsftpd', exposes: same }],
    prepare: ({ dir, address }) => {
      const empty = path.join(dir, 'empty');
      mkdirSync(empty, { recursive: true, mode: 0o755 });
      const conf = path.join(dir, 'vsftpd.conf');
      write(
        conf,
        `listen=YES
listen_ipv6=NO
listen_address=${address}
listen_port=21
background=NO
anonymous_enable=NO
local_enable=YES
pam_service_name=vsftpd
secure_chroot_dir=${empty}
seccomp_sandbox=NO
xferlog_enable=NO
`,
      );
      return { command: 'vsftpd', args: [conf] };
    },
  },
  {
    id: 'postfix',
    package: 'postfix',
    octet: 19,
    version: versionFrom('postconf', ['-d', 'mail_version'], /mail_version = ([\d.]+)/),
    // "220 mail.lab.test ESMTP Postfix (Debian/GNU)": no version on the wire.
    ports: [{ port: 25, service: 'smtp', product: 'Postfix smtpd' }],
    // Postfix checks that inet_interfaces are addresses of an interface.
    needsAlias: true,
    prepare: ({ dir, address }) => {
      const conf = path.join(dir, 'conf');
      const queue = path.join(dir, 'queue');
      const data = path.join(dir, 'data');
      for (const d of [conf, queue, data]) mkdirSync(d, { recursive: true });
      execFileSync('chown', ['postfix', data]);
      write(
        path.join(conf, 'main.cf'),
        `compatibility_level = 3.6
queue_directory = ${queue}
data_directory = ${data}
inet_interfaces = ${address}
inet_protocols = ipv4
myhostname = mail.lab.test
mydestination =
maillog_file = /dev/stdout
smtpd_banner = $myhostname ESMTP $mail_name (Debian/GNU)
`,
      );
      copyFileSync('/etc/postfix/master.cf.proto', path.join(conf, 'master.cf'));
      execFileSync('postfix', ['-c', conf, 'set-permissions'], { stdio: 'ignore' });
      // The master itself in the foreground (`postfix start-fg` leaves it behind on SIGTERM).
      return { command: '/usr/lib/postfix/sbin/master', args: ['-c', conf, '-d'] };
    },
  },
  {
    id: 'dovecot',
    package: 'dovecot-core',
    octet: 20,
    version: versionFrom('dovecot', ['--version'], /^([\d.]+)/),
    // "+OK Dovecot (Debian) ready." and "* OK [...] Dovecot (Debian) ready.": no version.
    ports: [
      { port: 110, service: 'pop3', product: 'Dovecot pop3d' },
      { port: 143, service: 'imap', product: 'Dovecot imapd' },
      { port: 993, service: 'ssl/imap', product: 'Dovecot imapd', tls: true },
      { port: 995, service: 'ssl/pop3', product: 'Dovecot pop3d', tls: true },
    ],
    prepare: ({ dir, address, cert }) => {
      const conf = path.join(dir, 'dovecot.conf');
      write(path.join(dir, 'users'), '');
      write(
        conf,
        `base_dir = ${dir}/run
state_dir = ${dir}/state
listen = ${address}
protocols = imap pop3
ssl = yes
ssl_cert = <${cert.cert}
ssl_key = <${cert.key}
log_path = ${dir}/dovecot.log
mail_location = maildir:${dir}/mail/%u
passdb {
  driver = passwd-file
  args = ${dir}/users
}
userdb {
  driver = static
  args = uid=nobody gid=nogroup home=${dir}/mail/%u
}
service imap-login {
  inet_listener imap {
    address = ${address}
    port = 143
  }
  inet_listener imaps {
    address = ${address}
    port = 993
    ssl = yes
  }
}
service pop3-login {
  inet_listener pop3 {
    address = ${address}
    port = 110
  }
  inet_listener pop3s {
    address = ${address}
    port = 995
    ssl = yes
  }
}
`,
      );
      return { command: 'dovecot', args: ['-F', '-c', conf] };
    },
  },
  {
    id: 'bind9',
    package: 'bind9',
    octet: 21,
    version: versionFrom('named', ['-v'], /BIND ([\d.]+)/),
    ports: [{ port: 53, service: 'domain', product: 'ISC BIND', exposes: same }],
    needsAlias: true,
    prepare: ({ dir, address }) => {
      const conf = path.join(dir, 'named.conf');
      write(
        conf,
        `options {
  directory "${dir}";
  pid-file "${dir}/named.pid";
  session-keyfile "${dir}/session.key";
  listen-on port 53 { ${address}; };
  listen-on-v6 { none; };
  recursion no;
  dnssec-validation no;
  notify no;
};
controls { };
`,
      );
      return { command: 'named', args: ['-g', '-c', conf, '-u', 'bind'] };
    },
  },
  {
    id: 'mariadb',
    package: 'mariadb-server',
    octet: 22,
    version: versionFrom('mariadbd', ['--version'], /Ver ([\d.]+)-MariaDB/),
    ports: [{ port: 3306, service: 'mysql', product: 'MariaDB', exposes: same }],
    startTimeoutMs: 120_000,
    prepare: ({ dir, address }) => {
      const data = path.join(dir, 'data');
      execFileSync(
        'mariadb-install-db',
        [
          '--no-defaults',
          `--datadir=${data}`,
          '--user=root',
          '--skip-test-db',
          '--auth-root-authentication-method=normal',
        ],
        { stdio: 'ignore' },
      );
      return {
        command: 'mariadbd',
        args: [
          '--no-defaults',
          `--datadir=${data}`,
          `--bind-address=${address}`,
          '--port=3306',
          `--socket=${dir}/mysqld.sock`,
          `--pid-file=${dir}/mysqld.pid`,
          '--user=root',
          '--skip-log-bin',
          '--innodb-buffer-pool-size=16M',
        ],
      };
    },
  },
  {
    id: 'postgresql',
    package: 'postgresql-15',
    octet: 23,
    version: versionFrom('/usr/lib/postgresql/15/bin/postgres', ['--version'], /PostgreSQL\) ([\d.]+)/),
    // The server says nothing of its version before authentication.
    ports: [{ port: 5432, service: 'postgresql', product: 'PostgreSQL' }],
    startTimeoutMs: 120_000,
    prepare: ({ dir, address }) => {
      const data = path.join(dir, 'data');
      const pw = path.join(dir, 'pw');
      write(pw, 'lab-postgres-password\n');
      execFileSync('chown', ['-R', 'postgres:postgres', dir]);
      execFileSync(
        'runuser',
        [
          '-u',
          'postgres',
          '--',
          '/usr/lib/postgresql/15/bin/initdb',
          '-D',
          data,
          '-U',
          'postgres',
          '-A',
          'scram-sha-256',
          `--pwfile=${pw}`,
        ],
        { stdio: 'ignore' },
      );
      return {
        command: '/usr/lib/postgresql/15/bin/postgres',
        args: [
          '-D',
          data,
          '-c',
          `listen_addresses=${address}`,
          '-c',
          'port=5432',
          '-c',
          `unix_socket_directories=${dir}`,
        ],
        user: 'postgres',
      };
    },
  },
  {
    id: 'redis',
    package: 'redis-server',
    octet: 24,
    version: versionFrom('redis-server', ['--version'], /v=([\d.]+)/),
    ports: [{ port: 6379, service: 'redis', product: 'Redis', exposes: same }],
    prepare: ({ dir, address }) => ({
      command: 'redis-server',
      args: [
        '--bind',
        address,
        '--port',
        '6379',
        '--daemonize',
        'no',
        '--dir',
        dir,
        '--save',
        '',
        '--appendonly',
        'no',
      ],
    }),
  },
  {
    id: 'memcached',
    package: 'memcached',
    octet: 25,
    version: versionFrom('memcached', ['-V'], /memcached ([\d.]+)/),
    ports: [{ port: 11211, service: 'memcached', product: 'Memcached', exposes: same }],
    prepare: ({ address }) => ({
      command: 'memcached',
      args: ['-u', 'nobody', '-l', address, '-p', '11211', '-U', '0', '-m', '16'],
    }),
  },
  {
    id: 'mosquitto',
    package: 'mosquitto',
    octet: 26,
    version: versionFrom('mosquitto', ['-h'], /mosquitto version ([\d.]+)/),
    ports: [{ port: 1883, service: 'mqtt', product: 'Mosquitto', exposes: same }],
    prepare: ({ dir, address }) => {
      const conf = path.join(dir, 'mosquitto.conf');
      write(
        conf,
        `listener 1883 ${address}
allow_anonymous true
persistence false
log_dest file ${dir}/mosquitto.log
`,
      );
      return { command: 'mosquitto', args: ['-c', conf] };
    },
  },
  {
    id: 'slapd',
    package: 'slapd',
    octet: 27,
    version: versionFrom('slapd', ['-VV'], /slapd ([\d.]+)/),
    // The root DSE says OpenLDAP (objectClass OpenLDAProotDSE), not its version.
    ports: [{ port: 389, service: 'ldap', product: 'OpenLDAP' }],
    prepare: ({ dir, address }) => {
      const db = path.join(dir, 'db');
      mkdirSync(db, { recursive: true });
      const conf = path.join(dir, 'slapd.conf');
      write(
        conf,
        `include /etc/ldap/schema/core.schema
pidfile ${dir}/slapd.pid
modulepath /usr/lib/ldap
moduleload back_mdb
database mdb
maxsize 16777216
suffix "dc=lab,dc=test"
rootdn "cn=admin,dc=lab,dc=test"
directory ${db}
`,
      );
      return { command: 'slapd', args: ['-d', '0', '-h', `ldap://${address}:389/`, '-f', conf] };
    },
  },
  {
    id: 'tinyproxy',
    package: 'tinyproxy',
    octet: 29,
    version: versionFrom('tinyproxy', ['-v'], /tinyproxy ([\d.]+)/),
    ports: [{ port: 8888, service: 'http-proxy', product: 'tinyproxy', exposes: same }],
    prepare: ({ dir, address }) => {
      const conf = path.join(dir, 'tinyproxy.conf');
      write(
        conf,
        `User nobody
Group nogroup
Port 8888
Listen ${address}
Timeout 60
LogFile "${dir}/tinyproxy.log"
PidFile "${dir}/tinyproxy.pid"
MaxClients 20
Allow 127.0.0.0/8
`,
      );
      return { command: 'tinyproxy', args: ['-d', '-c', conf] };
    },
  },
  {
    id: 'dnsmasq',
    package: 'dnsmasq-base',
    octet: 30,
    version: versionFrom('dnsmasq', ['-v'], /version ([\d.]+)/),
    ports: [{ port: 53, service: 'domain', product: 'dnsmasq', exposes: same }],
    prepare: ({ dir, address }) => ({
      command: 'dnsmasq',
      args: [
        '-k',
        '--conf-file=/dev/null',
        `--listen-address=${address}`,
        '--bind-interfaces',
        '--port=53',
        '--no-resolv',
        '--no-hosts',
        '--user=nobody',
        `--pid-file=${dir}/dnsmasq.pid`,
      ],
    }),
  },
];

/** `dpkg-query`'s version of an installed package, or undefined when it is not installed. */
export function dpkgVersion(pkg: string): string | undefined {
  // dpkg-query's own format fields, not a template string.
  const format = ['-f=$', '{Status}\t$', '{Version}'].join('');
  const out = output('dpkg-query', ['-W', format, pkg]);
  const [status, version] = out.split('\t');
  return status?.startsWith('install ok installed') && version ? version : undefined;
}
