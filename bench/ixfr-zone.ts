/**
 * The zone the IXFR benches change (bench/secondary.ts, bench/ixfr-primary.ts):
 * `records` NAPTR records, and for each new serial a change of 10 records:
 * the `vSERIAL` name replaced and 9 more `unit-N` records given a new target.
 */

/** Units given a new target per version (with the `vSERIAL` name: 10 records). */
export const CHANGED_PER_VERSION = 9;

/** The zone text of version `serial` (the first 9 * (serial - 1) units changed). */
export function changingZone(origin: string, records: number, serial: number): string {
  const lines = [
    `$ORIGIN ${origin}`,
    '$TTL 3600',
    `@ IN SOA ns1 hostmaster ${serial} 3600 900 604800 300`,
    '@ IN NS ns1',
    'ns1 IN A 192.0.2.1',
    `v${serial} IN NAPTR 100 10 "u" "http+N2L" "!^(.*)$!https://v${serial}.example/?\\\\1!" .`,
  ];
  const changedBelow = CHANGED_PER_VERSION * (serial - 1);
  for (let n = 0; n < records; n++)
    lines.push(
      `unit-${n} IN NAPTR 200 10 "u" "http+N2L" "!^(.*)$!https://${n < changedBelow ? 'c' : 'r'}${n % 97}.example/N2L?\\\\1!" .`,
    );
  return `${lines.join('\n')}\n`;
}
