import { gzipSync } from 'node:zlib';
import react from '@vitejs/plugin-react';
import { defineConfig, type Plugin } from 'vite';
import { renderPrivacyPolicyPdf } from './scripts/privacy-policy.ts';

export const INITIAL_JS_BUDGET_BYTES = Number(process.env.INITIAL_JS_BUDGET_KB ?? 250) * 1024;

/** Fails the build when the JS loaded before the first route (entry + static imports) exceeds the budget. */
function initialJsBudget(budget = INITIAL_JS_BUDGET_BYTES): Plugin {
  return {
    name: 'perimeter-initial-js-budget',
    apply: 'build',
    generateBundle(_options, bundle) {
      const seen = new Set<string>();
      const visit = (fileName: string) => {
        const chunk = bundle[fileName];
        if (chunk?.type !== 'chunk' || seen.has(fileName)) return;
        seen.add(fileName);
        for (const imported of chunk.imports) visit(imported);
      };
      for (const [fileName, chunk] of Object.entries(bundle)) {
        if (chunk.type === 'chunk' && chunk.isEntry) visit(fileName);
      }
      let total = 0;
      const parts: string[] = [];
      for (const fileName of seen) {
        const chunk = bundle[fileName];
        if (chunk?.type !== 'chunk') continue;
        const size = gzipSync(chunk.code, { level: 9 }).length;
        total += size;
        parts.push(`  ${fileName}: ${(size / 1024).toFixed(1)} KB`);
        if (process.env.BUDGET_VERBOSE === 'modules') {
          const mods = Object.entries(chunk.modules).sort(
            (a, b) => b[1].renderedLength - a[1].renderedLength,
          );
          for (const [id, m] of mods.slice(0, 8))
            parts.push(`    ${m.renderedLength} ${id.replace(/.*node_modules\//, '')}`);
        }
      }
      if (process.env.BUDGET_VERBOSE) console.log(parts.join('\n'));
      const kb = (total / 1024).toFixed(1);
      const line = `initial JS: ${kb} KB gzipped in ${seen.size} chunk(s) (budget ${(budget / 1024).toFixed(0)} KB)`;
      if (total > budget) this.error(`Bundle budget exceeded — ${line}`);
      console.log(`\n${line}`);
    },
  };
}

/** Emits the privacy policy PDF to /pdf/ in the build and serves it in dev. */
function privacyPolicyPdf(): Plugin {
  const fileName = 'pdf/privacy-policy.pdf';
  return {
    name: 'perimeter-privacy-policy-pdf',
    async generateBundle() {
      this.emitFile({ type: 'asset', fileName, source: await renderPrivacyPolicyPdf() });
    },
    configureServer(server) {
      server.middlewares.use(`/${fileName}`, (_req, res) => {
        renderPrivacyPolicyPdf().then(
          (pdf) => {
            res.setHeader('Content-Type', 'application/pdf');
            res.end(pdf);
          },
          (e: unknown) => {
            res.statusCode = 500;
            res.end(String(e));
          },
        );
      });
    },
  };
}

export default defineConfig({
  plugins: [react(), privacyPolicyPdf(), initialJsBudget()],
  server: {
    port: 5173,
    proxy: {
      '/api': { target: process.env.PERIMETER_API_URL ?? 'http://127.0.0.1:8080', changeOrigin: false },
    },
  },
  build: { sourcemap: false, chunkSizeWarningLimit: 600 },
});
