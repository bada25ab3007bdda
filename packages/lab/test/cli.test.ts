import { type ChildProcess, spawn } from 'node:child_process';
import dgram from 'node:dgram';
import path from 'node:path';
import dnsPacket from 'dns-packet';
import { afterAll, describe, expect, it } from 'vitest';
import { parseTxtRecords } from '../src/txt-records.ts';

describe('npm run lab --txt NAME=VALUE', () => {
  it('splits at the first "=", groups values by name, refuses malformed ones', () => {
    const records = parseTxtRecords([
      '_perimeter.acme.test=perimeter-verification=abc',
      '_PERIMETER.acme.test.=second',
      'beta.test=v=spf1 -all',
    ]);
    expect([...records]).toEqual([
      ['_perimeter.acme.test', ['perimeter-verification=abc', 'second']],
      ['beta.test', ['v=spf1 -all']],
    ]);
    for (const bad of ['novalue', '=x', 'name=', 'a b.test=x'])
      expect(() => parseTxtRecords([bad])).toThrow(/--txt/);
  });

  let child: ChildProcess | undefined;
  afterAll(() => {
    if (child?.exitCode === null) child.kill('SIGTERM');
  });

  it('publishes the record in the lab DNS, beside the zone', async () => {
    child = spawn(
      process.execPath,
      [
        '--import',
        'tsx',
        path.join(import.meta.dirname, '../src/cli.ts'),
        '--subnet',
        '127.0.219',
        '--dns-port',
        '0',
        '--txt',
        '_perimeter.acme.test=perimeter-verification=t0ken',
      ],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let out = '';
    const port = await new Promise<number>((resolve, reject) => {
      child?.stdout?.on('data', (c: Buffer) => {
        out += c.toString();
        const m = /DNS 127\.0\.0\.1:(\d+)/.exec(out);
        if (m && out.includes('TXT _perimeter.acme.test')) resolve(Number(m[1]));
      });
      child?.once('exit', (code) => reject(new Error(`lab exited with ${code}: ${out}`)));
    });
    const socket = dgram.createSocket('udp4');
    const answer = await new Promise<dnsPacket.Packet>((resolve) => {
      socket.once('message', (msg) => resolve(dnsPacket.decode(msg)));
      socket.send(
        dnsPacket.encode({
          type: 'query',
          id: 7,
          flags: dnsPacket.RECURSION_DESIRED,
          questions: [{ type: 'TXT', name: '_perimeter.acme.test' }],
        }),
        port,
        '127.0.0.1',
      );
    });
    socket.close();
    const texts = (answer.answers ?? []).flatMap((a) =>
      a.type === 'TXT' ? (a.data as Buffer[]).map((b) => b.toString()) : [],
    );
    expect(texts).toContain('perimeter-verification=t0ken');
  });
});
