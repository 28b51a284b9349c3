/**
 * A jurisdiction resolver (THTTP, RFC 2169) embedded in a program: a SQLite
 * catalogue filled from JSON Lines rows, served over HTTP on a free port.
 *
 *   node examples/embedded-resolver.ts [catalogue.jsonl] [--keep]
 *
 * Without a file it uses the sample catalogue shipped with lexroute. It asks
 * itself for one URN (N2L), prints the answer, and stops, unless --keep is
 * given (then it serves until Ctrl-C).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { analyseLexUrn, BUNDLED_SAMPLE, importFile, SqliteCatalogue } from 'lexroute/catalogue';
import { createResolverApp, DEFAULT_RESOLVER_CONFIG, startResolverServer } from 'lexroute/resolver';

const args = process.argv.slice(2);
const keep = args.includes('--keep');
const rows = args.find((a) => !a.startsWith('--')) ?? BUNDLED_SAMPLE;

const dir = mkdtempSync(join(tmpdir(), 'lexroute-example-'));
const store = new SqliteCatalogue(join(dir, 'catalogue.sqlite'));
const summary = await importFile(store, rows, {
  analyse: analyseLexUrn,
  onError: (e) => console.error(`line ${e.line}: ${e.code} ${e.message}`),
});
console.log(`imported ${summary.rows} rows from ${rows}`);

const app = createResolverApp({
  reader: store,
  analyse: analyseLexUrn,
  config: DEFAULT_RESOLVER_CONFIG,
});
const resolver = await startResolverServer({ app, host: '127.0.0.1', port: 0 });
console.log(`resolver listening on ${resolver.url}`);

const urn = 'urn:lex:it:stato:legge:2000-04-03;56~art1';
const answer = await fetch(`${resolver.url}/uri-res/N2L?${urn}`, { redirect: 'manual' });
console.log(`N2L ${urn} -> ${answer.status} ${answer.headers.get('location') ?? ''}`);

async function stop(): Promise<void> {
  await resolver.close();
  store.close();
  rmSync(dir, { recursive: true, force: true });
}
if (keep) {
  process.once('SIGINT', () => void stop());
  process.once('SIGTERM', () => void stop());
} else {
  await stop();
}
