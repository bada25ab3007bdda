import { describe, expect, it } from 'vitest';
import { httpScheme } from '../probe/http-stage.ts';
import { exactNmapVersion, parseNmapXml } from './nmap-adapter.ts';

describe('nmap adapter', () => {
  it.each([
    ['7.2p2 Ubuntu 4ubuntu2.10', '7.2p2'],
    ['1.22.1', '1.22.1'],
    ['9.6.0 or later', undefined],
    ['8.0 or earlier', undefined],
    ['2.2.X - 2.3.X', undefined],
    ['3.X', undefined],
    [undefined, undefined],
  ])('version %j → %j', (raw, exact) => {
    expect(exactNmapVersion(raw)).toBe(exact);
  });

  it('keeps the product of a version range, without a version', () => {
    const xml = `<?xml version="1.0"?><nmaprun><host><address addr="127.0.226.5" addrtype="ipv4"/><ports>
<port protocol="tcp" portid="5432"><state state="open"/><service name="postgresql" product="PostgreSQL DB" version="9.6.0 or later"/></port>
<port protocol="tcp" portid="3128"><state state="open"/><service name="http-proxy" product="Squid http proxy" version="5.7"/></port>
</ports></host></nmaprun>`;
    expect(parseNmapXml(xml).map((s) => [s.port, s.service, s.product, s.version])).toEqual([
      [3128, 'http-proxy', 'Squid http proxy', '5.7'],
      [5432, 'postgresql', 'PostgreSQL DB', undefined],
    ]);
  });

  it('Tomcat is one product: Coyote and its 1.1 are the connector, not Tomcat or Apache httpd', () => {
    const xml = `<?xml version="1.0"?><nmaprun><host><address addr="127.0.226.6" addrtype="ipv4"/><ports>
<port protocol="tcp" portid="8080"><state state="open"/><service name="http" product="Apache Tomcat/Coyote JSP engine" version="1.1"><cpe>cpe:/a:apache:coyote_http_connector:1.1</cpe></service></port>
<port protocol="tcp" portid="8081"><state state="open"/><service name="http" product="Apache Tomcat" version="9.0.30"/></port>
<port protocol="tcp" portid="3128"><state state="open"/><service name="http-proxy" product="Squid http proxy" version="5.7"/></port>
</ports></host></nmaprun>`;
    const [squid, coyote, tomcat] = parseNmapXml(xml);
    expect(coyote).toMatchObject({
      product: 'Apache Tomcat',
      tech: 'Apache Tomcat',
      cpe: 'cpe:2.3:a:apache:tomcat:*:*:*:*:*:*:*:*',
    });
    expect(coyote?.version).toBeUndefined();
    expect(tomcat).toMatchObject({ product: 'Apache Tomcat', version: '9.0.30', tech: 'Apache Tomcat' });
    expect(squid).toMatchObject({ service: 'http-proxy', tech: 'Squid', version: '5.7' });
  });

  it('a port nmap calls http-proxy (or ssl/http) is still probed as HTTP', () => {
    expect(httpScheme('http', false)).toBe('http');
    expect(httpScheme('https', true)).toBe('https');
    expect(httpScheme('http-proxy', false)).toBe('http');
    expect(httpScheme('ssl/http-proxy', true)).toBe('https');
    expect(httpScheme('ssl/http', true)).toBe('https');
    expect(httpScheme('http-alt', false)).toBe('http');
    expect(httpScheme('ssh', false)).toBeNull();
    expect(httpScheme('ssl/imap', true)).toBeNull();
  });
});
