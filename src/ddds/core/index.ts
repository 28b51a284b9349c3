/**
 * The pure DDDS core: RFC 3402 substitution expressions on a linear-time
 * engine, NAPTR flags/services/rewrite (RFC 3403, RFC 3404), the step
 * function, the AUS, SRV selection (RFC 2782), loop guard and partition rule.
 */
export {
  parseEre,
  compileEre,
  engineCertainlyAccepts,
  quoteEre,
  ERE_DUP_MAX,
  ERE_METACHARACTERS,
  type BracketItem,
  type CompiledEre,
  type EreAlternation,
  type EreError,
  type EreErrorCode,
  type EreNode,
  type ParsedEre,
  type PosixClassName,
} from './ere.ts';
export {
  buildFastPath,
  fastMatch,
  type AsciiSet,
  type EreFastPath,
  type FastItem,
  type FastPlan,
} from './fast-match.ts';
export {
  parseSubstitution,
  applySubstitution,
  formatSubstitution,
  substitutionTemplate,
  SubstitutionChecker,
  SUBST_MAX_OCTETS,
  type ApplySubstitutionResult,
  type ParsedSubstitution,
  type ParseSubstitutionResult,
  type ReplPart,
  type SubstCheck,
  type SubstError,
  type SubstErrorCode,
  type SubstExpr,
} from './subst.ts';
export {
  parseFlags,
  parseServices,
  checkServices,
  canonicalService,
  protocolInfo,
  rewrite,
  isAbsoluteUri,
  parseSubstitutionCached,
  compileRecord,
  rewriteCompiled,
  checkServicesCompiled,
  type CompiledRecord,
  type FlagsResult,
  type KnownFlag,
  type NaptrRecord,
  type ParsedServices,
  type ProtocolInfo,
  type RewriteErr,
  type RewriteFailure,
  type RewriteOk,
  type RewriteOutput,
  type RewriteResult,
  type ServiceCheck,
  type ServicesResult,
  type ServicesSyntaxError,
  type TerminalFlag,
} from './naptr.ts';
export {
  dddsStep,
  sortRecords,
  firstKey,
  DddsLoopGuard,
  DEFAULT_STEP_LIMIT,
  type LoopCheck,
  type LoopCode,
  type LoopErr,
  type LoopOk,
  type RecordFate,
  type StepInput,
  type StepOutcome,
  type StepResult,
  type WantedService,
} from './step.ts';
export { defaultToDnsKey, type DnsKeyResult, type ToDnsKey } from './key.ts';
export { buildAus, type Aus, type AusErr, type BuildAusResult } from './aus.ts';
export { selectSrv, type SrvRecord, type SrvSelection } from './srv.ts';
export {
  applyPartition,
  applyPartitionDetailed,
  type PartitionOptions,
  type PartitionResult,
} from './partition.ts';
export { DDDS_CODES, type DddsCode } from './codes.ts';
export {
  DddsWalk,
  isIpLiteral,
  prepareWalk,
  type AddressFeed,
  type DnsFeed,
  type HostPin,
  type HttpFeed,
  type SrvFeed,
  type StepMemoStore,
  type WalkNeed,
  type WalkOptions,
  type WalkStart,
} from './walk.ts';
