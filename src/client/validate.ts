/**
 * The client's validation stage (`validate: { trustAnchors }`, `resolve
 * --validate`): between the cache and the stub, iterative or DoH resolver,
 * it asks with DO and CD set, keeps the responses' octets, and gives each
 * lookup the verdict of the pure validator (`dnssec/core/validate`),
 * fetching the DNSKEY and DS RRsets of the chain through the same resolver.
 * The verdict is cached with the lookup, so a warm resolution costs nothing
 * more. No Node built-ins here: the crypto is passed in (node:crypto in
 * Node, WebCrypto in a browser).
 *
 * @see RFC 4035 section 3.2.2 ("the CD bit ... a security-aware resolver
 *   ... SHOULD set the CD bit ... when it performs validation itself")
 * @see RFC 4035 section 4.9.3 (a validating stub)
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
  /**
   * NSEC3 denials of more iterations are insecure (INSECURE_NSEC3_ITERATIONS),
   * not hashed: default 150 (BIND 9.18, Unbound, delv); RFC 9276 section 3.2.
   */
  readonly nsec3MaxIterations?: number;
}

/**
 * The anchors a `validate` option names: the built-in root anchors (IANA:
 * KSK-2017 id 20326, KSK-2024 id 38696) unless turned off, and those given.
 */
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
