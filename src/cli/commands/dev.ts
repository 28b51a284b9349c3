import { EXIT_USAGE, type Command } from '../io.ts';

// Placeholder until its issue lands: says so plainly and exits 2.
export const devCommand: Command = {
  name: 'dev',
  summary: 'not implemented yet',
  async run(_argv, io) {
    io.err('lexroute dev: not implemented yet\n');
    return EXIT_USAGE;
  },
};
