import { describe, expect, it } from 'vitest';
import { mqttPayload, recogniseAmqp, recogniseMemcached, recogniseMqtt } from './cache-broker-probes.ts';
import {
  postgresPayload,
  recogniseMongo,
  recogniseMssql,
  recogniseOracleTns,
  recognisePostgres,
} from './database-probes.ts';
import {
  followUpPaths,
  parseHttpAnswer,
  recogniseBadRequestAnswer,
  recogniseHttpAnswer,
} from './http-identification.ts';
import {
  dnsVersionPayload,
  ldapRootDsePayload,
  recogniseDnsVersion,
  recogniseLdap,
} from './naming-probes.ts';
import { recogniseBanner, recogniseTelnet } from './service-recognition.ts';
import { recogniseRdp, recogniseSmb } from './windows-probes.ts';

// Canned answers built from the protocols' specifications (message layouts as documented).

const int32 = (n: number) => {
  const b = Buffer.alloc(4);
  b.writeInt32BE(n);
  return b;
};
const pgMessage = (type: string, body: Buffer) =>
  Buffer.concat([Buffer.from(type), int32(body.length + 4), body]);

describe('PostgreSQL', () => {
  it('sends an SSLRequest then a protocol 3.0 StartupMessage', () => {
    const p = postgresPayload();
    expect(p.readInt32BE(0)).toBe(8);
    expect(p.readInt32BE(4)).toBe(80877103);
    expect(p.readInt32BE(12)).toBe(0x00030000);
    expect(p.readInt32BE(8)).toBe(p.length - 8);
  });

  it('reads N + AuthenticationSASL (SCRAM-SHA-256): PostgreSQL, no version', () => {
    const sasl = pgMessage('R', Buffer.concat([int32(10), Buffer.from('SCRAM-SHA-256\0\0')]));
    expect(recognisePostgres(Buffer.concat([Buffer.from('N'), sasl]))).toEqual({
      service: 'postgresql',
      product: 'PostgreSQL',
      tech: 'PostgreSQL',
      cpe: 'cpe:2.3:a:postgresql:postgresql:*:*:*:*:*:*:*:*',
    });
  });

  it('reads server_version after AuthenticationOk (trust)', () => {
    const data = Buffer.concat([
      Buffer.from('N'),
      pgMessage('R', int32(0)),
      pgMessage('S', Buffer.from('application_name\0perimeter\0')),
      pgMessage('S', Buffer.from('server_version\x0015.4 (Debian 15.4-1)\0')),
    ]);
    expect(recognisePostgres(data)).toMatchObject({ product: 'PostgreSQL', version: '15.4' });
  });

  it('reads an ErrorResponse (no such role) and a lone S (TLS required)', () => {
    const err = pgMessage('E', Buffer.from('SFATAL\0VFATAL\0C28000\0Mno pg_hba.conf entry\0\0'));
    expect(recognisePostgres(Buffer.concat([Buffer.from('N'), err]))?.product).toBe('PostgreSQL');
    expect(recognisePostgres(Buffer.from('S'))?.service).toBe('postgresql');
    expect(recognisePostgres(Buffer.from('N'))).toBeNull();
    expect(recognisePostgres(Buffer.from('HTTP/1.1 400 Bad Request\r\n'))).toBeNull();
  });
});

