/** The part of `lexroute/zone` with no Node built-in (the `browser` condition): parse, build, write, lint, look up. */
export type { Diagnostic, Result, Severity, Span } from '../kit/core/diagnostics.ts';
export type {
  ResourceRecord,
  RRset,
  SourcePosition,
  Zone,
  ZoneDiagnostic,
  ZoneNode,
} from './core/zone/model.ts';
export { CLASS_IN } from './core/rr/types.ts';
export {
  parseZoneChunks,
  parseZoneText,
  type ExpectDirective,
  type ParseOptions,
  type ParseResult,
} from './core/zone/parser.ts';
export {
  buildStoreZone,
  buildZone,
  type BuildOptions,
  type BuildResult,
} from './core/zone/build.ts';
export { ZoneStore, type RecordSink } from './core/zone/store.ts';
export { recordOf } from './core/zone/record.ts';
export type { DnsRecord } from './core/rr/record.ts';
export { rrToPresentation, writeZone } from './core/zone/writer.ts';
export {
  checkExpectations,
  lintJurisdictionPattern,
  lintNaptrRecords,
  naptrFields,
  parseExpect,
} from '../ddds/core/lint/naptr-lint.ts';
export { canonicalSortKey, compareNames, nameToText, nameToWire } from './core/zone/names.ts';
export { typeName, TYPE_CODES } from './core/rr/types.ts';
export {
  findZone,
  findZoneFor,
  indexZone,
  lookupInZone,
  makeZoneSet,
  type IndexedZone,
  type PlacedRRset,
  type ZoneLookupKind,
  type ZoneLookupOptions,
  type ZoneLookupResult,
  type ZoneSet,
} from '../authority/core/zone-lookup.ts';
