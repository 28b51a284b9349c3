/** A zone's record in the record model (`core/rr/record.ts`), read by the client's decoder. */
import type { DnsRecord } from '../rr/record.ts';
import { decodeRecordData } from '../wire/response.ts';
import type { ResourceRecord } from './model.ts';

/** `rr` as a record of the model; throws a WireError DNS_BAD_RESPONSE when its RDATA does not read. */
export function recordOf(rr: ResourceRecord): DnsRecord {
  const owner = rr.owner === '.' || !rr.owner.endsWith('.') ? rr.owner : rr.owner.slice(0, -1);
  return decodeRecordData(owner, rr.type, rr.class, rr.ttl, rr.rdata);
}
