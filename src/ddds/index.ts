/** `lexroute/ddds`: the pure DDDS core (RFC 3402-3404, RFC 2782). No I/O, no Node built-ins. */
export * from './core/index.ts';
