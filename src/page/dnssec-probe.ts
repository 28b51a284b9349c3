/**
 * The page's default when the serving resolver hands it no trust anchor:
 * one DoH query, `. DNSKEY` with DO set; when the root comes back signed,
 * the page validates from the built-in root anchors, else not at all.
 */
import { DohTransport } from '../client/doh.ts';
import { StubResolver } from '../client/stub.ts';

/** Does `doh` serve the root signed (a DNSKEY RRset for `.`, asked with DO)? */
export async function dohServesSignedRoot(doh: string): Promise<boolean> {
  const transport = new DohTransport({
    urls: [doh],
    dnssecOk: true,
    tries: 1,
    fetch: (input, init) => globalThis.fetch(input, init),
  });
  try {
    const r = await new StubResolver(transport, { servers: [] }).lookup('.', 'DNSKEY');
    return r.records.length > 0;
  } catch {
    return false;
  }
}
