/**
 * Trust anchors: the built-in root anchors, and a file of DS or DNSKEY
 * records, BIND's `trust-anchors { ... };` or IANA's root-anchors.xml.
 *
 * @see RFC 9718 section 2; RFC 4034 sections 5.3, 2.2
 */
import { parseZoneText } from '../../../dns/core/zone/parser.ts';
import type { TrustAnchor } from './validator.ts';

/** The root KSKs as DS records (IANA root-anchors.xml): KSK-2017 (20326) and KSK-2024 (38696). */
export const ROOT_ANCHORS_TEXT = `. IN DS 20326 8 2 E06D44B80B8F1D39A95C0B0D7C65D08458E880409BBC683457104237C7F8EC8D
. IN DS 38696 8 2 683D2D0ACB8C9B712A1948B27F741219298D0A450D612C483AF444A4C0FB2B16
`;

/** Why an anchor file was refused, with the line. */
export interface AnchorProblem {
  readonly message: string;
  readonly line?: number;
}

function tag(block: string, name: string): string | undefined {
  return new RegExp(`<${name}>\\s*([^<]*?)\\s*</${name}>`).exec(block)?.[1];
}

/** IANA XML to DS lines; KeyDigests past their validUntil at `now` (seconds) are left out. */
function xmlToZone(text: string, now: number): string {
  const zone = tag(text, 'Zone') ?? '.';
  const out: string[] = [];
  for (const m of text.matchAll(/<KeyDigest\b([^>]*)>([\s\S]*?)<\/KeyDigest>/g)) {
    const until = /validUntil="([^"]+)"/.exec(m[1]!)?.[1];
    if (until !== undefined && Date.parse(until) / 1000 < now) continue;
    const f = ['KeyTag', 'Algorithm', 'DigestType', 'Digest'].map((n) => tag(m[2]!, n));
    if (f.some((x) => x === undefined)) continue;
    out.push(`${zone} IN DS ${f.join(' ')}`);
  }
  return out.join('\n');
}

/** BIND's trust-anchors/managed-keys statements to DNSKEY and DS lines. */
function bindToZone(text: string): string {
  const out: string[] = [];
  const re = /"([^"]+)"\s+(static|initial)-(key|ds)\s+(\d+)\s+(\d+)\s+(\d+)\s+"([^"]+)"\s*;/g;
  for (const m of text.matchAll(re)) {
    const owner = m[1]!.endsWith('.') ? m[1]! : `${m[1]!}.`;
    const data = m[7]!.replace(/\s+/g, '');
    out.push(
      m[3] === 'key'
        ? `${owner} IN DNSKEY ${m[4]} ${m[5]} ${m[6]} ${data}`
        : `${owner} IN DS ${m[4]} ${m[5]} ${m[6]} ${data}`,
    );
  }
  return out.join('\n');
}

/** The trust anchors of a file's text (`now` for the XML's validUntil), or what is wrong. */
export function parseTrustAnchors(
  text: string,
  file: string,
  now: number,
): { anchors: TrustAnchor[] } | { problem: AnchorProblem } {
  const zoneText = text.includes('<TrustAnchor')
    ? xmlToZone(text, now)
    : /trust-anchors|managed-keys/.test(text)
      ? bindToZone(text)
      : text;
  const parsed = parseZoneText(zoneText, { origin: '.', file, defaultTtl: 0 });
  const bad = parsed.diagnostics.find((d) => d.severity === 'error');
  if (bad)
    return {
      problem: {
        message: `${bad.code}: ${bad.message}`,
        ...(bad.position ? { line: bad.position.line } : {}),
      },
    };
  const anchors: TrustAnchor[] = [];
  for (const r of parsed.records) {
    if (r.type === 43 || r.type === 48)
      anchors.push({ owner: r.owner, type: r.type === 43 ? 'DS' : 'DNSKEY', rdata: r.rdata });
  }
  if (anchors.length === 0) return { problem: { message: 'no DS or DNSKEY record in the file' } };
  return { anchors };
}
