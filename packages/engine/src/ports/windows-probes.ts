/** Probes of Windows services: SMB2 and RDP, written from Microsoft's open specifications. */
import type { RecognisedService } from './service-recognition.ts';

// --- SMB2 NEGOTIATE ([MS-SMB2] 2.2.3)

export function smb2NegotiatePayload(): Buffer {
  const dialects = [0x0202, 0x0210, 0x0300, 0x0302];
  const header = Buffer.alloc(64);
  Buffer.from([0xfe, 0x53, 0x4d, 0x42]).copy(header, 0);
  header.writeUInt16LE(64, 4); // structure size
  const body = Buffer.alloc(36 + dialects.length * 2);
  body.writeUInt16LE(36, 0);
  body.writeUInt16LE(dialects.length, 2);
  body.writeUInt16LE(1, 4); // signing enabled
  for (const [i, d] of dialects.entries()) body.writeUInt16LE(d, 36 + i * 2);
  const smb = Buffer.concat([header, body]);
  const nb = Buffer.alloc(4);
  nb.writeUInt32BE(smb.length);
  return Buffer.concat([nb, smb]);
}

export function recogniseSmb(data: Buffer): RecognisedService | null {
  if (data.length < 8 || data[0] !== 0) return null;
  const proto = data.subarray(4, 8);
  if (
    !proto.equals(Buffer.from([0xfe, 0x53, 0x4d, 0x42])) &&
    !proto.equals(Buffer.from([0xff, 0x53, 0x4d, 0x42]))
  )
    return null;
  return { service: 'microsoft-ds', product: 'SMB' };
}

// --- RDP: X.224 Connection Request with an RDP Negotiation Request ([MS-RDPBCGR] 2.2.1.1)

export const RDP_PAYLOAD = Buffer.from([
  0x03, 0x00, 0x00, 0x13, 0x0e, 0xe0, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01, 0x00, 0x08, 0x00, 0x03, 0x00, 0x00,
  0x00,
]);

export function recogniseRdp(data: Buffer): RecognisedService | null {
  // TPKT version 3, X.224 Connection Confirm (0xd0).
  if (data.length < 11 || data[0] !== 0x03 || data[1] !== 0x00 || ((data[5] as number) & 0xf0) !== 0xd0)
    return null;
  return { service: 'ms-wbt-server', product: 'RDP' };
}
