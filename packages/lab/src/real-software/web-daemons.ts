/**
 * Web and application servers of the real-software lab: nginx, Apache httpd (with an old-style
 * TLS set-up for the TLS audit), lighttpd and Tomcat.
 */
import { copyFileSync, cpSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { type RealDaemon, same, versionFrom, write, www } from './daemon-kit.ts';

export const nginx: RealDaemon = {
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
};

export const apache2: RealDaemon = {
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
};

export const lighttpd: RealDaemon = {
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
};

export const tomcat10: RealDaemon = {
  id: 'tomcat10',
  package: 'tomcat10',
  octet: 13,
  version: versionFrom('sh', ['/usr/share/tomcat10/bin/version.sh'], /Apache Tomcat\/([\d.]+)/),
  ports: [{ port: 8080, service: 'http', product: 'Apache Tomcat', exposes: same }],
  startTimeoutMs: 120_000,
  warmUp: { port: 8080, paths: ['/', '/perimeter-warm-up'] },
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
};
