import { execFileSync } from 'node:child_process';
import path from 'node:path';

/**
 * A self-signed P-256 certificate for 127.0.0.1 (CN and subjectAltName),
 * valid two days, made with `openssl` into `dir` as cert.pem and key.pem.
 */
export function selfSignedLoopbackCert(openssl: string, dir: string): void {
  execFileSync(
    openssl,
    [
      'req',
      '-x509',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:prime256v1',
      '-nodes',
      '-keyout',
      path.join(dir, 'key.pem'),
      '-out',
      path.join(dir, 'cert.pem'),
      '-days',
      '2',
      '-subj',
      '/CN=127.0.0.1',
      '-addext',
      'subjectAltName=IP:127.0.0.1',
    ],
    { stdio: 'ignore' },
  );
}
