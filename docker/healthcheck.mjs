// Container health check for the lexroute images (no dig or curl inside).
//   node healthcheck.mjs dns HOST PORT   a DNS query over UDP; any well-formed
//                                        answer (even REFUSED) means the server
//                                        is up and answering
//   node healthcheck.mjs http URL        GET URL must answer 200
// Exit 0 healthy, 1 unhealthy (Docker's HEALTHCHECK convention).
import dgram from 'node:dgram';

const [mode, a, b] = process.argv.slice(2);
const fail = (why) => {
  process.stderr.write(`unhealthy: ${why}\n`);
  process.exit(1);
};
const timer = setTimeout(() => fail('no answer within 3 s'), 3000);

if (mode === 'dns') {
  const host = a ?? '127.0.0.1';
  const port = Number(b ?? 53);
  const id = Math.floor(Math.random() * 65536);
  // Header (RD off, one question) + "." SOA IN.
  const query = Buffer.from([id >> 8, id & 0xff, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 6, 0, 1]);
  const socket = dgram.createSocket(host.includes(':') ? 'udp6' : 'udp4');
  socket.on('error', (e) => fail(e.message));
  socket.on('message', (m) => {
    if (m.length >= 12 && m.readUInt16BE(0) === id && (m[2] & 0x80) !== 0) {
      clearTimeout(timer);
      socket.close();
      process.exit(0);
    }
  });
  socket.send(query, port, host);
} else if (mode === 'http') {
  fetch(a ?? 'http://127.0.0.1:8080/health')
    .then((r) => {
      if (r.status !== 200) fail(`HTTP ${r.status}`);
      clearTimeout(timer);
      process.exit(0);
    })
    .catch((e) => fail(e.message));
} else {
  fail('usage: healthcheck.mjs dns HOST PORT | http URL');
}
