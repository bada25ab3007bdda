import { afterEach, describe, expect, it, vi } from 'vitest';
import { signAccessToken, verifyAccessToken } from './auth-fns.ts';

const secret = new Uint8Array(32).fill(7);
const claims = { userId: 'u-1', familyId: 'f-1' };

afterEach(() => {
  vi.useRealTimers();
  vi.restoreAllMocks();
});

describe('access tokens', () => {
  it('checks a token’s signature once, then serves it until it expires', async () => {
    const token = await signAccessToken(claims, secret, 60);
    const hmac = vi.spyOn(crypto.subtle, 'verify');
    expect(await verifyAccessToken(token, secret)).toEqual(claims);
    expect(await verifyAccessToken(token, secret)).toEqual(claims);
    expect(hmac).toHaveBeenCalledTimes(1);

    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(Date.now() + 61_000);
    expect(await verifyAccessToken(token, secret)).toBeUndefined();
  });

  it('refuses an altered token, and one signed with another secret, after the real one was accepted', async () => {
    const token = await signAccessToken(claims, secret, 60);
    expect(await verifyAccessToken(token, secret)).toEqual(claims);
    const [head, body, sig] = token.split('.') as [string, string, string];
    const flipped = `${sig.slice(0, -2)}${sig.at(-2) === 'A' ? 'B' : 'A'}${sig.at(-1)}`;
    expect(await verifyAccessToken(`${head}.${body}.${flipped}`, secret)).toBeUndefined();
    const forged = JSON.parse(Buffer.from(body, 'base64url').toString()) as Record<string, unknown>;
    const other = `${head}.${Buffer.from(JSON.stringify({ ...forged, sub: 'u-2' })).toString('base64url')}.${sig}`;
    expect(await verifyAccessToken(other, secret)).toBeUndefined();
    expect(await verifyAccessToken(token, new Uint8Array(32).fill(8))).toBeUndefined();
  });

  it('refuses a token that is not an access token', async () => {
    expect(await verifyAccessToken('not.a.token', secret)).toBeUndefined();
  });
});
