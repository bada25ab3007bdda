/**
 * The daemons of the real-software lab: Debian packages started by hand, each bound only to
 * its own address of a loopback /24, with a configuration generated in a temporary folder.
 * No system configuration or default address is used: every listener is named in the group
 * files (web-, proxy-, access-mail-, data- and naming-broker-daemons.ts).
 */
import { dovecot, openssh, postfix, vsftpd } from './access-mail-daemons.ts';
import type { RealDaemon } from './daemon-kit.ts';
import { mariadb, memcached, postgresql, redis } from './data-daemons.ts';
import { bind9, dnsmasq, mosquitto, slapd } from './naming-broker-daemons.ts';
import { haproxy, squid, tinyproxy, varnish } from './proxy-daemons.ts';
import { apache2, lighttpd, nginx, tomcat10 } from './web-daemons.ts';

export const REAL_DAEMONS: RealDaemon[] = [
  nginx,
  apache2,
  lighttpd,
  tomcat10,
  haproxy,
  varnish,
  squid,
  openssh,
  vsftpd,
  postfix,
  dovecot,
  bind9,
  mariadb,
  postgresql,
  redis,
  memcached,
  mosquitto,
  slapd,
  tinyproxy,
  dnsmasq,
];
