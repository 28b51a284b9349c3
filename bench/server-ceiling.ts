/**
 * The Node ceiling for bench/server-qps.sh: a UDP responder that answers
 * every datagram with one pre-built response (only the ID copied in), i.e.
 * what Node's dgram path costs with no DNS work at all.
 *
 * Usage: node bench/server-ceiling.ts PORT
 */
import dgram from 'node:dgram';
import dnsPacket from 'dns-packet';

const port = Number(process.argv[2] ?? 5399);
// One NOERROR response with one NAPTR record, built once.
const packet = Buffer.from(
  dnsPacket.encode({
    type: 'response',
    id: 0,
    flags: dnsPacket.AUTHORITATIVE_ANSWER,
    questions: [{ type: 'NAPTR', name: 'lex.bench.' }],
    answers: [
      {
        type: 'NAPTR',
        name: 'lex.bench.',
        ttl: 3600,
        data: {
          order: 100,
          preference: 10,
          flags: '',
          services: '',
          regexp: '',
          replacement: 'lex-nameserver.nic.it',
        },
      },
    ],
  }),
);
const socket = dgram.createSocket('udp4');
socket.on('message', (msg, rinfo) => {
  const out = Buffer.allocUnsafe(packet.length);
  packet.copy(out);
  out[0] = msg[0]!;
  out[1] = msg[1]!;
  socket.send(out, rinfo.port, rinfo.address);
});
socket.bind(port, '127.0.0.1', () =>
  process.stderr.write(`ceiling listening on 127.0.0.1:${port}\n`),
);
process.on('SIGTERM', () => socket.close(() => process.exit(0)));
