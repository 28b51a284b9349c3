/**
 * Cross-check with BIND: every syntax vector (test/vectors/zonefile/syntax.json)
 * and sample zone (test/vectors/zonefile/zones/) is given to named-checkzone
 * in the same file we load. Where both load it, `named-compilezone -o -` and
 * `lexroute zone print` must give the same records. Where we reject a file,
 * BIND must reject it too, except the differences listed with their reason.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { zoneCommand } from '../../src/cli/commands/zone.ts';
import type { ResourceRecord } from '../../src/dns/core/zone/model.ts';
import { parseZoneText } from '../../src/dns/core/zone/parser.ts';
import { loadZoneText } from '../../src/authority/zones/load.ts';
import { captureIo } from '../helpers/io.ts';
import { toolOrSkip } from '../helpers/tools.ts';

interface Vector {
  name: string;
  zone: string;
  origin?: string;
  defaultTtl?: number;
  errors?: unknown[];
}
const vectors = JSON.parse(
  readFileSync(new URL('../vectors/zonefile/syntax.json', import.meta.url), 'utf8'),
) as Vector[];
const ZONES = new URL('../vectors/zonefile/zones/', import.meta.url).pathname;

const checkzone = toolOrSkip('named-checkzone');
const compilezone = toolOrSkip('named-compilezone');
const dir = mkdtempSync(join(tmpdir(), 'lexroute-bind-'));

/** Vectors whose file we reject while BIND loads it, and why. */
const WE_REJECT_BIND_LOADS: Record<string, string> = {
  '$GENERATE is not supported': '$GENERATE is a BIND extension',
  'type needing the generic form':
    'SINK is read only in RFC 3597 form (two drafts disagree on its fields: BIND reads meaning coding subcoding data, NSD coding subcoding data); BIND reads its presentation form',
  'non-ASCII in a name':
    'BIND takes raw UTF-8 octets as label octets; the zone model has one spelling per name, so we require A-labels or \\DDD',
};

const key = (r: ResourceRecord) =>
  `${r.owner} ${r.type} ${r.ttl} ${Buffer.from(r.rdata).toString('hex')}`;

/** The vector as a whole zone: apex SOA, NS and glue around it when it has none. */
function asZone(v: Vector): { text: string; apex: string } {
  const ours = parseZoneText(v.zone, {
    ...(v.origin ? { origin: v.origin } : {}),
    ...(v.defaultTtl !== undefined ? { defaultTtl: v.defaultTtl } : {}),
  });
  const soa = ours.records.find((r) => r.type === 6);
  const apex = soa ? soa.owner : '.';
  let text = soa ? '' : '. 1 IN SOA a. b. 1 1 1 1 1\n. 1 IN NS a.\na. 1 IN A 192.0.2.1\n';
  if (v.origin) text += `$ORIGIN ${v.origin}.\n`;
  if (v.defaultTtl !== undefined) text += `$TTL ${v.defaultTtl}\n`;
  text += v.zone.replace(/^\ufeff/, ''); // a BOM only counts at the start of a file
  if (soa) text += `\n${apex} 1 IN NS a.${apex}\na.${apex} 1 IN A 192.0.2.1\n`;
  return { text, apex };
}

async function compareWithBind(file: string, apex: string, text: string, name: string) {
  // 1. Verdict: named-checkzone with its default integrity checks against our loader.
  const bind = spawnSync(checkzone.path!, ['-k', 'ignore', apex, file], { encoding: 'utf8' });
  const ours = loadZoneText(text, file, { origin: apex, allowInclude: false });
  const weLoad = ours.zone !== undefined;
  const bindLoads = bind.status === 0;
  if (WE_REJECT_BIND_LOADS[name]) {
    expect(weLoad).toBe(false);
    expect(bindLoads, WE_REJECT_BIND_LOADS[name]).toBe(true);
    return;
  }
  expect(
    weLoad,
    `BIND: ${bind.stdout}\nours: ${ours.diagnostics.map((d) => `${d.code} ${d.message}`).join('\n')}`,
  ).toBe(bindLoads);
  if (!bindLoads) {
    // Both refuse it; BIND's reason is in its output.
    expect(bind.stdout.length).toBeGreaterThan(0);
    return;
  }
  // 2. Records: BIND's canonical dump (no zone-level checks) against our
  // parse, both read back; when the zone loads, also against zone print.
  const compiled = spawnSync(
    compilezone.path!,
    ['-i', 'none', '-k', 'ignore', '-q', '-o', '-', apex, file],
    { encoding: 'utf8' },
  );
  expect(compiled.status).toBe(0);
  const fromBind = parseZoneText(compiled.stdout, { origin: apex, file: 'named-compilezone' });
  expect(fromBind.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
  const parsed = parseZoneText(text, { origin: apex, file });
  expect(parsed.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
  expect(parsed.records.map(key).sort()).toEqual(fromBind.records.map(key).sort());
  if (!weLoad) return;
  const io = captureIo();
  expect(await zoneCommand.run(['print', '--origin', apex, file], io)).toBe(0);
  const fromUs = parseZoneText(io.stdout(), { file: 'zone print' });
  expect(fromUs.diagnostics).toEqual([]);
  expect(fromUs.records.map(key).sort()).toEqual(fromBind.records.map(key).sort());
}

describe.skipIf(!checkzone.path || !compilezone.path)('BIND cross-check', () => {
  for (const v of vectors) {
    it(`vector: ${v.name}`, async () => {
      const { text, apex } = asZone(v);
      const file = join(dir, `v${vectors.indexOf(v)}.zone`);
      writeFileSync(file, text);
      await compareWithBind(file, apex, text, v.name);
    });
  }
  it('sample zone example.zone (the worked LEX chain)', async () => {
    const file = `${ZONES}example.zone`;
    await compareWithBind(file, 'example.', readFileSync(file, 'utf8'), 'example.zone');
  });
  it('sample zone bad.example.zone: BIND refuses its bad REGEXPs too, our loader leaves those to the lint', () => {
    // The file is valid master-file syntax, so our loader builds it and the NAPTR
    // lint (zone check) reports the REGEXP errors; BIND's NAPTR reader checks
    // REGEXP syntax itself and refuses the file at load.
    const file = `${ZONES}bad.example.zone`;
    const bind = spawnSync(checkzone.path!, ['-i', 'none', '-k', 'ignore', 'bad.example.', file], {
      encoding: 'utf8',
    });
    expect(bind.status).not.toBe(0);
    expect(bind.stdout).toMatch(/bad\.example\.zone:13: syntax error/);
  });
});
