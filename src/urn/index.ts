/**
 * `lexroute/urn`: LEX URNs (RFC 9676) on RFC 8141. Parse with spans,
 * validate, normalise, format (the exact inverse of the parser), equivalence,
 * partitions, and DNS keys (IDNA2008 with Bidi and CONTEXTJ/CONTEXTO, Punycode).
 * No Node built-ins: bundles for a browser.
 */
export * from './core/index.ts';
export type { Diagnostic, Result, Severity, Span } from '../kit/core/diagnostics.ts';
