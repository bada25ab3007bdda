import { describe, expect, it } from 'vitest';
import { portArgument } from './nmap-adapter.ts';
import { PortSpecError, parsePorts, TOP_100_PORTS, TOP_1000_PORTS } from './port-lists.ts';

describe('port lists', () => {
  it('top100 and top1000 are distinct valid ports, top100 inside top1000', () => {
    expect(new Set(TOP_100_PORTS).size).toBe(100);
    expect(new Set(TOP_1000_PORTS).size).toBe(1000);
    for (const p of TOP_1000_PORTS) expect(p >= 1 && p <= 65535).toBe(true);
    for (const p of TOP_100_PORTS) expect(TOP_1000_PORTS).toContain(p);
    for (const p of [21, 22, 25, 80, 443, 3306, 3389, 6379, 8080]) expect(TOP_100_PORTS).toContain(p);
  });

  it('parses specs', () => {
    expect(parsePorts('22,80,8000-8002')).toEqual([22, 80, 8000, 8001, 8002]);
    expect(parsePorts('80,22,80')).toEqual([22, 80]);
    expect(parsePorts('1-65535')).toHaveLength(65535);
    expect(parsePorts('all')).toHaveLength(65535);
    expect(parsePorts([443, 80])).toEqual([80, 443]);
    expect(parsePorts('top100')).toHaveLength(100);
    expect(() => parsePorts('0-10')).toThrow(PortSpecError);
    expect(() => parsePorts('80-70')).toThrow(PortSpecError);
    expect(() => parsePorts('http')).toThrow(PortSpecError);
  });

  it('compresses port lists for nmap', () => {
    expect(portArgument([1, 2, 3, 5, 80, 81])).toBe('1-3,5,80-81');
  });
});
