/**
 * `lexroute/ddds`: the pure DDDS core. RFC 3402 substitution expressions on a
 * linear-time engine, NAPTR flags, services and rewrite (RFC 3403, RFC 3404),
 * the step function, the AUS, SRV selection (RFC 2782), the loop guard and
 * the partition rule. No I/O and no Node built-ins: bundles for a browser.
 */
export * from './core/index.ts';
