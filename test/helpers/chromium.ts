/**
 * Debian's Chromium, headless, driven by playwright-core, for the tests of
 * the resolution page (test/e2e/browser*.test.ts) and of the chain report: a fresh profile in a
 * temporary folder, removed again by `close`.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';

export interface ChromiumPage {
  readonly context: BrowserContext;
  readonly page: Page;
  /** Close the browser and remove its profile. */
  close(): Promise<void>;
}

/** A headless Chromium (at `executablePath`) with one blank page (default viewport: Playwright's 1280x720). */
export async function launchChromium(
  executablePath: string,
  viewport?: { width: number; height: number },
): Promise<ChromiumPage> {
  const { chromium } = await import('playwright-core');
  const profile = mkdtempSync(join(tmpdir(), 'lexroute-chromium-'));
  let context: BrowserContext;
  try {
    context = await chromium.launchPersistentContext(profile, {
      executablePath,
      headless: true,
      ...(viewport ? { viewport } : {}),
      args: [
        '--headless',
        '--no-sandbox',
        '--disable-gpu',
        '--disable-background-networking',
        '--disable-component-update',
        '--no-first-run',
        '--disable-sync',
      ],
    });
  } catch (e) {
    rmSync(profile, { recursive: true, force: true });
    throw e;
  }
  const page = await context.newPage();
  return {
    context,
    page,
    close: async () => {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}
