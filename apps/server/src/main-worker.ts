/** Scan workers and the scheduler alone: run as many as needed against one PostgreSQL. */
import { runProcess } from './server/process.ts';

await runProcess({ api: false, worker: true });
