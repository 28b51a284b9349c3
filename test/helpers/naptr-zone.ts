/**
 * The generated zone of the reload tests and benches: `records` NAPTR
 * records j0..jN-1 under an apex with SOA `serial`, NS and its glue, then
 * `extra` (a record that makes a version differ).
 */
export function naptrZoneText(records: number, serial: number, extra = ''): string {
  const out: string[] = [
    `$TTL 3600\n@ IN SOA ns host ${serial} 3600 600 86400 300\n@ IN NS ns\nns IN A 192.0.2.1\n`,
  ];
  for (let i = 0; i < records; i++)
    out.push(`j${i} IN NAPTR 100 10 "u" "http+N2L" "!^(.*)$!http://r${i}.example/N2L?\\\\1!" .\n`);
  out.push(extra);
  return out.join('');
}
