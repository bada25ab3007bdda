/** The out-of-band interaction server alone (docs/oob.md): DNS, HTTP(S), LDAP and SMTP listeners for PERIMETER_OOB_DOMAIN. */
import { runProcess } from './server/process.ts';

await runProcess({ api: false, worker: false, oob: true });
