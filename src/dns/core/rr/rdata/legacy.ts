/**
 * RDATA of old types still found in zone corpora:
 * - WKS (RFC 1035 section 3.4.2): address, protocol (number, tcp or udp),
 *   services as ports or common service names; printed with numbers, as BIND.
 * - A6 (RFC 2874 section 3.1): prefix length, the suffix in as few octets as
 *   hold it, the prefix name.
 * - NXT (RFC 2535 section 5.2): a bitmap of types 1-127, trailing zeros left out.
 * - ATMA: format 0 an NSAP address in hex, format 1 an E.164 `+number`.
 * - ISDN (RFC 1183 section 3.2): one or two strings.
 * - NSAP (RFC 1706 section 5): `0x` then hex, dots allowed.
 * SINK stays generic-only: BIND and NSD read two different drafts of it.
 */
import { TOKEN_QUOTED } from '../../zone/lexer.ts';
import { nameToText, wireNameLength } from '../../zone/names.ts';
import {
  checkWire,
  encodeFields,
  extra,
  fail,
  fieldsText,
  ipv4Text,
  ipv6Text,
  parseIpv6,
  parseUint,
  toHex,
  typeNumber,
  writeAddress,
  writeHexToken,
  writeNameToken,
  type FieldKind,
  type RdataCodec,
} from './layout.ts';
import { typeName } from '../types.ts';

/** Service names of common ports, for WKS (BIND asks the system's table; a fixed one keeps the core pure). */
const SERVICES: ReadonlyMap<string, number> = new Map([
  ['echo', 7],
  ['discard', 9],
  ['daytime', 13],
  ['ftp-data', 20],
  ['ftp', 21],
  ['ssh', 22],
  ['telnet', 23],
  ['smtp', 25],
  ['time', 37],
  ['whois', 43],
  ['nicname', 43],
  ['domain', 53],
  ['tftp', 69],
  ['gopher', 70],
  ['finger', 79],
  ['http', 80],
  ['www', 80],
  ['kerberos', 88],
  ['pop3', 110],
  ['sunrpc', 111],
  ['auth', 113],
  ['nntp', 119],
  ['ntp', 123],
  ['imap', 143],
  ['snmp', 161],
  ['snmp-trap', 162],
  ['bgp', 179],
  ['ldap', 389],
  ['https', 443],
  ['submission', 587],
  ['ldaps', 636],
  ['domain-s', 853],
  ['imaps', 993],
  ['pop3s', 995],
]);

export const WKS_CODEC: RdataCodec = {
  parse(lex, first, _origin, w) {
    const text = lex.text;
    if (!writeAddress(text, lex.starts[first]!, lex.ends[first]!, 4, w))
      return fail('ZONE_BAD_IPV4', 'expected an IPv4 address (RFC 1035 section 3.4.2)', first);
    const t = first + 1;
    if (t >= lex.count) return fail('ZONE_MISSING_RDATA', 'WKS RDATA is missing its protocol', -1);
    const word = lex.token(t).toLowerCase();
    const proto =
      word === 'tcp' ? 6 : word === 'udp' ? 17 : parseUint(text, lex.starts[t]!, lex.ends[t]!, 255);
    if (proto < 0) return fail('ZONE_BAD_NUMBER', 'the protocol is a number 0-255, tcp or udp', t);
    w.u8(proto);
    const bits = new Uint8Array(8192);
    let len = 0;
    for (let s = t + 1; s < lex.count; s++) {
      let port =
        lex.flags[s]! & TOKEN_QUOTED ? -1 : parseUint(text, lex.starts[s]!, lex.ends[s]!, 65535);
      if (port === -1) port = SERVICES.get(lex.token(s).toLowerCase()) ?? -1;
      if (port < 0)
        return fail(
          'ZONE_BAD_NUMBER',
          'a service is a port number 0-65535 or a common IANA service name (domain, smtp, http ...)',
          s,
        );
      bits[port >> 3]! |= 0x80 >> (port & 7);
      len = Math.max(len, (port >> 3) + 1);
    }
    w.bytes(bits, 0, len);
    return undefined;
  },
  check: (b) => (b.length >= 5 ? undefined : 'WKS RDATA is at least 5 octets'),
  print(b) {
    // A bit map with trailing zero octets has no presentation that reads back to it.
    if (b.length > 5 && b[b.length - 1] === 0) return undefined;
    const parts = [ipv4Text(b, 0), String(b[4])];
    for (let i = 5; i < b.length; i++)
      for (let bit = 0; bit < 8; bit++)
        if (b[i]! & (0x80 >> bit)) parts.push(String((i - 5) * 8 + bit));
    return parts.join(' ');
  },
};

