/**
 * The client's codes are defined in the core (core/ddds/client-codes.ts),
 * because the DDDS walk of the core reports them; re-exported here.
 */
export { CLIENT_CODES, type ClientCode } from '../ddds/core/client-codes.ts';
