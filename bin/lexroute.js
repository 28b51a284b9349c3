#!/usr/bin/env node
// lexroute CLI entry. Runs the TypeScript sources directly (Node 24 strips
// types); a build in dist/ (npm run build) is preferred when present.
import { existsSync } from 'node:fs';

const major = Number(process.versions.node.split('.')[0]);
const built = new URL('../dist/cli/main.js', import.meta.url);
if (!existsSync(built) && major < 24) {
  process.stderr.write(
    `lexroute needs Node 24 or later (this is ${process.version}).\n` +
      "Run it as 'npx lexroute ...' or 'npm run lexroute -- ...' from the project,\n" +
      'which use the Node 24 that npm ci installs, or build it with npm run build.\n',
  );
  process.exit(2);
}
const { main } = existsSync(built)
  ? await import(built.href)
  : await import(new URL('../src/cli/main.ts', import.meta.url).href);
await main();
