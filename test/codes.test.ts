/**
 * The code tables (scripts/code-tables.ts): every SCREAMING_SNAKE code used
 * in src is registered in exactly one table, every registered code is used,
 * and docs/codes.md is what `npm run codes` writes.
 */
import { readFileSync, readdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import {
  CODE_TABLES,
  DERIVED_PREFIXES,
  FOREIGN_NAMES,
  FOREIGN_PREFIXES,
  renderCodesDoc,
} from '../scripts/code-tables.ts';

const root = fileURLToPath(new URL('..', import.meta.url));
const tableFiles = new Set(CODE_TABLES.map((t) => t.file));

function sources(): { file: string; text: string }[] {
  const out: { file: string; text: string }[] = [];
  const walk = (dir: string) => {
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      const p = join(dir, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.name.endsWith('.ts')) {
        const file = relative(root, p).split('\\').join('/');
        if (!tableFiles.has(file)) out.push({ file, text: readFileSync(p, 'utf8') });
      }
    }
  };
  walk(join(root, 'src'));
  return out;
}

/**
 * Where a new code is registered: among the tables holding its prefix, the
 * one nearest to the file that uses it; the layer's own table otherwise.
 */
function tableFor(code: string, file: string): string {
  const prefix = code.slice(0, code.indexOf('_') + 1);
  const near = (t: string) => {
    const a = t.split('/').slice(0, -1);
    const b = file.split('/');
    let n = 0;
    while (n < a.length && a[n] === b[n]) n++;
    return n;
  };
  const candidates = CODE_TABLES.filter((t) =>
    Object.keys(t.codes).some((c) => c.startsWith(prefix)),
  ).sort((x, y) => near(y.file) - near(x.file));
  const own = CODE_TABLES.filter((t) => near(t.file) === t.file.split('/').length - 1);
  const best = candidates[0] ?? own[0];
  return best
    ? best.file
    : "the codes.ts of the module's layer (a new table also gets a line in scripts/code-tables.ts)";
}

describe('code tables', () => {
  const files = sources();

  it('every code used in src is registered in exactly one table', () => {
    const where = new Map<string, string>();
    for (const t of CODE_TABLES) {
      for (const code of Object.keys(t.codes)) {
        const before = where.get(code);
        expect(
          before,
          `${code} is in both ${before} and ${t.file}: keep it in one table and run npm run codes`,
        ).toBeUndefined();
        expect(t.codes[code]?.trim(), `${code} in ${t.file} needs a one-line meaning`).toMatch(
          /^[^\n]+$/,
        );
        where.set(code, t.file);
      }
    }
    const missing: string[] = [];
    for (const { file, text } of files) {
      for (const m of text.matchAll(/'([A-Z][A-Z0-9]*_[A-Z0-9_]*[A-Z0-9])'/g)) {
        const code = m[1]!;
        if (where.has(code) || code in FOREIGN_NAMES) continue;
        missing.push(
          `${code} (used in ${file}): register ${code} with its one-line meaning in ${tableFor(code, file)} and run npm run codes`,
        );
      }
      // One-word codes (INTERNAL, USAGE) where a code is set: `code: 'X'`, `code: T = 'X'`.
      for (const m of text.matchAll(/(?<![\w.])code\s*(?::\s*\w+\s*=|:)\s*'([A-Z][A-Z0-9]+)'/g)) {
        const code = m[1]!;
        if (where.has(code) || code in FOREIGN_NAMES) continue;
        missing.push(
          `${code} (set as a code in ${file}): register ${code} with its one-line meaning in ${tableFor(code, file)} and run npm run codes`,
        );
      }
      for (const m of text.matchAll(/`([A-Z][A-Z0-9]*_(?:[A-Z0-9]+_)*)\$\{/g)) {
        if (!(m[1]! in DERIVED_PREFIXES) && !(m[1]! in FOREIGN_PREFIXES))
          missing.push(
            `${m[1]}\${...} (built in ${file}): declare the prefix ${m[1]} in DERIVED_PREFIXES of scripts/code-tables.ts and run npm run codes`,
          );
      }
    }
    expect([...new Set(missing)]).toEqual([]);
  });

  it('every registered code is used in src', () => {
    const all = files.map((f) => f.text).join('\n');
    const unused: string[] = [];
    for (const t of CODE_TABLES) {
      for (const code of Object.keys(t.codes)) {
        // Reported as a literal, or through a table keyed by the code (`FAILURE.QUERY_TYPE_OPT`).
        if (!all.includes(`'${code}'`) && !new RegExp(`\\.${code}\\b`).test(all))
          unused.push(
            `${code} is in ${t.file} but no code in src reports it: remove it from ${t.file} (or report it) and run npm run codes`,
          );
      }
    }
    for (const [prefix, d] of Object.entries(DERIVED_PREFIXES)) {
      const text = files.find((f) => f.file === d.file)?.text ?? '';
      if (!text.includes(`\`${prefix}\${`))
        unused.push(`DERIVED_PREFIXES ${prefix}: ${d.file} no longer builds it; remove it`);
    }
    expect(unused).toEqual([]);
  });

  it('docs/codes.md is up to date', () => {
    const current = readFileSync(join(root, 'docs', 'codes.md'), 'utf8');
    expect(
      current === renderCodesDoc(),
      'docs/codes.md is out of date: run npm run codes and commit docs/codes.md',
    ).toBe(true);
  });
});
