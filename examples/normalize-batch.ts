/**
 * Parse and normalise LEX URNs, one per line, from a file or standard input,
 * and print one JSON line per URN: the canonical form and the rules that
 * changed the input, or the errors with their codes and one-based columns.
 *
 *   node examples/normalize-batch.ts urns.txt
 *   printf 'URN:LEX:IT:Stato:Legge:2000-04-03;56\n' | node examples/normalize-batch.ts
 */
import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';
import { normalizeLexUrn, splitPartition } from 'lexroute/urn';

const input = process.argv[2] === undefined ? process.stdin : createReadStream(process.argv[2]);
let invalid = 0;
for await (const line of createInterface({ input, crlfDelay: Infinity })) {
  const text = line.trim();
  if (text === '' || text.startsWith('#')) continue;
  const r = normalizeLexUrn(text);
  if (r.ok) {
    const changes = r.changes.map((c) => c.rule);
    const { partition } = splitPartition(r.canonical);
    console.log(JSON.stringify({ input: text, canonical: r.canonical, changes, partition }));
  } else {
    invalid++;
    const errors = r.errors.map((e) => ({
      code: e.code,
      column: e.span.start + 1,
      message: e.message,
    }));
    console.log(JSON.stringify({ input: text, errors }));
  }
}
process.exitCode = invalid > 0 ? 1 : 0;
