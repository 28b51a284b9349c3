/**
 * Module-level mutable state is visible to the lint (issue 19): in a pure core folder (src/PART/core) a
 * `let` or an unannotated Map, Set, WeakMap or BoundedMemo at the top of a
 * module is an error unless an eslint-disable comment says why it is safe; in
 * src/client it is an error (each client owns its caches).
 */
import { fileURLToPath } from 'node:url';
import { ESLint } from 'eslint';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('..', import.meta.url));

async function codes(text: string, file: string): Promise<string[]> {
  const eslint = new ESLint({ cwd: root });
  const [r] = await eslint.lintText(text, { filePath: `${root}${file}` });
  return r!.messages.map((m) => `${m.line}: ${m.message.slice(0, 29)}`);
}

describe('module-level state', () => {
  it('is reported in a pure core folder (src/PART/core) and src/client, not in tables typed Readonly', async () => {
    const text = [
      "import { BoundedMemo } from './memo.ts';",
      'let hits = 0;',
      'const memo = new BoundedMemo<string, number>(8);',
      'const byName = new Map<string, number>();',
      "const TABLE: ReadonlyMap<string, number> = new Map([['a', 1]]);",
      'export function f(k: string): number {',
      '  hits++;',
      '  return (memo.get(k) ?? byName.get(k) ?? TABLE.get(k) ?? 0) + hits;',
      '}',
      '',
    ].join('\n');
    const expected = [
      '2: module-level mutable state in',
      '3: module-level mutable state in',
      '4: module-level mutable state in',
    ];
    expect(await codes(text, 'src/kit/core/example.ts')).toEqual(expected);
    expect(await codes(text, 'src/client/example.ts')).toEqual(expected);
    expect(await codes(text, 'src/authority/example.ts')).toEqual([]);
  }, 60_000);
});
