import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    pool: 'forks',
    // Vitest's default is one worker less than the cores: one worker on the
    // 2-core CI machine, so the files ran one after the other (354 s).
    // Most of the slow files wait on daemons, sockets and timers rather
    // than compute: three workers took the whole suite to 166 s on the same
    // machine (issue 31 item 23).
    maxWorkers: 3,
    testTimeout: 30_000,
    hookTimeout: 60_000,
    reporters: ['default'],
  },
});
