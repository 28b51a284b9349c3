/**
 * Checks every transport applies to a decoded response (UDP, TCP, DoH): does
 * it answer our question, and what an error RCODE means for the caller. No
 * Node built-ins: the browser build uses them too.
 *
 * @see RFC 5452 section 4.3 (the answer must match the question section)
 */
import { DnsError } from './errors.ts';
import { sameName, type Message } from './wire.ts';

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
