/**
 * The LEX URN library: RFC 8141 + RFC 9676.
 *
 * - `parseUrn8141(text)`: the RFC 8141 layer (any NID).
 * - `parseLexUrn(text)`: the RFC 9676 section 8 tree, every node with its span.
 * - `formatLexUrn(urn)`: the exact inverse of the parser.
 * - `normalizeLexUrn(text)`: the canonical form and the rules that changed it
 *   (raw non-ASCII accepted: `encodeIri` percent-encodes it first).
 * - `lexUrnEquivalent(a, b)`, `urn8141Equivalent(a, b)`: equivalence.
 * - `splitPartition(text)`: document name and `~partition`.
 * - `toDnsKey(text)`, `toALabel(label)`: DNS keys (IDNA2008 + Punycode).
 * Every error code is listed, with its meaning, in `URN_CODES` (codes.ts).
 */
export { URN_CODES, describeCode, type UrnCode } from './codes.ts';
export { parseUrn8141, urn8141Equivalent } from './rfc8141.ts';
export { parseLexUrn } from './lex-parser.ts';
export { formatLexUrn } from './format.ts';
export { normalizeLexUrn, canonicalizeLexUrn, lexUrnEquivalent, parseLexIri } from './normalize.ts';
export { encodeIri, rawOffset, type IriEncoded } from './iri.ts';
export { splitPartition } from './partition.ts';
export { toDnsKey, toALabel, MAX_LABEL_OCTETS, MAX_NAME_CHARS } from './dns-key.ts';
export {
  bidiClass,
  derivedProperty,
  IDNA_UNICODE_VERSION,
  joiningType,
  punycodeDecode,
  punycodeEncode,
} from './idna.ts';
export type {
  LexAuthority,
  LexDate,
  LexDetails,
  LexExpression,
  LexIssuer,
  LexJurisdiction,
  LexManifestation,
  LexNumbers,
  LexParseOk,
  LexParseResult,
  LexQualified,
  LexUrn,
  LexVersion,
  LexVersionItem,
  LexWork,
  NormalizationChange,
  NormalizationRule,
  NormalizeOk,
  NormalizeResult,
  PartitionSplit,
  Segment,
  Urn8141,
  Urn8141Ok,
  Urn8141Result,
  UrnDiagnostic,
  UrnRejection,
} from './types.ts';
