/**
 * Writes the resolution page's script (the browser build of the client and
 * `src/page/main.ts`, one minified IIFE) to `dist/browser/lexroute-page.js`,
 * which an installed package's resolver serves (`resolver-http/page.ts`).
 * Part of `npm run build`.
 */
import { mkdirSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import path from 'node:path';
import { bundleFromSources } from '../src/resolver/http/page.ts';

const out = path.resolve(import.meta.dirname, '../dist/browser/lexroute-page.js');
mkdirSync(path.dirname(out), { recursive: true });
const js = await bundleFromSources(out);
const kib = (n: number) => `${(n / 1024).toFixed(1)} KiB`;
// On standard error: `npm pack --json` runs the build and its standard output must stay JSON.
process.stderr.write(
  `${path.relative(process.cwd(), out)}: ${kib(js.length)} minified, ${kib(gzipSync(js).length)} gzipped\n`,
);
