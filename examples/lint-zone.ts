/**
 * Check a zone file on the one zone path of `lexroute serve` and `lexroute
 * zone check` (`zoneFromSource`): load, build, NAPTR lint, `; expect`
 * vectors, and a signed file's RRSIGs and NSEC/NSEC3 chain. What it reports
 * as an error, the server refuses to serve.
 *
 *   node examples/lint-zone.ts zones/lex.senado.gov.br.zone [origin]
 *
 * Prints `file:line:column: CODE message` lines; exits 1 when there is an error.
 */
import { zoneFromSource } from 'lexroute/server';

const [file, origin] = process.argv.slice(2);
if (file === undefined) {
  console.error('usage: lint-zone.ts <zone file> [origin]');
  process.exit(2);
}
const checked = await zoneFromSource(file, origin === undefined ? {} : { origin });
const diagnostics = checked.diagnostics;
for (const d of diagnostics) {
  const where = d.position ? `${d.position.file}:${d.position.line}:${d.position.column}` : file;
  console.log(`${where}: ${d.code} ${d.severity}: ${d.message}`);
}
const errors = diagnostics.filter((d) => d.severity === 'error').length;
console.log(
  `${checked.origin ?? '?'} ${checked.records.length} records: ${errors} errors, ${diagnostics.length - errors} warnings`,
);
process.exitCode = errors > 0 ? 1 : 0;
