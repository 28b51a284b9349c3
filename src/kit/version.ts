/** The package version, as `lexroute --version` prints it and `ctl status` reports it. */
export const VERSION = '1.0.0';
