/**
 * Cost of decoding one DNS response in the client: the hand-written decoder
 * (src/dns/core/wire/response.ts, what decodeResponse uses; into the record
 * model of core/rr/record.ts since issue 19) next to the decoder it replaced (dns-packet's per-record `answer.decode` plus the RDLENGTH
 * check, kept verbatim below), on the same realistic responses, in
 * interleaved rounds.
 *
 * The responses are the lexroute server's own (Engine.respond on sample-shaped
 * zones, no sockets) to the queries the client sends (EDNS 1232): NAPTR
 * answers of 1, 2 and 3 records as in the LEX chain, an SRV answer, an A
 * answer, a referral with NS and glue, and an NXDOMAIN with the SOA. Both
 * decoders get the query's KnownQuestion, as on the client's UDP path, and
 * the two outputs are checked equal before timing (the model through the
 * deprecated dns-packet adapter of src/client/compat.ts).
 *
 * Usage: node bench/client-decode.ts [rounds=9] [ms-per-side-per-round=300]
 * (run under the shared lock: flock /tmp/lexroute-bench.lock node bench/client-decode.ts)
 */
import { isDeepStrictEqual } from 'node:util';
import * as dnsPacket from 'dns-packet';
import type { Answer, Question } from 'dns-packet';
import { decodeResponse, knownQuestion, type KnownQuestion } from '../src/client/wire.ts';
import { asDnsPacket } from '../test/client/helpers/as-dns-packet.ts';
import { Engine, TRANSPORT_UDP } from '../src/authority/engine.ts';
import { loadZoneText } from '../src/authority/zones/load.ts';
import { median } from './stats.ts';

const ROUNDS = Number(process.argv[2] ?? 9);
const MS = Number(process.argv[3] ?? 300);

// ---------------------------------------------------------------------------
// The previous decodeResponse (src/client/wire.ts before the hand decoder).

interface RecordCodec {
  decode: ((buf: Buffer, offset: number) => Answer) & { bytes: number };
}
interface QuestionCodec {
  decode: ((buf: Buffer, offset: number) => Question) & { bytes: number };
}
const lib = dnsPacket as unknown as { answer: RecordCodec; question: QuestionCodec };
const RCODE_NAMES = ['NOERROR', 'FORMERR', 'SERVFAIL', 'NXDOMAIN', 'NOTIMP', 'REFUSED'];
const OPCODE_NAMES = ['QUERY', 'IQUERY', 'STATUS', 'OPCODE3', 'NOTIFY', 'UPDATE'];

class OldWireError extends Error {
  readonly code: string;
  constructor(code: string, message: string) {
    super(message);
    this.code = code;
  }
}

function oldSkipName(buf: Buffer, start: number): number {
  let o = start;
  for (;;) {
    if (o >= buf.length) throw new OldWireError('DNS_BAD_RESPONSE', `name at byte ${start}`);
    const len = buf[o] as number;
    if (len === 0) return o + 1 - start;
    if ((len & 0xc0) === 0xc0) {
      if (o + 1 >= buf.length) throw new OldWireError('DNS_BAD_RESPONSE', `pointer at ${o}`);
      return o + 2 - start;
    }
    if ((len & 0xc0) !== 0) throw new OldWireError('DNS_BAD_RESPONSE', `bad label at ${o}`);
    o += len + 1;
  }
}

/** The question we asked as dns-packet decodes it (what the old decoder reused). */
interface OldKnown {
  readonly wire: Buffer;
  readonly length: number;
  readonly question: Question;
}

function oldKnownQuestion(wire: Buffer): OldKnown {
  const question = lib.question.decode(wire, 12);
  return { wire, length: lib.question.decode.bytes, question };
}

