/**
 * Proxies and caches of the real-software lab: HAProxy and Varnish in front of the lab's nginx,
 * Squid and tinyproxy as forward proxies.
 */
import path from 'node:path';
import { majorMinor, type RealDaemon, same, versionFrom, write } from './daemon-kit.ts';

export const haproxy: RealDaemon = {
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
};

export const varnish: RealDaemon = {
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
};

export const squid: RealDaemon = {
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
};

export const tinyproxy: RealDaemon = {
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
};
