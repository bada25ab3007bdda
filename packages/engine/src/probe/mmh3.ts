/** MurmurHash3 x86 32-bit, signed like Python's mmh3.hash (what Shodan and nuclei use). */
export function mmh3(data: Buffer, seed = 0): number {
  const c1 = 0xcc9e2d51;
  const c2 = 0x1b873593;
  let h = seed >>> 0;
  const blocks = data.length >> 2;
  for (let i = 0; i < blocks; i++) {
    let k = data.readUInt32LE(i * 4);
    k = Math.imul(k, c1);
    k = (k << 15) | (k >>> 17);
    k = Math.imul(k, c2);
    h ^= k;
    h = (h << 13) | (h >>> 19);
    h = (Math.imul(h, 5) + 0xe6546b64) | 0;
  }
  let k = 0;
  const tail = blocks * 4;
  const rest = data.length & 3;
  if (rest >= 3) k ^= (data[tail + 2] as number) << 16;
  if (rest >= 2) k ^= (data[tail + 1] as number) << 8;
  if (rest >= 1) {
    k ^= data[tail] as number;
    k = Math.imul(k, c1);
    k = (k << 15) | (k >>> 17);
    k = Math.imul(k, c2);
    h ^= k;
  }
  h ^= data.length;
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h | 0;
}

/** Python's base64.encodebytes: lines of 76 characters, each ending in a newline. */
export function base64Lines(data: Buffer): string {
  const b64 = data.toString('base64');
  let out = '';
  for (let i = 0; i < b64.length; i += 76) out += `${b64.slice(i, i + 76)}\n`;
  return out;
}

/** The favicon hash as Shodan's `http.favicon.hash`: mmh3 of the base64 lines. */
export function faviconHash(data: Buffer): number {
  return mmh3(Buffer.from(base64Lines(data), 'utf8'));
}