function oldDecodeResponse(buf: Buffer, maxRecords: number, known?: OldKnown): unknown {
  if (buf.length < 12) throw new OldWireError('DNS_BAD_RESPONSE', 'no header');
  const flags = buf.readUInt16BE(2);
  const qdcount = buf.readUInt16BE(4);
  const counts = [buf.readUInt16BE(6), buf.readUInt16BE(8), buf.readUInt16BE(10)];
  const total = (counts[0] ?? 0) + (counts[1] ?? 0) + (counts[2] ?? 0);
  if (total > maxRecords) throw new OldWireError('DNS_RRSET_TOO_LARGE', 'too many');
  let offset = 12;
  const questions: Question[] = [];
  try {
    if (
      known !== undefined &&
      qdcount === 1 &&
      buf.length >= 12 + known.length &&
      buf.compare(known.wire, 12, 12 + known.length, 12, 12 + known.length) === 0
    ) {
      questions.push(known.question);
      offset += known.length;
    } else {
      for (let i = 0; i < qdcount; i++) {
        questions.push(lib.question.decode(buf, offset));
        offset += lib.question.decode.bytes;
      }
    }
    const sections: Answer[][] = [[], [], []];
    for (let s = 0; s < 3; s++) {
      const list = sections[s] as Answer[];
      const count = counts[s] ?? 0;
      for (let i = 0; i < count; i++) {
        const start = offset;
        const nameBytes = oldSkipName(buf, start);
        const fixed = start + nameBytes;
        if (fixed + 10 > buf.length) throw new OldWireError('DNS_BAD_RESPONSE', 'cut short');
        const rdlength = buf.readUInt16BE(fixed + 8);
        const end = fixed + 10 + rdlength;
        if (end > buf.length) throw new OldWireError('DNS_BAD_RESPONSE', 'past the end');
        const rr = lib.answer.decode(buf, start);
        if (start + lib.answer.decode.bytes !== end) {
          throw new OldWireError('DNS_BAD_RESPONSE', `${rr.type} RDATA/RDLENGTH`);
        }
        list.push(rr);
        offset = end;
      }
    }
    return {
      id: buf.readUInt16BE(0),
      qr: (flags & 0x8000) !== 0,
      opcode: OPCODE_NAMES[(flags >> 11) & 0xf] ?? `OPCODE${(flags >> 11) & 0xf}`,
      aa: (flags & 0x0400) !== 0,
      tc: (flags & 0x0200) !== 0,
      rd: (flags & 0x0100) !== 0,
      ra: (flags & 0x0080) !== 0,
      ad: (flags & 0x0020) !== 0,
      rcode: RCODE_NAMES[flags & 0xf] ?? `RCODE${flags & 0xf}`,
      questions,
      answers: sections[0],
      authorities: sections[1],
      additionals: sections[2],
    };
  } catch (e) {
    if (e instanceof OldWireError) throw e;
    throw new OldWireError('DNS_BAD_RESPONSE', `malformed at ${offset}: ${(e as Error).message}`);
  }
}

// ---------------------------------------------------------------------------
// Realistic responses from the server engine.

const SOA = (o: string) =>
  `@ IN SOA ns.${o}. hostmaster.${o}. 1 7200 3600 1209600 300\n@ IN NS ns.${o}.\nns IN A 127.0.0.1\n`;
const ZONES: Record<string, string> = {
  'urn.arpa.': `$TTL 3600\n${SOA('urn.arpa')}lex IN NAPTR 100 10 "" "" "" lex-nameserver.nic.it.\n`,
  'nic.it.':
    `$TTL 3600\n${SOA('nic.it')}` +
    `lex-nameserver IN NAPTR 100 10 "" "" "!^urn:lex:br[;:].*$!lex.senado.gov.br!i" .\n` +
    `lex-nameserver IN NAPTR 100 10 "" "" "!^urn:lex:it[;:].*$!lex.normattiva.example.it!i" .\n` +
    `lex-nameserver IN NAPTR 100 10 "" "" "!^urn:lex:de[;:].*$!lex.example.de!i" .\n`,
  'lex.senado.gov.br.':
    `$TTL 3600\n${SOA('lex.senado.gov.br')}` +
    `@ IN NAPTR 100 10 "" "" "!^urn:lex:br;sao\\\\.paulo[;:].*$!lex.sao-paulo.gov.br!i" .\n` +
    `@ IN NAPTR 200 10 "u" "http+N2L" "!^(.*)$!https://resolver.senado.example/uri-res/N2L?\\\\1!" .\n` +
    `mg IN NS ns1.mg\nmg IN NS ns2.mg\nns1.mg IN A 127.0.0.2\nns2.mg IN A 127.0.0.3\n`,
  'lex.sao-paulo.gov.br.':
    `$TTL 3600\n${SOA('lex.sao-paulo.gov.br')}` +
    `@ IN NAPTR 100 10 "s" "thttp+N2L+N2Ls+N2C" "" _http._tcp.resolver.lex.sao-paulo.gov.br.\n` +
    `_http._tcp.resolver IN SRV 10 60 8080 res1.lex.sao-paulo.gov.br.\n` +
    `res1 IN A 192.0.2.10\n`,
};
const zones = Object.entries(ZONES).map(([origin, text]) => {
  const r = loadZoneText(`$ORIGIN ${origin}\n${text}`, `${origin}zone`);
  if (!r.zone) throw new Error(JSON.stringify(r.diagnostics.slice(0, 3)));
  return r.zone;
});
const engine = new Engine(zones);

