/**
 * Everything in one process: the API, the workers and the scheduler (and the out-of-band interaction
 * server when PERIMETER_OOB_DOMAIN is set), on the embedded PostgreSQL
 * unless DATABASE_URL is set. This is what `npm start` runs.
 */
import { runProcess } from './server/process.ts';

await runProcess({ api: true, worker: true, oob: 'configured' });
