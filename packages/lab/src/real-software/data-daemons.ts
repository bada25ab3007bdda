/**
 * Databases and caches of the real-software lab: MariaDB, PostgreSQL, Redis and memcached.
 */
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { type RealDaemon, same, versionFrom, write } from './daemon-kit.ts';

export const mariadb: RealDaemon = {
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
};

export const postgresql: RealDaemon = {
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
};

export const redis: RealDaemon = {
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
};

export const memcached: RealDaemon = {
  id: 'memcached',
  package: 'memcached',
  octet: 25,
  version: versionFrom('memcached', ['-V'], /memcached ([\d.]+)/),
  ports: [{ port: 11211, service: 'memcached', product: 'Memcached', exposes: same }],
  prepare: ({ address }) => ({
    command: 'memcached',
    args: ['-u', 'nobody', '-l', address, '-p', '11211', '-U', '0', '-m', '16'],
  }),
};
