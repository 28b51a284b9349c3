/**
 * `lexroute`: what an application embeds most often, the LEX URN library
 * (`lexroute/urn`) and the DDDS client (`lexroute/client`). The other areas
 * have their own entry points: `lexroute/ddds`, `lexroute/zone`,
 * `lexroute/server`, `lexroute/resolver`, `lexroute/catalogue`, `lexroute/dev`.
 */
export * from './urn/index.ts';
export * from './client/index.ts';
