/** The API alone: stateless, run as many as needed against one PostgreSQL. */
import { runProcess } from './server/process.ts';

await runProcess({ api: true, worker: false });
