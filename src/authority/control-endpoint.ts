/**
 * Where the control channel listens: a Unix socket (mode 0600), or a loopback TCP port whose
 * requests carry `mac` = HMAC-SHA256(key, "lexroute-ctl\n" + challenge + "\n" + JSON of {command,
 * args}) over a fresh challenge per connection: no replay, the key never sent (config/README.md).
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { readFile, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { parseListen } from '../kit/core/host-port.ts';
import { isLoopback } from '../kit/core/ip.ts';

export type ControlEndpoint =
  | { readonly kind: 'unix'; readonly path: string }
  | {
      readonly kind: 'tcp';
      readonly host: string;
      readonly port: number;
      /** The shared key, read from `--control-key`. */
      readonly key: Uint8Array;
    };

/** A control address or key that cannot be used; `code` is stable. */
export class ControlEndpointError extends Error {
  readonly code: 'CONTROL_NOT_LOOPBACK' | 'CONTROL_KEY_REQUIRED' | 'CONTROL_KEY_INVALID';
  constructor(code: ControlEndpointError['code'], message: string) {
    super(message);
    this.code = code;
  }
}

/** The smallest key accepted, octets (HMAC-SHA256 keys shorter than this are weak). */
export const MIN_KEY_OCTETS = 16;

/** Text a user writes as `--control` (a path or ADDRESS:PORT) and its key file, as an endpoint. */
export async function controlEndpointOf(
  text: string,
  cwd: string,
  keyFile: string | undefined,
): Promise<ControlEndpoint> {
  // Text that is not `ADDRESS:PORT` is a socket path.
  const tcp = parseListen(text);
  if (typeof tcp === 'string') return { kind: 'unix', path: path.resolve(cwd, text) };
  if (!isLoopback(tcp.host)) {
    throw new ControlEndpointError(
      'CONTROL_NOT_LOOPBACK',
      `--control ${text}: a TCP control port must be on a loopback address (127.0.0.1, ::1, localhost); use a Unix socket path otherwise`,
    );
  }
  if (keyFile === undefined) {
    throw new ControlEndpointError(
      'CONTROL_KEY_REQUIRED',
      `--control ${text} is a TCP port: it needs --control-key FILE (make one with lexroute ctl keygen FILE)`,
    );
  }
  return { kind: 'tcp', ...tcp, key: await readControlKey(path.resolve(cwd, keyFile)) };
}

/** Read a key file: base64 text of at least 16 octets, readable by its owner only. */
export async function readControlKey(file: string): Promise<Uint8Array> {
  let text: string;
  try {
    const st = await stat(file);
    if ((st.mode & 0o077) !== 0) {
      throw new ControlEndpointError(
        'CONTROL_KEY_INVALID',
        `the key file ${file} is readable by others (mode ${(st.mode & 0o777).toString(8)}): chmod 600 it`,
      );
    }
    text = (await readFile(file, 'utf8')).trim();
  } catch (e) {
    if (e instanceof ControlEndpointError) throw e;
    const reason = (e as NodeJS.ErrnoException).code ?? (e as Error).message;
    throw new ControlEndpointError('CONTROL_KEY_INVALID', `cannot read ${file}: ${reason}`);
  }
  const key = /^[A-Za-z0-9+/]+={0,2}$/.test(text) ? Buffer.from(text, 'base64') : Buffer.alloc(0);
  if (key.length < MIN_KEY_OCTETS) {
    throw new ControlEndpointError(
      'CONTROL_KEY_INVALID',
      `the key file ${file} must hold base64 text of at least ${MIN_KEY_OCTETS} octets (make one with lexroute ctl keygen FILE)`,
    );
  }
  return key;
}

/** Write a new key file (32 random octets, base64), mode 0600; never overwrites. */
export async function writeNewControlKey(file: string): Promise<void> {
  const text = `${randomBytes(32).toString('base64')}\n`;
  await writeFile(file, text, { mode: 0o600, flag: 'wx' });
}

/** A fresh challenge for one connection. */
export function newChallenge(): string {
  return randomBytes(32).toString('base64');
}

/** The MAC of one request under one challenge. */
export function requestMac(
  key: Uint8Array,
  challenge: string,
  req: { readonly command: string; readonly args?: readonly string[] },
): string {
  const body = JSON.stringify({ command: req.command, args: req.args ?? [] });
  return createHmac('sha256', key).update(`lexroute-ctl\n${challenge}\n${body}`).digest('base64');
}

/** Does `mac` authenticate this request under this challenge? (constant time) */
export function macValid(
  key: Uint8Array,
  challenge: string,
  req: { readonly command: string; readonly args?: readonly string[] },
  mac: unknown,
): boolean {
  if (typeof mac !== 'string') return false;
  const want = Buffer.from(requestMac(key, challenge, req), 'base64');
  const got = Buffer.from(mac, 'base64');
  return got.length === want.length && timingSafeEqual(got, want);
}

/** How an endpoint is named in logs and messages. */
export function endpointText(ep: ControlEndpoint): string {
  if (ep.kind === 'unix') return ep.path;
  return ep.host.includes(':') ? `[${ep.host}]:${ep.port}` : `${ep.host}:${ep.port}`;
}
