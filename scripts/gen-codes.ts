/**
 * Write docs/codes.md from the code tables (scripts/code-tables.ts).
 *
 * Usage: npm run codes                       (writes the file)
 *        node scripts/gen-codes.ts --check   (exit 1 if it differs)
 * test/codes.test.ts runs the same comparison.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { renderCodesDoc } from './code-tables.ts';

const path = new URL('../docs/codes.md', import.meta.url);
const text = renderCodesDoc();
if (process.argv.includes('--check')) {
  let current = '';
  try {
    current = readFileSync(path, 'utf8');
  } catch {
    // missing: differs
  }
  if (current !== text) {
    process.stderr.write('docs/codes.md is out of date: run npm run codes\n');
    process.exit(1);
  }
} else {
  writeFileSync(path, text);
  process.stdout.write('wrote docs/codes.md\n');
}
