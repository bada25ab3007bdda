// Renders one pdfmake document in a worker thread, so layout of a large report never blocks the
// API's event loop. Plain JavaScript: it runs in a bare worker without a TypeScript loader.
import { createRequire } from 'node:module';
import path from 'node:path';
import { parentPort } from 'node:worker_threads';

const require = createRequire(import.meta.url);
const pdfmake = require('pdfmake');
const fontDir = path.join(path.dirname(require.resolve('pdfmake/package.json')), 'fonts', 'Roboto');

pdfmake.setUrlAccessPolicy(() => false);
pdfmake.setLocalAccessPolicy((p) => path.resolve(p).startsWith(fontDir));
pdfmake.setFonts({
  Roboto: {
    normal: path.join(fontDir, 'Roboto-Regular.ttf'),
    bold: path.join(fontDir, 'Roboto-Medium.ttf'),
    italics: path.join(fontDir, 'Roboto-Italic.ttf'),
    bolditalics: path.join(fontDir, 'Roboto-MediumItalic.ttf'),
  },
});

// One job at a time per thread: { id, doc, footer } in, { id, ok, pdf | error } out.
parentPort.on('message', async ({ id, doc, footer }) => {
  doc.footer = (page, pages) => ({
    text: footer.replace('{page}', String(page)).replace('{pages}', String(pages)),
    alignment: 'center',
    fontSize: 8,
    color: '#777777',
    margin: [0, 18, 0, 0],
  });
  try {
    const buffer = await pdfmake.createPdf(doc).getBuffer();
    parentPort.postMessage({ id, ok: true, pdf: buffer });
  } catch (err) {
    parentPort.postMessage({ id, ok: false, error: String(err?.stack ?? err) });
  }
});