const CASES: [string, string, string][] = [
  ['NAPTR, 1 record (root)', 'lex.urn.arpa', 'NAPTR'],
  ['NAPTR, 3 records (CNR table)', 'lex-nameserver.nic.it', 'NAPTR'],
  ['NAPTR, 2 records (jurisdiction)', 'lex.senado.gov.br', 'NAPTR'],
  ['NAPTR, 1 record (S flag)', 'lex.sao-paulo.gov.br', 'NAPTR'],
  ['SRV answer', '_http._tcp.resolver.lex.sao-paulo.gov.br', 'SRV'],
  ['A answer', 'res1.lex.sao-paulo.gov.br', 'A'],
  ['referral, NS + glue', 'x.mg.lex.senado.gov.br', 'NAPTR'],
  ['NXDOMAIN + SOA', 'missing.lex.senado.gov.br', 'NAPTR'],
];
const messages = CASES.map(([label, name, type], i) => {
  const query = Buffer.from(
    dnsPacket.encode({
      type: 'query',
      id: i + 1,
      flags: dnsPacket.RECURSION_DESIRED,
      questions: [{ name, type: type as 'A', class: 'IN' }],
      additionals: [{ type: 'OPT', name: '.', udpPayloadSize: 1232 } as Answer],
    }),
  );
  const response = engine.respond(query, TRANSPORT_UDP);
  if (!response) throw new Error(`no response for ${label}`);
  const known = knownQuestion(query);
  const oldKnown = oldKnownQuestion(query);
  const a = decodeResponse(response, 100, known);
  const b = oldDecodeResponse(response, 100, oldKnown);
  if (!isDeepStrictEqual(asDnsPacket(a), b)) throw new Error(`decoders disagree on ${label}`);
  const m = a as unknown as {
    answers: unknown[];
    authorities: unknown[];
    additionals: unknown[];
  };
  return {
    label,
    response,
    known,
    oldKnown,
    shape: `${response.length} B, ${m.answers.length}/${m.authorities.length}/${m.additionals.length} records`,
  };
});

// ---------------------------------------------------------------------------

type Decoder = (m: (typeof messages)[number]) => unknown;
const newDecoder: Decoder = (m) => decodeResponse(m.response, 100, m.known as KnownQuestion);
const oldDecoder: Decoder = (m) => oldDecodeResponse(m.response, 100, m.oldKnown);

let sink = 0;
/** ns per message for `decoder` over `set`, looping for about `ms` milliseconds. */
function measure(decoder: Decoder, set: readonly (typeof messages)[number][], ms = MS): number {
  let n = 0;
  const t0 = process.hrtime.bigint();
  const budget = BigInt(ms) * 1_000_000n;
  let elapsed: bigint;
  do {
    for (let k = 0; k < 200; k++) {
      for (const m of set) {
        const r = decoder(m) as { id: number };
        sink += r.id;
      }
    }
    n += 200 * set.length;
    elapsed = process.hrtime.bigint() - t0;
  } while (elapsed < budget);
  return Number(elapsed) / n;
}

console.log(
  `client response decoding (Node ${process.version}, ${ROUNDS} interleaved rounds of ~${MS} ms per side)`,
);
for (const m of messages) console.log(`  ${m.label.padEnd(34)} ${m.shape}`);

// Warm both up.
measure(oldDecoder, messages);
measure(newDecoder, messages);

const oldNs: number[] = [];
const newNs: number[] = [];
const ratios: number[] = [];
for (let r = 0; r < ROUNDS; r++) {
  // Alternate which side goes first.
  let o: number;
  let h: number;
  if (r % 2 === 0) {
    o = measure(oldDecoder, messages);
    h = measure(newDecoder, messages);
  } else {
    h = measure(newDecoder, messages);
    o = measure(oldDecoder, messages);
  }
  oldNs.push(o);
  newNs.push(h);
  ratios.push(o / h);
}
console.log('\nmix of the 8 responses above, per message:');
console.log(
  `  dns-packet + RDLENGTH check (old)   best ${Math.min(...oldNs)
    .toFixed(0)
    .padStart(6)} ns, median ${median(oldNs).toFixed(0).padStart(6)} ns`,
);
console.log(
  `  hand decoder (decodeResponse)       best ${Math.min(...newNs)
    .toFixed(0)
    .padStart(6)} ns, median ${median(newNs).toFixed(0).padStart(6)} ns`,
);
console.log(
  `  speed-up old/new: median of per-round ratios ${median(ratios).toFixed(2)}x (rounds: ${ratios.map((x) => x.toFixed(2)).join(' ')})`,
);

console.log('\nper response (median of 5 short interleaved rounds):');
for (const m of messages) {
  const os: number[] = [];
  const hs: number[] = [];
  for (let r = 0; r < 5; r++) {
    os.push(measure(oldDecoder, [m], MS / 3));
    hs.push(measure(newDecoder, [m], MS / 3));
  }
  const o = median(os);
  const h = median(hs);
  console.log(
    `  ${m.label.padEnd(34)} old ${o.toFixed(0).padStart(6)} ns   new ${h.toFixed(0).padStart(6)} ns   ${(o / h).toFixed(2)}x`,
  );
}
console.log(`(sink ${sink % 7})`);
