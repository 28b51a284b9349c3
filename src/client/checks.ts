/**
 * Checks every transport (UDP, TCP, DoH) applies to a decoded response: does
 * it answer our question (RFC 5452 section 4.3), what an error RCODE means.
 * No Node built-ins.
 */
// The `buffer` package in a browser build (what dns-packet itself imports); Node's own in Node.
import type { Buffer } from 'buffer';
import * as dnsPacket from 'dns-packet';
import type { QueryType } from '../dns/core/rr/types.ts';
import { DnsError } from './errors.ts';
import type { ResolutionCode } from '../ddds/core/codes.ts';
import { sameName, type Message } from './wire.ts';

/**
 * A one-question query with ID 0 and header `flags` (RD, CD), an OPT record
 * of this payload size unless 0 (RFC 6891 6.2.5), DO when asked (RFC 3225 3).
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
 * Why a response does not answer our question (undefined: it does). Error
 * RCODEs may come without a question section; NOERROR/NXDOMAIN must echo it.
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

/** The error of each RCODE, and what the server did with the question `q`. */
const RCODE_ERRORS: Readonly<Record<string, [ResolutionCode, (q: string) => string]>> = {
  SERVFAIL: ['DNS_SERVFAIL', (q) => `answered SERVFAIL for ${q}`],
  REFUSED: [
    'DNS_REFUSED',
    (q) => `refused the query for ${q} (not authoritative, or no recursion for us)`,
  ],
  FORMERR: ['DNS_FORMERR', (q) => `could not parse our query for ${q}`],
  NOTIMP: ['DNS_NOTIMP', (q) => `does not implement this query (${q})`],
};

export function rcodeError(rcode: string, qname: string, qtype: string, server: string): DnsError {
  const [code, what] = RCODE_ERRORS[rcode] ?? ['DNS_RCODE', (q) => `answered ${rcode} for ${q}`];
  return new DnsError(code, `${server} ${what(`${qname} ${qtype}`)}`, { qname, qtype, server });
}
