/**
 * What `lexroute` gives under the `browser` export condition: the URN
 * library and the socket-free part of the client, no Node built-ins.
 */
export * from './urn/index.ts';
export * from './client/portable.ts';
