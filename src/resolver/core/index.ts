/**
 * URN-to-URL matching for the jurisdiction resolver (RFC 9676 section 10.3),
 * pure: the catalogue is read through the `CatalogueReader` interface.
 */
export type {
  CandidateName,
  CandidateQuery,
  CatalogueExpression,
  CatalogueItem,
  CatalogueManifestation,
  CatalogueName,
  CatalogueReader,
  CatalogueWork,
  ExpressionKey,
  ManifestationKey,
  MatchQuery,
  UrnAnalyser,
  UrnAnalysis,
  UrnAnalysisErr,
  UrnAnalysisError,
  UrnAnalysisOk,
  WorkKey,
} from './model.ts';
export {
  PENALTIES,
  decorateUrl,
  effectiveDate,
  isOriginalVersion,
  isValidIsoDate,
  partitionForDepth,
  resolveQuery,
  scoreName,
  type Ambiguous,
  type Candidate,
  type Found,
  type InvalidRequest,
  type Location,
  type MatchOptions,
  type MatchReason,
  type NotFound,
  type PartitionApplied,
  type Resolution,
} from './match.ts';
export { analyseLexUrn, analyseReference, type AnalyseOptions } from './from-urn.ts';
export { exactLookup, type ExactLookup } from './exact.ts';
export { MemoryCatalogue, worksFromRows } from './memory.ts';
export {
  validateRow,
  MAX_PARTITION_DEPTH,
  MAX_URN_LENGTH,
  ROW_FIELDS,
  type CatalogueRow,
  type RowError,
  type RowOk,
  type RowResult,
} from './row.ts';
export { expressionUrn, manifestationUrn } from './compose.ts';
export {
  chooseMediaType,
  languageWeight,
  lexFormatToMediaType,
  parsePreferences,
} from './negotiate.ts';
export {
  Registry,
  labelKey,
  type LabelKind,
  type RegistryAmbiguity,
  type RegistryEntry,
  type RegistryKind,
  type RegistryResult,
  type RegistryRewrite,
} from './registry.ts';
