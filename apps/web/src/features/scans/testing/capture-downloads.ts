import { vi } from 'vitest';

/**
 * Test helper: records the file names the page hands to the browser (clicks on `<a download>`)
 * instead of navigating. Undo with vi.unstubAllGlobals() and vi.restoreAllMocks().
 */
export function captureDownloads(): string[] {
  const names: string[] = [];
  class TestUrl extends URL {
    static override createObjectURL = vi.fn(() => 'blob:test');
    static override revokeObjectURL = vi.fn();
  }
  vi.stubGlobal('URL', TestUrl);
  vi.spyOn(HTMLAnchorElement.prototype, 'click').mockImplementation(function (this: HTMLAnchorElement) {
    names.push(this.download);
  });
  return names;
}
