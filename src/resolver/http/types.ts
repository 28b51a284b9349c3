/**
 * The resolver application's plain request and response, and its services.
 * Shared by the parts of the request path (`route.ts`, `answer-cache.ts`,
 * `match-request.ts`, `render.ts`) and the transports (`server.ts`, `fetch`).
 */
import type { ResolverService } from '../../ddds/core/trace.ts';
import type { ResolverProblemCode } from './codes.ts';

export interface AppRequest {
  readonly method: string;
  /** The request-target exactly as received: path and raw query, never decoded. */
  readonly target: string;
  /** Header value by lowercase name. */
  header(name: string): string | undefined;
  /** `1.1`, `1.0`, `2.0`. */
  readonly httpVersion: string;
}

export interface AppResponse {
  readonly status: number;
  readonly headers: Record<string, string>;
  /** Sent unless the method is HEAD. */
  readonly body: string;
  /** The stable code of a problem answer, for the request log. */
  readonly code?: ResolverProblemCode;
}

/** The THTTP services this resolver offers (`I2*` are synonyms, `route.ts`). */
export type Service = ResolverService;