describe('memcached, MQTT, DNS, LDAP, AMQP', () => {
  it('memcached answers `version`', () => {
    expect(recogniseMemcached(Buffer.from('VERSION 1.6.18\r\n'))).toMatchObject({
      service: 'memcached',
      version: '1.6.18',
    });
    expect(recogniseMemcached(Buffer.from('ERROR\r\n'))).toBeNull();
  });

  it('MQTT: CONNECT + SUBSCRIBE, CONNACK then the retained $SYS/broker/version', () => {
    const p = mqttPayload();
    expect(p[0]).toBe(0x10);
    expect(p.subarray(4, 8).toString()).toBe('MQTT');
    const topic = Buffer.from('$SYS/broker/version');
    const payload = Buffer.from('mosquitto version 2.0.11');
    const publish = Buffer.concat([
      Buffer.from([0x31, 2 + topic.length + payload.length, 0, topic.length]),
      topic,
      payload,
    ]);
    const connack = Buffer.from([0x20, 0x02, 0x00, 0x00]);
    const suback = Buffer.from([0x90, 0x03, 0x00, 0x01, 0x00]);
    expect(recogniseMqtt(Buffer.concat([connack, suback, publish]))).toMatchObject({
      service: 'mqtt',
      product: 'Mosquitto',
      version: '2.0.11',
    });
    // Not authorised (return code 5): still MQTT, nothing more.
    expect(recogniseMqtt(Buffer.from([0x20, 0x02, 0x00, 0x05]))).toEqual({ service: 'mqtt' });
    expect(recogniseMqtt(Buffer.from('220 ftp ready\r\n'))).toBeNull();
  });

  it('DNS: version.bind CHAOS TXT over TCP', () => {
    const q = dnsVersionPayload();
    expect(q.readUInt16BE(0)).toBe(q.length - 2);
    const answer = (text: string) => {
      const question = q.subarray(14);
      const rdata = Buffer.concat([Buffer.from([text.length]), Buffer.from(text)]);
      const rr = Buffer.concat([
        Buffer.from([0xc0, 0x0c, 0, 16, 0, 3, 0, 0, 0, 0]),
        Buffer.from([0, rdata.length]),
        rdata,
      ]);
      const msg = Buffer.concat([
        Buffer.from([0x50, 0x4d, 0x84, 0x00, 0, 1, 0, 1, 0, 0, 0, 0]),
        question,
        rr,
      ]);
      return Buffer.concat([Buffer.from([0, msg.length]), msg]);
    };
    expect(recogniseDnsVersion(answer('9.18.19-1~deb12u1-Debian'))).toMatchObject({
      product: 'ISC BIND',
      version: '9.18.19',
    });
    expect(recogniseDnsVersion(answer('dnsmasq-2.89'))).toMatchObject({
      product: 'dnsmasq',
      version: '2.89',
    });
    expect(recogniseDnsVersion(answer('unbound 1.17.1'))).toMatchObject({ product: 'Unbound' });
    expect(recogniseDnsVersion(answer('none of your business'))).toEqual({ service: 'domain' });
  });

  it('LDAP: root DSE search; OpenLDAP by its objectClass, others by vendorName/vendorVersion', () => {
    const q = ldapRootDsePayload();
    expect(q[0]).toBe(0x30);
    const octets = (s: string) => Buffer.concat([Buffer.from([0x04, s.length]), Buffer.from(s)]);
    const attr = (name: string, value: string) => {
      const v = octets(value);
      const set = Buffer.concat([Buffer.from([0x31, v.length]), v]);
      const body = Buffer.concat([octets(name), set]);
      return Buffer.concat([Buffer.from([0x30, body.length]), body]);
    };
    const entry = (...attrs: Buffer[]) => {
      const list = Buffer.concat(attrs);
      const body = Buffer.concat([octets(''), Buffer.from([0x30, list.length]), list]);
      const op = Buffer.concat([Buffer.from([0x64, body.length]), body]);
      const msg = Buffer.concat([Buffer.from([0x02, 0x01, 0x01]), op]);
      return Buffer.concat([Buffer.from([0x30, msg.length]), msg]);
    };
    expect(recogniseLdap(entry(attr('objectClass', 'OpenLDAProotDSE')))).toMatchObject({
      product: 'OpenLDAP',
    });
    expect(
      recogniseLdap(
        entry(attr('vendorName', '389 Project'), attr('vendorVersion', '389-Directory/2.3.4 B2023')),
      ),
    ).toMatchObject({ product: '389 Directory Server', version: '2.3.4' });
    expect(recogniseLdap(Buffer.from('SSH-2.0-x'))).toBeNull();
  });

  it('AMQP 0-9-1: Connection.Start server-properties name RabbitMQ and its version', () => {
    const longstr = (k: string, v: string) =>
      Buffer.concat([Buffer.from([k.length]), Buffer.from(`${k}S`), int32(v.length), Buffer.from(v)]);
    const table = Buffer.concat([longstr('product', 'RabbitMQ'), longstr('version', '3.10.8')]);
    const args = Buffer.concat([Buffer.from([0, 9]), int32(table.length), table]);
    const method = Buffer.concat([Buffer.from([0, 10, 0, 10]), args]);
    const frame = Buffer.concat([Buffer.from([1, 0, 0]), int32(method.length), method, Buffer.from([0xce])]);
    expect(recogniseAmqp(frame)).toMatchObject({ service: 'amqp', product: 'RabbitMQ', version: '3.10.8' });
    expect(recogniseAmqp(Buffer.from('AMQP\x01\x01\x00\x0a', 'latin1'))).toEqual({ service: 'amqp' });
  });
});

