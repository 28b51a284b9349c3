/**
 * lexroute library entry point. Each area adds its public exports here.
 */
export type { Diagnostic, Result, Severity, Span } from './core/diagnostics.ts';
export type {
  ResourceRecord,
  RRset,
  SourcePosition,
  Zone,
  ZoneDiagnostic,
  ZoneNode,
} from './core/zone/model.ts';
export { CLASS_IN } from './core/zone/model.ts';
export {
  parseZoneText,
  type ExpectDirective,
  type ParseOptions,
  type ParseResult,
} from './core/zone/parser.ts';
export { buildZone, type BuildOptions, type BuildResult } from './core/zone/build.ts';
export { decodeRdata, encodeRdata } from './core/zone/packet.ts';
export { rrToPresentation, writeZone } from './core/zone/writer.ts';
export { canonicalSortKey, compareNames, nameToText, nameToWire } from './core/zone/names.ts';
export { typeName, TYPE_CODES } from './core/zone/types.ts';
export {
  inferOriginFromFileName,
  loadZoneDirectory,
  loadZoneFile,
  loadZoneText,
  type LoadOptions,
  type LoadResult,
} from './zonefile/load.ts';
export * from './core/urn/index.ts';
export * from './core/ddds/index.ts';
