import { missingBrowserReason } from './support/browser.ts';
import { ensureBuilt } from './support/server.ts';

/** Builds the SPA once, before any journey starts: journey files may run side by side. */
export default function setup() {
  if (missingBrowserReason() === null) ensureBuilt();
}
