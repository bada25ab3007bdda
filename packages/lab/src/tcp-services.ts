import net from 'node:net';
import type { ServiceKind } from './lab-definition.ts';

export interface TcpServiceContext {
  isPlanted(id: string): boolean;
}

export const BANNERS = {
  ssh: 'SSH-2.0-OpenSSH_7.2p2 Ubuntu-4ubuntu2.10',
  ftp: '220 (vsFTPd 2.3.4)',
  smtp: '220 mail.acme.test ESMTP Exim 4.87 Mon, 01 Jan 2024 00:00:00 +0000',
  pop3: '+OK Dovecot (Ubuntu) ready.',
  imap: '* OK [CAPABILITY IMAP4rev1 LITERAL+ SASL-IR LOGIN-REFERRALS ID ENABLE IDLE STARTTLS AUTH=PLAIN] Dovecot (Ubuntu) ready.',
  redisVersion: '4.0.9',
  mysqlVersion: '5.5.62-0ubuntu0.14.04.1',
} as const;

type LineHandler = (line: string, socket: net.Socket) => void;

function lineServer(greeting: string | null, onLine: LineHandler): net.Server {
  return net.createServer((socket) => {
    socket.setTimeout(15_000, () => socket.destroy());
    socket.on('error', () => socket.destroy());
    if (greeting !== null) socket.write(`${greeting}\r\n`);
    let buf = '';
    socket.on('data', (chunk) => {
      buf += chunk.toString('latin1');
      if (buf.length > 65_536) return socket.destroy();
      let idx = buf.indexOf('\n');
      while (idx >= 0) {
        const line = buf.slice(0, idx).replace(/\r$/, '');
        buf = buf.slice(idx + 1);
        onLine(line, socket);
        idx = buf.indexOf('\n');
      }
    });
  });
}

function sshServer(): net.Server {
  // Sends its identification string and waits; a real client would start key exchange.
  return lineServer(BANNERS.ssh, (_line, socket) => {
    socket.end('Protocol mismatch.\r\n');
  });
}

function ftpServer(ctx: TcpServiceContext): net.Server {
  return lineServer(BANNERS.ftp, (line, socket) => {
    const [cmd = '', arg = ''] = line.split(' ', 2);
    switch (cmd.toUpperCase()) {
      case 'USER':
        socket.write(
          arg.toLowerCase() === 'anonymous' || arg.toLowerCase() === 'ftp'
            ? '331 Please specify the password.\r\n'
            : '331 Please specify the password.\r\n',
        );
        break;
      case 'PASS':
        socket.write(
          ctx.isPlanted('LAB-FTP-ANONYMOUS') ? '230 Login successful.\r\n' : '530 Login incorrect.\r\n',
        );
        break;
      case 'SYST':
        socket.write('215 UNIX Type: L8\r\n');
        break;
      case 'QUIT':
        socket.end('221 Goodbye.\r\n');
        break;
      default:
        socket.write('530 Please login with USER and PASS.\r\n');
    }
  });
}

function smtpServer(): net.Server {
  return lineServer(BANNERS.smtp, (line, socket) => {
    const cmd = line.split(' ')[0]?.toUpperCase() ?? '';
    if (cmd === 'EHLO')
      socket.write(
        '250-mail.acme.test Hello there\r\n250-SIZE 52428800\r\n250-8BITMIME\r\n250-PIPELINING\r\n250 HELP\r\n',
      );
    else if (cmd === 'HELO') socket.write('250 mail.acme.test Hello there\r\n');
    else if (cmd === 'QUIT') socket.end('221 mail.acme.test closing connection\r\n');
    else socket.write('500 unrecognized command\r\n');
  });
}

function pop3Server(): net.Server {
  return lineServer(BANNERS.pop3, (line, socket) => {
    const cmd = line.split(' ')[0]?.toUpperCase() ?? '';
    if (cmd === 'CAPA')
      socket.write(
        '+OK\r\nCAPA\r\nTOP\r\nUIDL\r\nRESP-CODES\r\nPIPELINING\r\nAUTH-RESP-CODE\r\nSTLS\r\nUSER\r\nSASL PLAIN\r\n.\r\n',
      );
    else if (cmd === 'QUIT') socket.end('+OK Logging out\r\n');
    else socket.write('-ERR Unknown command.\r\n');
  });
}

function imapServer(): net.Server {
  return lineServer(BANNERS.imap, (line, socket) => {
    const [tag = '*', cmd = ''] = line.split(' ');
    if (cmd.toUpperCase() === 'LOGOUT') socket.end(`* BYE Logging out\r\n${tag} OK Logout completed.\r\n`);
    else if (cmd.toUpperCase() === 'CAPABILITY')
      socket.write(
        `* CAPABILITY IMAP4rev1 LITERAL+ SASL-IR LOGIN-REFERRALS ID ENABLE IDLE STARTTLS AUTH=PLAIN\r\n${tag} OK Capability completed.\r\n`,
      );
    else socket.write(`${tag} BAD Error in IMAP command received by server.\r\n`);
  });
}