export const A6_CODEC: RdataCodec = {
  parse(lex, first, origin, w) {
    const len =
      lex.flags[first]! & TOKEN_QUOTED
        ? -1
        : parseUint(lex.text, lex.starts[first]!, lex.ends[first]!, 128);
    if (len < 0)
      return fail('ZONE_BAD_NUMBER', 'the A6 prefix length is 0-128 (RFC 2874 section 3.1)', first);
    w.u8(len);
    let t = first + 1;
    const octets = Math.ceil((128 - len) / 8);
    if (octets > 0) {
      if (t >= lex.count)
        return fail('ZONE_MISSING_RDATA', 'A6 RDATA is missing its address suffix', -1);
      const addr = new Uint8Array(16);
      if (!parseIpv6(lex.text, lex.starts[t]!, lex.ends[t]!, addr, 0))
        return fail('ZONE_BAD_IPV6', 'the A6 address suffix is an IPv6 address', t);
      for (let i = 16 - octets; i < 16; i++) w.u8(addr[i]!);
      t++;
    }
    if (len > 0) {
      if (t >= lex.count)
        return fail('ZONE_MISSING_RDATA', 'A6 RDATA is missing its prefix name', -1);
      const problem = writeNameToken(lex, t, origin, w);
      if (problem) return problem;
      t++;
    }
    return extra(lex, t, 'A6 RDATA');
  },
  check(b) {
    if (b.length < 1 || b[0]! > 128) return 'A6 prefix length is 0-128';
    const p = 1 + Math.ceil((128 - b[0]!) / 8);
    if (b[0] === 0) return p === b.length ? undefined : 'A6 RDATA length';
    return p < b.length && wireNameLength(b, p, b.length) === b.length - p
      ? undefined
      : 'malformed A6 RDATA';
  },
  print(b) {
    const octets = Math.ceil((128 - b[0]!) / 8);
    const addr = new Uint8Array(16);
    addr.set(b.subarray(1, 1 + octets), 16 - octets);
    const parts = [String(b[0])];
    if (octets > 0) parts.push(ipv6Text(addr, 0));
    if (b[0]! > 0) parts.push(nameToText(b, 1 + octets, false));
    return parts.join(' ');
  },
};

export const NXT_CODEC: RdataCodec = {
  parse(lex, first, origin, w) {
    const problem = writeNameToken(lex, first, origin, w);
    if (problem) return problem;
    const bits = new Uint8Array(16);
    let len = 0;
    for (let t = first + 1; t < lex.count; t++) {
      let v = typeNumber(lex.text, lex.starts[t]!, lex.ends[t]!);
      // BIND prints a type without a mnemonic as a bare number in NXT.
      if (v < 0) v = parseUint(lex.text, lex.starts[t]!, lex.ends[t]!, 65535);
      if (v < 1 || v > 127)
        return fail('ZONE_BAD_TYPE', 'an NXT bit map holds types 1-127 (RFC 2535 section 5.2)', t);
      bits[v >> 3]! |= 0x80 >> (v & 7);
      len = Math.max(len, (v >> 3) + 1);
    }
    for (let i = 0; i < len; i++) w.u8(bits[i]!);
    return undefined;
  },
  check(b) {
    const n = wireNameLength(b, 0, b.length);
    if (n < 0) return 'malformed next domain name';
    if (b.length - n > 16) return 'NXT bit map longer than 16 octets';
    if (n < b.length && b[n]! & 0x80) return 'NXT bit 0 is set';
    return undefined;
  },
  print(b) {
    const n = wireNameLength(b, 0, b.length);
    if (n < b.length && b[b.length - 1] === 0) return undefined;
    const parts = [nameToText(b, 0, false)];
    for (let i = n; i < b.length; i++)
      for (let bit = 0; bit < 8; bit++)
        if (b[i]! & (0x80 >> bit)) parts.push(typeName((i - n) * 8 + bit));
    return parts.join(' ');
  },
};

export const ATMA_CODEC: RdataCodec = {
  parse(lex, first, _origin, w) {
    const text = lex.token(first).replaceAll('.', '');
    if (text.startsWith('+')) {
      if (!/^\+[0-9]+$/.test(text))
        return fail('ZONE_BAD_RDATA', 'an E.164 ATM address is + and digits (dots allowed)', first);
      w.u8(1);
      for (let i = 1; i < text.length; i++) w.u8(text.charCodeAt(i));
    } else {
      if (text.length === 0 || text.length % 2 || !/^[0-9a-fA-F]+$/.test(text))
        return fail(
          'ZONE_BAD_RDATA',
          'an NSAP ATM address is hexadecimal octets (dots allowed)',
          first,
        );
      w.u8(0);
      writeHexToken(text, 0, text.length, w);
    }
    return extra(lex, first + 1, 'ATMA address');
  },
  check: (b) => (b.length >= 2 ? undefined : 'ATMA RDATA is a format and an address'),
  print(b) {
    if (b[0] === 0) return toHex(b.subarray(1), false);
    if (b[0] !== 1) return undefined;
    let s = '+';
    for (let i = 1; i < b.length; i++) {
      if (b[i]! < 0x30 || b[i]! > 0x39) return undefined;
      s += String.fromCharCode(b[i]!);
    }
    return s;
  },
};

const ONE: readonly FieldKind[] = ['cstr'];
const TWO: readonly FieldKind[] = ['cstr', 'cstr'];

export const ISDN_CODEC: RdataCodec = {
  parse: (lex, first, origin, w, type) =>
    encodeFields(lex, first, type, lex.count - first > 1 ? TWO : ONE, origin, w),
  check: (b) => checkWire(ONE, b) && checkWire(TWO, b),
  print: (b) => fieldsText(checkWire(ONE, b) ? TWO : ONE, b),
};

export const NSAP_CODEC: RdataCodec = {
  parse(lex, first, _origin, w) {
    const text = lex.token(first);
    const bad = fail(
      'ZONE_BAD_RDATA',
      'an NSAP address is 0x followed by hexadecimal octets, dots allowed between digits (RFC 1706 section 5)',
      first,
    );
    if (!/^0[xX]/.test(text)) return bad;
    const digits = text.slice(2).replaceAll('.', '');
    if (digits.length === 0 || !writeHexToken(digits, 0, digits.length, w)) return bad;
    return extra(lex, first + 1, 'NSAP address');
  },
  check: (b) => (b.length > 0 ? undefined : 'empty NSAP address'),
  print: (b) => `0x${toHex(b, false)}`,
};
