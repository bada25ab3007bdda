/**
 * Everything in one process: the API, the workers and the scheduler, on the embedded PostgreSQL
 * unless DATABASE_URL is set. This is what `npm start` runs.
 */
import { runProcess } from './server/process.ts';

await runProcess({ api: true, worker: true });
