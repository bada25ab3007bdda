import { describe, expect, it } from 'vitest';
import { upstreamVersion } from '../src/real-software/daemon-kit.ts';
import { REAL_DAEMONS } from '../src/real-software/daemons.ts';

// The daemons themselves run in the engine's suite (test/real-software.test.ts, root and the
// Debian packages needed); here only the definitions.
describe('real-software lab definitions', () => {
  it('has at least 20 products, each on its own address of the /24 and its own ports', () => {
    expect(REAL_DAEMONS.length).toBeGreaterThanOrEqual(20);
    const octets = REAL_DAEMONS.map((d) => d.octet);
    expect(new Set(octets).size).toBe(octets.length);
    for (const d of REAL_DAEMONS) {
      expect(d.octet).toBeGreaterThan(1);
      expect(d.octet).toBeLessThan(255);
      const ports = d.ports.map((p) => p.port);
      expect(new Set(ports).size, d.id).toBe(ports.length);
      if (d.warmUp) expect(ports, `${d.id} warm-up port`).toContain(d.warmUp.port);
    }
  });

  it('reads the upstream version of a Debian package version', () => {
    expect(upstreamVersion('1:9.2p1-2+deb12u10')).toBe('9.2p1');
    expect(upstreamVersion('1.22.1-9+deb12u11')).toBe('1.22.1');
    expect(upstreamVersion('2.5.13+dfsg-5')).toBe('2.5.13');
    expect(upstreamVersion('3.0.3-13+b2')).toBe('3.0.3');
  });
});
