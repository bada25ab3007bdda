import { mkdirSync } from 'node:fs';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { expect } from 'vitest';
import { seriousViolations, type TAxeViolation } from './browser.ts';
import { webRoot } from './server.ts';

export const SCREENSHOT_DIR = path.join(webRoot, 'artifacts', 'screenshots');
export const PREFS_KEY = 'perimeter-ui-preferences';

export type TCombo = { mode: 'light' | 'dark'; lng: 'en' | 'ru'; dir: 'ltr' | 'rtl' };
export const THEME_LANGUAGE_COMBOS: TCombo[] = (['light', 'dark'] as const).flatMap((mode) =>
  (['en', 'ru'] as const).map((lng) => ({ mode, lng, dir: 'ltr' as const })),
);
/** The sign-up journey's pages are captured in both directions too. */
export const THEME_LANGUAGE_DIRECTION_COMBOS: TCombo[] = THEME_LANGUAGE_COMBOS.flatMap((c) =>
  (['ltr', 'rtl'] as const).map((dir) => ({ ...c, dir })),
);
const DEFAULT_COMBO: TCombo = { mode: 'light', lng: 'en', dir: 'ltr' };

export type TViolationReport = { page: string; combo: string; list: TAxeViolation[] };

/**
 * Waits until the page is drawn as it will stay: the network idle (the page's data loaded), its
 * heading shown, the fonts loaded and every finite animation or transition (MUI's fades, grows,
 * collapses) at its end — axe measures contrast on what is painted.
 */
export async function settle(page: Page): Promise<void> {
  await page.waitForLoadState('networkidle');
  await page.locator('h1').first().waitFor({ state: 'visible', timeout: 60_000 });
  await page.evaluate(() => document.fonts.ready.then(() => undefined));
  await animationsDone(page);
}

/** Waits until every finite CSS animation and transition (a drawer sliding in, a fade) has ended. */
export async function animationsDone(page: Page): Promise<void> {
  await page.waitForFunction(
    () =>
      document
        .getAnimations()
        .every((a) => a.playState !== 'running' || a.effect?.getComputedTiming().iterations === Infinity),
    undefined,
    { timeout: 10_000 },
  );
}

/**
 * Waits until an opening dialog has faded in: axe measures colour contrast on what is painted,
 * and a dialog caught half-way (opacity < 1) fails it for colours that pass once it is shown.
 */
async function transitionsDone(page: Page): Promise<void> {
  await page.waitForFunction(
    () =>
      [...document.querySelectorAll('.MuiDialog-container, .MuiPopover-paper, .MuiMenu-paper')].every((e) => {
        const style = getComputedStyle(e);
        // A closed, kept-mounted menu is hidden, not fading.
        return style.visibility === 'hidden' || style.opacity === '1';
      }),
    undefined,
    { timeout: 10_000 },
  );
}

/**
 * Screenshots of a page in every theme × language (× direction) with axe-core run on each; the
 * serious and critical violations are collected for one assertion at the end of a journey.
 * `defaultCombos` are those `capture` uses unless told (the sign-up journey adds the directions).
 */
export function createCapture(page: Page, defaultCombos: TCombo[] = THEME_LANGUAGE_COMBOS) {
  const violations: TViolationReport[] = [];

  async function applyCombo(combo: TCombo) {
    await page.evaluate(
      ({ key, c }) => {
        localStorage.setItem(key, JSON.stringify({ mode: c.mode, themeDirection: c.dir }));
        localStorage.setItem('locale', c.lng);
      },
      { key: PREFS_KEY, c: combo },
    );
  }

  /** axe-core on the page as it is now, then its screenshot as `<file>.png`. */
  async function inspect(name: string, combo: string, file: string, fullPage = true) {
    mkdirSync(SCREENSHOT_DIR, { recursive: true });
    const list = await seriousViolations(page);
    if (list.length) violations.push({ page: name, combo, list });
    await page.screenshot({ path: path.join(SCREENSHOT_DIR, `${file}.png`), fullPage });
  }

  async function capture(
    name: string,
    prepare: () => Promise<void> = async () => {},
    combos: TCombo[] = defaultCombos,
  ) {
    for (const combo of combos) {
      await applyCombo(combo);
      await page.reload();
      await settle(page);
      await prepare();
      await transitionsDone(page);
      expect(await page.evaluate(() => document.documentElement.dir)).toBe(combo.dir);
      expect(await page.evaluate(() => document.documentElement.lang)).toBe(combo.lng);
      const tag = `${combo.lng}-${combo.mode}-${combo.dir}`;
      await inspect(name, tag, `${name}-${tag}`);
    }
    await applyCombo(DEFAULT_COMBO);
    await page.reload();
    await settle(page);
    await prepare();
  }

  /** For states that a reload would lose (recovery codes are shown once): the current combo only. */
  async function captureInPlace(name: string) {
    const tag = await page.evaluate(
      () =>
        `${document.documentElement.lang}-${document.documentElement.style.colorScheme}-${document.documentElement.dir}`,
    );
    await inspect(name, tag, `${name}-${tag}`);
  }

  /** The violations in a form whose diff reads well when the assertion fails. */
  function summary() {
    return violations.map((v) => ({
      page: v.page,
      combo: v.combo,
      rules: v.list.map(
        (r) => `${r.id} (${r.impact}): ${r.help} @ ${r.nodes.map((n) => n.target.join(' ')).join(', ')}`,
      ),
    }));
  }

  return { capture, captureInPlace, inspect, summary };
}

/**
 * After a failed test: a screenshot named after the journey and test, and where the page was with
 * the tail of the logs (the server's, or a command's output) on stderr.
 */
export async function recordFailure(
  task: { name: string; result?: { state?: string } },
  page: Page | undefined,
  journey: string,
  logTail: () => string,
): Promise<void> {
  if (task.result?.state !== 'fail' || !page) return;
  mkdirSync(SCREENSHOT_DIR, { recursive: true });
  const name = task.name.replace(/[^a-z0-9]+/gi, '-').slice(0, 60);
  await page
    .screenshot({ path: path.join(SCREENSHOT_DIR, `FAILED-${journey}-${name}.png`) })
    .catch(() => undefined);
  console.error(`failed at ${page.url()}\nlog tail:\n${logTail().slice(-3000)}`);
}
