/**
 * The client's validation stage (`validate`, `resolve --validate`): between
 * the cache and the resolver, asking with DO and CD (RFC 4035 sections 3.2.2,
 * 4.9.3), each lookup gets the pure validator's verdict (cached with it). The
 * crypto is passed in: no Node built-ins.
 */
import type { QueryType } from '../dns/core/rr/types.ts';
import { TYPE_CODES } from '../dns/core/rr/types.ts';
import type { DnssecCrypto } from '../dnssec/core/validate/crypto.ts';
import { parseTrustAnchors, ROOT_ANCHORS_TEXT } from '../dnssec/core/validate/anchors.ts';
import { Validator, type TrustAnchor } from '../dnssec/core/validate/validator.ts';
import type { DnsLookupResult, DnsResolver } from './stub.ts';

export type { TrustAnchor } from '../dnssec/core/validate/validator.ts';
export type { Verdict } from '../dnssec/core/validate/verdict.ts';

/** The library option `validate`. */
export interface ValidateOptions {
  /** Trust anchors besides (or, with `rootAnchors: false`, instead of) the root's. */
  readonly trustAnchors?: readonly TrustAnchor[];
  /** Use the built-in root anchors, KSK-2017 and KSK-2024 (default true). */
  readonly rootAnchors?: boolean;
  /** The crypto (default: node:crypto in Node, WebCrypto in the browser build). */
  readonly crypto?: DnssecCrypto;
  /** The clock for signature times, ms since the epoch (default Date.now). */
  readonly now?: () => number;
  /** NSEC3 iterations above this are insecure, not hashed (default 150; RFC 9276 section 3.2). */
  readonly nsec3MaxIterations?: number;
}

/** The built-in root anchors (unless turned off) and those given. */
function anchorsOf(o: ValidateOptions): TrustAnchor[] {
  const root = parseTrustAnchors(ROOT_ANCHORS_TEXT, '<built-in>', 0);
  const builtIn = o.rootAnchors === false || !('anchors' in root) ? [] : root.anchors;
  return [...builtIn, ...(o.trustAnchors ?? [])];
}

/** A resolver (asking with DO and CD, keeping wires) whose lookups carry a `validation` verdict. */
export class ValidatingResolver implements DnsResolver {
  readonly validator: Validator;
  private readonly inner: DnsResolver;

  constructor(inner: DnsResolver, options: ValidateOptions, crypto: DnssecCrypto) {
    this.inner = inner;
    const now = options.now ?? Date.now;
    this.validator = new Validator({
      crypto,
      anchors: anchorsOf(options),
      now: () => Math.floor(now() / 1000),
      fetch: (name, type) => inner.lookup(name, type).then((r) => r.wires ?? []),
      nsec3MaxIterations: options.nsec3MaxIterations,
    });
  }

  async lookup(qname: string, qtype: QueryType, signal?: AbortSignal): Promise<DnsLookupResult> {
    const r = await this.inner.lookup(qname, qtype, signal);
    const validation = await this.validator.validate(
      qname,
      TYPE_CODES.get(qtype) ?? 0,
      r.wires ?? [],
    );
    const { wires: _wires, ...rest } = r;
    return { ...rest, validation };
  }
}