function redisInfo(): string {
  return [
    '# Server',
    `redis_version:${BANNERS.redisVersion}`,
    'redis_git_sha1:00000000',
    'redis_mode:standalone',
    'os:Linux 4.15.0-20-generic x86_64',
    'arch_bits:64',
    'tcp_port:6379',
    '',
    '# Clients',
    'connected_clients:1',
    '',
    '# Keyspace',
    'db0:keys=42,expires=0,avg_ttl=0',
    '',
  ].join('\r\n');
}

function redisServer(ctx: TcpServiceContext): net.Server {
  return net.createServer((socket) => {
    socket.setTimeout(15_000, () => socket.destroy());
    socket.on('error', () => socket.destroy());
    let buf = '';
    socket.on('data', (chunk) => {
      buf += chunk.toString('latin1');
      if (buf.length > 65_536) return socket.destroy();
      // Accepts inline commands and RESP arrays; takes the first word as the command.
      while (buf.includes('\n')) {
        let words: string[];
        if (buf.startsWith('*')) {
          const lines = buf.split('\r\n');
          const count = Number(lines[0]?.slice(1));
          if (lines.length < count * 2 + 2) return;
          words = [];
          for (let i = 0; i < count; i++) words.push(lines[2 + i * 2] ?? '');
          buf = lines.slice(count * 2 + 1).join('\r\n');
        } else {
          const idx = buf.indexOf('\n');
          words = buf.slice(0, idx).trim().split(/\s+/);
          buf = buf.slice(idx + 1);
        }
        const cmd = (words[0] ?? '').toUpperCase();
        if (cmd === '') continue;
        if (cmd === 'QUIT') return socket.end('+OK\r\n');
        if (!ctx.isPlanted('LAB-REDIS-NOAUTH') && cmd !== 'AUTH') {
          socket.write('-NOAUTH Authentication required.\r\n');
          continue;
        }
        if (cmd === 'PING') socket.write('+PONG\r\n');
        else if (cmd === 'INFO') {
          const info = redisInfo();
          socket.write(`$${Buffer.byteLength(info)}\r\n${info}\r\n`);
        } else if (cmd === 'AUTH') socket.write('-ERR invalid password\r\n');
        else socket.write(`-ERR unknown command '${cmd.toLowerCase()}'\r\n`);
      }
    });
  });
}

function mysqlHandshake(): Buffer {
  const version = Buffer.from(`${BANNERS.mysqlVersion}\0`, 'latin1');
  const threadId = Buffer.alloc(4);
  threadId.writeUInt32LE(42);
  const salt1 = Buffer.from('abcdefgh', 'latin1');
  const caps = Buffer.alloc(2);
  caps.writeUInt16LE(0xf7ff);
  const rest = Buffer.alloc(1 + 2 + 2 + 1 + 10);
  rest.writeUInt8(8, 0); // charset latin1
  rest.writeUInt16LE(0x0002, 1); // status: autocommit
  rest.writeUInt16LE(0x807f, 3); // upper capabilities
  rest.writeUInt8(21, 5); // auth plugin data length
  const salt2 = Buffer.from('ijklmnopqrst\0', 'latin1');
  const plugin = Buffer.from('mysql_native_password\0', 'latin1');
  const payload = Buffer.concat([
    Buffer.from([0x0a]),
    version,
    threadId,
    salt1,
    Buffer.from([0]),
    caps,
    rest,
    salt2,
    plugin,
  ]);
  const header = Buffer.alloc(4);
  header.writeUIntLE(payload.length, 0, 3);
  header.writeUInt8(0, 3);
  return Buffer.concat([header, payload]);
}

function mysqlServer(): net.Server {
  return net.createServer((socket) => {
    socket.setTimeout(15_000, () => socket.destroy());
    socket.on('error', () => socket.destroy());
    socket.write(mysqlHandshake());
    socket.on('data', () => socket.destroy());
  });
}

export function createTcpService(
  kind: Exclude<ServiceKind, 'http' | 'https'>,
  ctx: TcpServiceContext,
): net.Server {
  switch (kind) {
    case 'ssh':
      return sshServer();
    case 'ftp':
      return ftpServer(ctx);
    case 'smtp':
      return smtpServer();
    case 'pop3':
      return pop3Server();
    case 'imap':
      return imapServer();
    case 'redis':
      return redisServer(ctx);
    case 'mysql':
      return mysqlServer();
  }
}
