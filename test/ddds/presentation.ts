/**
 * Test helper: NAPTR RDATA in master-file presentation form (RFC 1035 section
 * 5.1: quoted character-strings with `\X` and `\DDD` escapes) to a record.
 * Only what the external vector files use; the real zone parser is src/dns/core/zone.
 */
import type { NaptrRecord } from '../../src/ddds/core/step.ts';

function tokens(text: string): string[] {
  const out: string[] = [];
  let i = 0;
  while (i < text.length) {
    const c = text[i];
    if (c === ' ' || c === '\t') {
      i += 1;
      continue;
    }
    if (c === '"') {
      const bytes: number[] = [];
      i += 1;
      while (i < text.length && text[i] !== '"') {
        if (text[i] === '\\') {
          const d = text.slice(i + 1, i + 4);
          if (/^\d{3}$/.test(d)) {
            bytes.push(Number(d));
            i += 4;
          } else {
            bytes.push(...new TextEncoder().encode(text[i + 1] ?? ''));
            i += 2;
          }
        } else {
          const cp = text.codePointAt(i) ?? 0;
          const ch = String.fromCodePoint(cp);
          bytes.push(...new TextEncoder().encode(ch));
          i += ch.length;
        }
      }
      if (text[i] !== '"') throw new Error(`unterminated string in ${text}`);
      i += 1;
      out.push(new TextDecoder('utf-8', { fatal: true }).decode(new Uint8Array(bytes)));
      continue;
    }
    let j = i;
    while (j < text.length && text[j] !== ' ' && text[j] !== '\t') j += 1;
    out.push(text.slice(i, j));
    i = j;
  }
  return out;
}

export function naptrFromPresentation(rdata: string): NaptrRecord {
  const t = tokens(rdata);
  if (t.length !== 6) throw new Error(`expected 6 NAPTR fields in ${rdata}, got ${t.length}`);
  const [order, preference, flags, services, regexp, replacement] = t as [
    string,
    string,
    string,
    string,
    string,
    string,
  ];
  return {
    order: Number(order),
    preference: Number(preference),
    flags,
    services,
    regexp,
    replacement,
  };
}

export function srvFromPresentation(rdata: string): {
  priority: number;
  weight: number;
  port: number;
  target: string;
} {
  const [priority, weight, port, target] = tokens(rdata);
  return {
    priority: Number(priority),
    weight: Number(weight),
    port: Number(port),
    target: target ?? '.',
  };
}
