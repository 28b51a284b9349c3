/**
 * `lexroute/zone`: zone files (RFC 1035 master format) for Node. Everything
 * of the portable part (parser, model, writer, NAPTR lint, lookup), plus
 * reading files and directories the way `lexroute serve` and `zone check` do
 * (`node:fs`), and RDATA as dns-packet's structured objects.
 */
export * from './portable.ts';
export {
  inferOriginFromFileName,
  isDirectory,
  loadZoneDirectory,
  loadZoneFile,
  loadZoneText,
  zoneFilesIn,
  type LoadOptions,
  type LoadResult,
} from '../authority/zones/load.ts';
export { decodeRdata, encodeRdata } from './core/zone/packet.ts';
