/**
 * A zone's record in the record model (`core/rr/record.ts`): the zone keeps
 * `{type, rdata bytes}` (its store's rows), and a user who wants the fields
 * (`order`, `target`, ...) gets them from the decoder the client reads
 * responses with, so one model serves both layers (issue 19).
 */
import type { DnsRecord } from '../rr/record.ts';
import { decodeRecordData } from '../wire/response.ts';
import type { ResourceRecord } from './model.ts';

/**
 * `rr` as a record of the model. The owner is written as the model writes
 * names (no final dot). Throws a WireError (code DNS_BAD_RESPONSE) when the
 * RDATA does not read as its type (the zone parser never builds such RDATA).
 */
export function recordOf(rr: ResourceRecord): DnsRecord {
  const owner = rr.owner === '.' || !rr.owner.endsWith('.') ? rr.owner : rr.owner.slice(0, -1);
  return decodeRecordData(owner, rr.type, rr.class, rr.ttl, rr.rdata);
}