describe('MSSQL, Oracle, MongoDB, SMB, RDP, telnet, VNC, Varnish CLI', () => {
  it('MSSQL PRELOGIN response: VERSION option', () => {
    // Header (type 4 = response), options VERSION at offset 6 (len 6), terminator, data.
    const body = Buffer.from([0x00, 0x00, 0x06, 0x00, 0x06, 0xff, 15, 0, 0x07, 0xd0, 0, 0]);
    const header = Buffer.from([0x04, 0x01, 0, 8 + body.length, 0, 0, 1, 0]);
    expect(recogniseMssql(Buffer.concat([header, body]))).toMatchObject({
      product: 'Microsoft SQL Server',
      version: '15.0.2000',
    });
  });

  it('Oracle TNS: REFUSE with VSNNUM', () => {
    const text = '(DESCRIPTION=(TMP=)(VSNNUM=186646784)(ERR=1189)(ERROR_STACK=(ERROR=(CODE=1189)(EMFI=4))))';
    const header = Buffer.from([0, 8 + text.length, 0, 0, 4, 0, 0, 0]);
    expect(recogniseOracleTns(Buffer.concat([header, Buffer.from(text)]))).toMatchObject({
      service: 'oracle-tns',
      version: '11.2.0.1.0',
    });
  });

  it('MongoDB OP_MSG reply with buildInfo version', () => {
    const v = Buffer.from('6.0.5\0');
    const element = Buffer.concat([
      Buffer.from('\x02version\0', 'latin1'),
      Buffer.from([v.length, 0, 0, 0]),
      v,
    ]);
    const doc = Buffer.concat([Buffer.from([element.length + 5, 0, 0, 0]), element, Buffer.from([0])]);
    const header = Buffer.alloc(16);
    header.writeInt32LE(16 + 5 + doc.length, 0);
    header.writeInt32LE(9, 4);
    header.writeInt32LE(1, 8);
    header.writeInt32LE(2013, 12);
    const reply = Buffer.concat([header, Buffer.alloc(5), doc]);
    expect(recogniseMongo(reply)).toMatchObject({ service: 'mongodb', version: '6.0.5' });
  });

  it('SMB2 negotiate response, RDP connection confirm, telnet negotiation', () => {
    expect(recogniseSmb(Buffer.from([0, 0, 0, 0x80, 0xfe, 0x53, 0x4d, 0x42, 64, 0]))?.service).toBe(
      'microsoft-ds',
    );
    expect(
      recogniseRdp(Buffer.from([3, 0, 0, 0x13, 0x0e, 0xd0, 0, 0, 0x12, 0x34, 0, 2, 0, 8, 0, 1, 0, 0, 0])),
    ).toEqual({ service: 'ms-wbt-server', product: 'RDP' });
    expect(recogniseTelnet(Buffer.from([0xff, 0xfd, 0x18, 0xff, 0xfd, 0x20]))).toEqual({ service: 'telnet' });
    expect(recogniseTelnet(Buffer.from('SSH-2.0'))).toBeNull();
  });

  it('greetings: VNC, Varnish CLI (challenge and open banner)', () => {
    expect(recogniseBanner('RFB 003.008\n')?.service).toBe('vnc');
    expect(
      recogniseBanner('107 59      \ncayrqfnfxlpshbcyeibocjobgnziecjt\n\nAuthentication required.\n'),
    ).toMatchObject({ service: 'varnish-cli', product: 'Varnish CLI' });
    expect(
      recogniseBanner(
        '200 240     \n-----------------------------\nVarnish Cache CLI 1.0\n-----------------------------\nLinux,6.1.0,x86_64,-jnone,-smalloc,-sdefault,-hcritbit\nvarnish-7.1.1 revision 7cee1c5\n',
      ),
    ).toMatchObject({ product: 'Varnish CLI', version: '7.1.1' });
  });
});

const http = (head: string, body = '') => {
  const a = parseHttpAnswer(`${head.replace(/\n/g, '\r\n')}\r\n\r\n${body}`);
  if (!a) throw new Error('bad canned answer');
  return a;
};

