/**
 * Remote access and mail daemons of the real-software lab: OpenSSH, vsftpd, Postfix and Dovecot
 * (POP3 and IMAP, plain and on TLS).
 */
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { dpkgVersion, type RealDaemon, same, upstreamVersion, versionFrom, write } from './daemon-kit.ts';

export const openssh: RealDaemon = {
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
};

export const vsftpd: RealDaemon = {
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
};

export const postfix: RealDaemon = {
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
};

export const dovecot: RealDaemon = {
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
};
