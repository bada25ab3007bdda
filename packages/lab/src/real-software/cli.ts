/**
 * `npm run real-lab -w @perimeter/lab [ids...]`: starts the real-software lab, prints where the
 * expected file is, and stops on Ctrl-C.
 */
import { startRealLab } from './start-real-lab.ts';

const only = process.argv.slice(2);
const lab = await startRealLab(only.length ? { only } : {});
console.log(`real-software lab on ${lab.subnet}.0/24, files in ${lab.dir}`);
console.log(`expected: ${lab.expectedFile}`);
for (const e of lab.expected)
  console.log(
    `${e.ip}:${e.port} ${e.service} ${e.product} ${e.version ?? '-'}  (${e.package} ${e.packageVersion})`,
  );
console.log(`started in ${lab.totalStartMs} ms; per daemon (ms):`, JSON.stringify(lab.startMs));
const stop = () => void lab.stop().then(() => process.exit(0));
process.once('SIGINT', stop);
process.once('SIGTERM', stop);
