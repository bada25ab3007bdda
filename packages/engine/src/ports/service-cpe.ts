/** CPE 2.3 names and versions of a recognised service, shared by the protocol probes. */
import type { RecognisedService } from './service-recognition.ts';

export const cpe = (vendorProduct: string, version?: string) =>
  `cpe:2.3:a:${vendorProduct}:${version ?? '*'}:*:*:*:*:*:*:*`;

/** `base` with the version (when known) and its CPE (when the product has one). */
export function withVersion(
  base: RecognisedService,
  version: string | undefined,
  cpeName?: string,
): RecognisedService {
  const out = { ...base };
  if (version) out.version = version;
  if (cpeName) out.cpe = cpe(cpeName, version);
  return out;
}
