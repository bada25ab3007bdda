/**
 * Naming, directory and message-broker daemons of the real-software lab: BIND, dnsmasq, OpenLDAP
 * (slapd) and Mosquitto.
 */
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { type RealDaemon, same, versionFrom, write } from './daemon-kit.ts';

export const bind9: RealDaemon = {
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
};

export const dnsmasq: RealDaemon = {
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
};

export const slapd: RealDaemon = {
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
};

export const mosquitto: RealDaemon = {
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
};
