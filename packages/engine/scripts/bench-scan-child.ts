// Child process of the bench: one class_resources scan of the lab, reporting wall time and
// peak memory of this process only (the lab runs in the parent).
import { scan } from '../src/pipeline/scan.ts';

const [dns, ctUrl, portList, ...domains] = process.argv.slice(2);
const started = performance.now();
let assets = 0;
for await (const e of scan(domains, {
  dns: { servers: [dns as string] },
  scope: { allowPrivate: true, allow: ['127.0.0.0/8'] },
  discovery: { ctUrl: ctUrl as string },
  ports: { list: portList as string },
  classes: ['class_resources'],
})) {
  if (e.type === 'asset') assets++;
}
const wallMs = performance.now() - started;
process.stdout.write(JSON.stringify({ wallMs, maxRssMb: process.resourceUsage().maxRSS / 1024, assets }));
