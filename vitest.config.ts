import { defineConfig } from 'vitest/config';

/**
 * Test files that bound a latency on the wall clock (an answering thread's
 * stall during a reload): they run last, alone, after the others (a group
 * of their own), so that three files at a time elsewhere cannot be the
 * stall they measure.
 */
const ALONE = ['test/server/reload-under-load.test.ts'];

const shared = {
  pool: 'forks' as const,
  testTimeout: 30_000,
  hookTimeout: 60_000,
};

export default defineConfig({
  test: {
    reporters: ['default'],
    // Vitest's default is one worker less than the cores: one worker on the
    // 2-core CI machine, so the files ran one after the other (354 s).
    // Most of the slow files wait on daemons, sockets and timers rather
    // than compute: three workers took the whole suite to 166-191 s on the
    // same machine (issue 31 item 23).
    maxWorkers: 3,
    projects: [
      {
        test: {
          ...shared,
          name: 'main',
          include: ['test/**/*.test.ts'],
          exclude: ALONE,
          sequence: { groupOrder: 0 },
        },
      },
      {
        test: {
          ...shared,
          name: 'alone',
          include: ALONE,
          maxWorkers: 1,
          sequence: { groupOrder: 1 },
        },
      },
    ],
  },
});