describe('HTTP products', () => {
  it('a proxy in front is the product, not the back end of its Server header', () => {
    const varnish = http(
      'HTTP/1.1 200 OK\nServer: nginx/1.22.1\nX-Varnish: 3\nVia: 1.1 varnish (Varnish/7.1)',
      '<html></html>',
    );
    expect(recogniseHttpAnswer(varnish, 'http')).toMatchObject({ product: 'Varnish', version: '7.1' });
    const squid = http('HTTP/1.1 400 Bad Request\nServer: squid/5.7\nX-Squid-Error: ERR_INVALID_URL 0');
    expect(recogniseHttpAnswer(squid, 'http')).toMatchObject({
      service: 'http-proxy',
      product: 'Squid http proxy',
      version: '5.7',
    });
    const haproxy = http(
      'HTTP/1.1 400 Bad request\nContent-length: 90\nCache-Control: no-cache\nConnection: close\nContent-Type: text/html',
      '<html><body><h1>400 Bad request</h1>\nYour browser sent an invalid request.\n</body></html>\n',
    );
    expect(recogniseBadRequestAnswer(haproxy, 'http')).toMatchObject({ product: 'HAProxy' });
    const tiny = http('HTTP/1.1 400 Bad Request\nServer: tinyproxy/1.11.1\nContent-Type: text/html');
    expect(recogniseHttpAnswer(tiny, 'http')).toMatchObject({ service: 'http-proxy', version: '1.11.1' });
    const privoxy = http('HTTP/1.1 400 Invalid header received from client\nProxy-Agent: Privoxy 3.0.34');
    expect(recogniseHttpAnswer(privoxy, 'http')).toMatchObject({ service: 'http-proxy', product: 'Privoxy' });
    const ats = http('HTTP/1.1 200 OK\nServer: nginx/1.22.1\nVia: http/1.1 edge (ApacheTrafficServer/9.2.3)');
    expect(recogniseHttpAnswer(ats, 'http')).toMatchObject({
      product: 'Apache Traffic Server',
      version: '9.2.3',
    });
    const nginx400 = http('HTTP/1.1 400 Bad Request\nServer: nginx/1.22.1', '<center>nginx/1.22.1</center>');
    expect(recogniseBadRequestAnswer(nginx400, 'http')).toBeNull();
  });

  it('Tomcat without a Server header: its title, its error page with the version', () => {
    const home = http(
      'HTTP/1.1 200\nContent-Type: text/html',
      '<head>\n<title>Apache Tomcat</title>\n</head>',
    );
    expect(recogniseHttpAnswer(home, 'http')).toMatchObject({ product: 'Apache Tomcat' });
    expect(recogniseHttpAnswer(home, 'http').version).toBeUndefined();
    const error = http(
      'HTTP/1.1 404\nContent-Type: text/html;charset=utf-8',
      '<!doctype html><html lang="en"><head><title>HTTP Status 404 – Not Found</title></head><body><h3>Apache Tomcat/10.1.60 (Debian)</h3></body></html>',
    );
    expect(recogniseHttpAnswer(error, 'http')).toMatchObject({
      product: 'Apache Tomcat',
      version: '10.1.60',
    });
    const coyote = http('HTTP/1.1 200 OK\nServer: Apache-Coyote/1.1', '<h3>Apache Tomcat/7.0.59</h3>');
    expect(recogniseHttpAnswer(coyote, 'http')).toMatchObject({
      product: 'Apache Tomcat',
      version: '7.0.59',
    });
  });

  it('API servers from their JSON and headers', () => {
    const es = http(
      'HTTP/1.1 200 OK\ncontent-type: application/json',
      JSON.stringify({
        name: 'n1',
        cluster_name: 'c',
        version: { number: '8.11.1' },
        tagline: 'You Know, for Search',
      }),
    );
    expect(recogniseHttpAnswer(es, 'http')).toMatchObject({
      product: 'Elasticsearch REST API',
      version: '8.11.1',
    });
    const docker = http(
      'HTTP/1.1 404 Not Found\nApi-Version: 1.43\nServer: Docker/24.0.7 (linux)',
      '{"message":"page not found"}',
    );
    expect(recogniseHttpAnswer(docker, 'http')).toMatchObject({ product: 'Docker', version: '24.0.7' });
    const etcd = http('HTTP/1.1 200 OK', '{"etcdserver":"3.5.9","etcdcluster":"3.5.0"}');
    expect(recogniseHttpAnswer(etcd, 'http')).toMatchObject({ product: 'etcd', version: '3.5.9' });
    const k8s = http(
      'HTTP/1.1 403 Forbidden',
      '{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","reason":"Forbidden","code":403}',
    );
    expect(recogniseHttpAnswer(k8s, 'https')).toMatchObject({ product: 'Kubernetes API' });
    expect(followUpPaths(k8s)).toEqual(['/version']);
    const k8sVersion = http('HTTP/1.1 200 OK', '{"major":"1","minor":"28","gitVersion":"v1.28.2+k3s1"}');
    expect(recogniseHttpAnswer(k8sVersion, 'https')).toMatchObject({ version: '1.28.2' });
    const prom = http('HTTP/1.1 302 Found\nLocation: /graph');
    expect(followUpPaths(prom)).toEqual(['/api/v1/status/buildinfo']);
    const build = http(
      'HTTP/1.1 200 OK',
      '{"status":"success","data":{"version":"2.45.0","revision":"x","goVersion":"go1.20.5"}}',
    );
    expect(recogniseHttpAnswer(build, 'http')).toMatchObject({ product: 'Prometheus', version: '2.45.0' });
    const consul = http('HTTP/1.1 301 Moved Permanently\nLocation: /ui/');
    expect(followUpPaths(consul)).toEqual(['/ui/']);
    const ui = http(
      'HTTP/1.1 200 OK',
      '<meta name="consul-ui/config/environment" content="%7B%22CONSUL_VERSION%22%3A%221.15.2%22%7D">',
    );
    expect(recogniseHttpAnswer(ui, 'http')).toMatchObject({ product: 'Consul', version: '1.15.2' });
    expect(followUpPaths(http('HTTP/1.1 404 Not Found', '404 page not found\n'))).toEqual(['/version']);
  });
});
