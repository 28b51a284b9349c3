/**
 * Checks every transport applies to a decoded response (UDP, TCP, DoH): does
 * it answer our question, and what an error RCODE means for the caller. No
 * Node built-ins: the browser build uses them too.
 *
 * @see RFC 5452 section 4.3 (the answer must match the question section)
 */
// The `buffer` package in a browser build (what dns-packet itself imports); Node's own in Node.
import type { Buffer } from 'buffer';
import * as dnsPacket from 'dns-packet';
import type { QueryType } from '../dns/core/rr/types.ts';
import { DnsError } from './errors.ts';
import { sameName, type Message } from './wire.ts';

/**
 * A one-question query with ID 0 and header `flags` (RD, CD), with an OPT
 * record of this UDP payload size unless it is 0, DO set when asked.
 *
 * @see RFC 6891 section 6.2.5 (the requestor's UDP payload size)
 * @see RFC 3225 section 3 (the DO bit is the top bit of the OPT TTL's flags)
 */
export function encodeQuery(
  qname: string,
  qtype: QueryType,
  flags: number,
  payloadSize: number,
  dnssecOk: boolean,
): Buffer {
  return dnsPacket.encode({
    type: 'query',
    id: 0,
    flags,
    questions: [{ type: qtype, name: qname, class: 'IN' }],
    additionals:
      payloadSize > 0
        ? [
            {
              type: 'OPT',
              name: '.',
              udpPayloadSize: payloadSize,
              extendedRcode: 0,
              ednsVersion: 0,
              flags: dnssecOk ? 0x8000 : 0,
              flag_do: dnssecOk,
              options: [],
            },
          ]
        : [],
  });
}

export function abortError(qname: string, qtype: string, server?: string): DnsError {
  const ctx = server === undefined ? { qname, qtype } : { qname, qtype, server };
  return new DnsError('DNS_ABORTED', `query for ${qname} ${qtype} was aborted`, ctx);
}

const SEVERITY: Record<string, number> = {
  DNS_TIMEOUT: 1,
  DNS_NETWORK: 2,
  DNS_BAD_RESPONSE: 3,
  DNS_DOH_STATUS: 3,
};

/** How informative a failure is: an RCODE (4) beats malformed beats network beats timeout. */
export function severity(e: DnsError): number {
  return SEVERITY[e.code] ?? 4;
}

/** The more informative of two failures (the later one on a tie). */
export function pickWorse(a: DnsError | undefined, b: DnsError): DnsError {
  return a === undefined || severity(b) >= severity(a) ? b : a;
}

/**
 * Why a decoded response does not answer our question, or undefined when it
 * does. FORMERR/NOTIMP/REFUSED/SERVFAIL may come without a question section
 * (RFC 1035 leaves it to the server); any other response must echo it.
 */
export function questionMismatch(m: Message, qname: string, qtype: string): string | undefined {
  const q = m.questions[0];
  if (m.questions.length === 0) {
    if (m.rcode !== 'NOERROR' && m.rcode !== 'NXDOMAIN') return undefined;
    return 'response has no question section';
  }
  if (m.questions.length !== 1 || !q) return `response has ${m.questions.length} questions`;
  if (!sameName(q.name, qname)) return `response is for name '${q.name}', not '${qname}'`;
  if (q.type !== qtype) return `response is for type ${q.type}, not ${qtype}`;
  if ((q.class ?? 'IN') !== 'IN') return `response is for class ${q.class}, not IN`;
  return undefined;
}

export function rcodeError(rcode: string, qname: string, qtype: string, server: string): DnsError {
  const ctx = { qname, qtype, server };
  switch (rcode) {
    case 'SERVFAIL':
      return new DnsError('DNS_SERVFAIL', `${server} answered SERVFAIL for ${qname} ${qtype}`, ctx);
    case 'REFUSED':
      return new DnsError(
        'DNS_REFUSED',
        `${server} refused the query for ${qname} ${qtype} (not authoritative, or no recursion for us)`,
        ctx,
      );
    case 'FORMERR':
      return new DnsError(
        'DNS_FORMERR',
        `${server} could not parse our query for ${qname} ${qtype}`,
        ctx,
      );
    case 'NOTIMP':
      return new DnsError(
        'DNS_NOTIMP',
        `${server} does not implement this query (${qname} ${qtype})`,
        ctx,
      );
    default:
      return new DnsError('DNS_RCODE', `${server} answered ${rcode} for ${qname} ${qtype}`, ctx);
  }
}
