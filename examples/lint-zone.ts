/**
 * Load a zone file as `lexroute serve` does, lint its NAPTR records and run
 * its `; expect` vectors, as `lexroute zone check` does.
 *
 *   node examples/lint-zone.ts zones/lex.senado.gov.br.zone [origin]
 *
 * Prints `file:line:column: CODE message` lines; exits 1 when there is an error.
 */
import { checkExpectations, lintNaptrRecords, loadZoneFile } from 'lexroute/zone';

const [file, origin] = process.argv.slice(2);
if (file === undefined) {
  console.error('usage: lint-zone.ts <zone file> [origin]');
  process.exit(2);
}
const loaded = await loadZoneFile(file, origin === undefined ? {} : { origin });
const diagnostics = [
  ...loaded.diagnostics,
  ...lintNaptrRecords(loaded.records),
  ...checkExpectations(loaded.expects, loaded.records),
];
for (const d of diagnostics) {
  const where = d.position ? `${d.position.file}:${d.position.line}:${d.position.column}` : file;
  console.log(`${where}: ${d.code} ${d.severity}: ${d.message}`);
}
const errors = diagnostics.filter((d) => d.severity === 'error').length;
console.log(
  `${loaded.origin ?? '?'} ${loaded.records.length} records: ${errors} errors, ${diagnostics.length - errors} warnings`,
);
process.exitCode = errors > 0 ? 1 : 0;
