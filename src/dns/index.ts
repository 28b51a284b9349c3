/** `lexroute/zone` for Node: the portable part, plus reading files and directories and dns-packet's RDATA views. */
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
