/**
 * The primary's IXFR difference at reload (`diffZones`, computed in the
 * zone-load worker after the parse): two versions of the changing zone of
 * bench/ixfr-zone.ts (10 records changed) loaded through the zone path, the
 * difference taken R times; its median time beside the load's. Run it in two
 * trees with bench/trees.ts for before/after figures.
 *
 *   node_modules/.bin/node bench/ixfr-diff.ts [--records N] [--runs R]
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { zoneFromSource } from '../src/authority/zones/servable.ts';
import { diffZones } from '../src/xfr/core/diff.ts';
import { changingZone } from './ixfr-zone.ts';
import { median } from './stats.ts';

const { values } = parseArgs({
  options: {
    records: { type: 'string', default: '1000000' },
    runs: { type: 'string', default: '7' },
  },
});
const RECORDS = Number(values.records);
const ORIGIN = 'lex.example.';
const dir = mkdtempSync(join(tmpdir(), 'lexroute-bench-ixfr-diff-'));
process.on('exit', () => rmSync(dir, { recursive: true, force: true }));

async function load(serial: number) {
  const file = join(dir, `v${serial}.zone`);
  writeFileSync(file, changingZone(ORIGIN, RECORDS, serial));
  const t0 = performance.now();
  const r = await zoneFromSource(file, { origin: ORIGIN });
  if (r.zone === undefined) throw new Error(`version ${serial} did not load`);
  return { zone: r.zone, ms: performance.now() - t0 };
}

const v1 = await load(1);
const v2 = await load(2);
const times: number[] = [];
let changes = 0;
for (let i = 0; i < Number(values.runs); i++) {
  const t0 = performance.now();
  const d = diffZones(v1.zone, v2.zone);
  times.push(performance.now() - t0);
  changes = d.removed.length + d.added.length;
}
console.log(`zone of ${RECORDS + 4} records, ${changes} records in the difference`);
console.log(`load (read, parse, build, checks): ${v2.ms.toFixed(0)} ms`);
console.log(`difference (diffZones): median ${median(times).toFixed(1)} ms`);
