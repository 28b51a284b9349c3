/**
 * Building responses: the CORS and Vary headers every answer carries, the
 * Cache-Control of each kind of answer, and RFC 9457 problem+json bodies.
 */
import { STATUS_CODES } from 'node:http';
import type { ResolverConfig } from '../../config/resolver.ts';
import type { AppResponse } from './types.ts';
import { HTTP_STATUS, type ResolverProblemCode } from './codes.ts';

/** Reason phrases by status (node's table: every status this resolver answers is in it). */
export const REASONS: Readonly<Record<number, string | undefined>> = STATUS_CODES;

export type ResponderConfig = Pick<ResolverConfig, 'cacheControl' | 'cors'>;

export class Responder {
  readonly config: ResponderConfig;
  /** CORS headers on every answer (none when `cors.allowOrigin` is empty). */
  private readonly cors: Record<string, string>;
  /** Vary of every negotiated answer. */
  readonly vary: Readonly<Record<string, string>>;

  constructor(config: ResponderConfig) {
    this.config = config;
    const origin = config.cors.allowOrigin;
    const perOrigin = origin !== '' && origin !== '*';
    this.cors =
      origin === ''
        ? {}
        : { 'access-control-allow-origin': origin, 'access-control-expose-headers': 'Location' };
    if (perOrigin) this.cors.vary = 'Origin';
    this.vary = { vary: perOrigin ? 'Accept, Accept-Language, Origin' : 'Accept, Accept-Language' };
  }

  send(
    status: number,
    headers: Record<string, string>,
    body: string,
    cacheControl: string,
    code?: ResolverProblemCode,
  ): AppResponse {
    const h: Record<string, string> = { ...this.cors, ...headers };
    if (cacheControl !== '') h['cache-control'] = cacheControl;
    if (status !== 204) h['content-length'] = String(Buffer.byteLength(body));
    return code === undefined ? { status, headers: h, body } : { status, headers: h, body, code };
  }

  /** The answer to a CORS preflight (or a plain OPTIONS). */
  preflight(): AppResponse {
    const cors = this.config.cors;
    return this.send(
      204,
      cors.allowOrigin === ''
        ? { allow: 'GET, HEAD, OPTIONS' }
        : {
            allow: 'GET, HEAD, OPTIONS',
            'access-control-allow-methods': 'GET, HEAD, OPTIONS',
            'access-control-allow-headers': 'Accept, Accept-Language',
            'access-control-max-age': String(cors.maxAge),
          },
      '',
      '',
    );
  }

  /** An RFC 9457 problem+json answer with a stable code; its status is `HTTP_STATUS[code]`. */
  problem(
    code: ResolverProblemCode,
    detail: string,
    extra: Record<string, unknown> = {},
    headers: Record<string, string> = {},
  ): AppResponse {
    const status = HTTP_STATUS[code];
    const cc = this.config.cacheControl;
    const cache = status === 404 ? cc.notFound : status === 300 ? cc.ambiguous : cc.error;
    const body = JSON.stringify({
      type: 'about:blank',
      title: REASONS[status] ?? 'Error',
      status,
      code,
      detail,
      ...extra,
    });
    return this.send(
      status,
      { 'content-type': 'application/problem+json', ...headers },
      `${body}\n`,
      cache,
      code,
    );
  }

  /** A bug, never bad input: every input path returns a 4xx. */
  internalError(e: unknown): AppResponse {
    return this.problem(
      'INTERNAL_ERROR',
      `internal error: ${e instanceof Error ? e.message : String(e)}`,
    );
  }

  /** The catalogue server could not be read (PostgreSQL down): retry later. */
  unavailable(e: unknown): AppResponse {
    return this.problem(
      'CATALOGUE_UNAVAILABLE',
      `the catalogue cannot be read: ${e instanceof Error ? e.message : String(e)}`,
    );
  }
}
