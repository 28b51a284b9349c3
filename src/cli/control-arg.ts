/**
 * `--control` and `--control-key` as `serve`, `resolver` and `ctl` read
 * them: a Unix socket path, or a loopback `ADDR:PORT` with its key file
 * (`server/control-endpoint.ts`).
 */
import {
  controlEndpointOf,
  ControlEndpointError,
  type ControlEndpoint,
} from '../authority/control-endpoint.ts';
import { parseListen } from '../kit/core/host-port.ts';
import { Reported, UsageError, type CliIo } from './io.ts';

/**
 * The endpoint (undefined without `--control`), or `Reported` when the key
 * file cannot be used (CONTROL_KEY_INVALID); usage mistakes throw `UsageError`.
 */
export async function controlArg(
  io: CliIo,
  command: string,
  text: string | undefined,
  keyFile: string | undefined,
): Promise<ControlEndpoint | undefined | Reported> {
  if (text === undefined) {
    if (keyFile !== undefined) throw new UsageError('--control-key needs --control ADDR:PORT');
    return undefined;
  }
  if (keyFile !== undefined && typeof parseListen(text) === 'string') {
    throw new UsageError(`--control-key is for a TCP control port; ${text} is a socket path`);
  }
  try {
    return await controlEndpointOf(text, io.cwd, keyFile);
  } catch (e) {
    if (!(e instanceof ControlEndpointError)) throw e;
    if (e.code !== 'CONTROL_KEY_INVALID') {
      throw new UsageError(`${e.code}: ${e.message}`);
    }
    io.err(`lexroute ${command}: ${e.code}: ${e.message}\n`);
    return new Reported([e.code]);
  }
}
