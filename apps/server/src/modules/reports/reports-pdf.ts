import { Worker } from 'node:worker_threads';
import type { TReport } from '@perimeter/contracts';
import { footerTemplate, reportDocDefinition } from './reports-pdf-doc.ts';

const WORKER_URL = new URL('./pdf-render-worker.mjs', import.meta.url);
/** Rendering threads per process (rendering is CPU-bound); more requests wait their turn. */
const THREADS = 2;
const RENDER_TIMEOUT_MS = 120_000;

type Reply = { id: number; ok: true; pdf: Uint8Array } | { id: number; ok: false; error: string };

interface Thread {
  worker: Worker;
  busy: boolean;
}

const threads: Thread[] = [];
const waiting: Array<(t: Thread) => void> = [];
let nextId = 1;

function spawn(): Thread {
  const thread: Thread = { worker: new Worker(WORKER_URL), busy: false };
  thread.worker.unref();
  const drop = () => {
    const i = threads.indexOf(thread);
    if (i >= 0) threads.splice(i, 1);
  };
  thread.worker.once('error', drop);
  thread.worker.once('exit', drop);
  threads.push(thread);
  return thread;
}

async function acquire(): Promise<Thread> {
  const idle = threads.find((t) => !t.busy);
  if (idle) return idle;
  if (threads.length < THREADS) return spawn();
  return new Promise((resolve) => waiting.push(resolve));
}

function release(thread: Thread) {
  thread.busy = false;
  const next = waiting.shift();
  if (next) next(threads.includes(thread) ? thread : spawn());
}

/** Lays out and renders the report in a long-lived worker thread; the API's event loop stays free. */
export async function renderReportPdf(report: TReport): Promise<Buffer> {
  const doc = reportDocDefinition(report);
  const thread = await acquire();
  thread.busy = true;
  const id = nextId++;
  try {
    return await new Promise<Buffer>((resolve, reject) => {
      const onMessage = (m: Reply) => {
        if (m.id !== id) return;
        cleanup();
        if (m.ok) resolve(Buffer.from(m.pdf.buffer, m.pdf.byteOffset, m.pdf.byteLength));
        else reject(new Error(m.error));
      };
      const onFailure = (err: unknown) => {
        cleanup();
        reject(err instanceof Error ? err : new Error(`PDF worker stopped (${String(err)})`));
      };
      const timer = setTimeout(() => {
        cleanup();
        void thread.worker.terminate();
        reject(new Error('PDF rendering timed out'));
      }, RENDER_TIMEOUT_MS);
      const cleanup = () => {
        clearTimeout(timer);
        thread.worker.off('message', onMessage);
        thread.worker.off('error', onFailure);
        thread.worker.off('exit', onFailure);
      };
      thread.worker.on('message', onMessage);
      thread.worker.once('error', onFailure);
      thread.worker.once('exit', onFailure);
      thread.worker.postMessage({ id, doc, footer: footerTemplate(report) });
    });
  } finally {
    release(thread);
  }
}
