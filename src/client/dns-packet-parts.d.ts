// dns-packet's own type and class tables (plain CommonJS files of the package; no typings ship for them).
declare module 'dns-packet/types.js' {
  const types: { toString(code: number): string; toType(name: string): number };
  export default types;
}
declare module 'dns-packet/classes.js' {
  const classes: { toString(code: number): string; toClass(name: string): number };
  export default classes;
}
