import { EXIT_USAGE, type Command } from '../io.ts';

// Placeholder until its issue lands: says so plainly and exits 2.
export const urnCommand: Command = {
  name: 'urn',
  summary: 'not implemented yet',
  async run(_argv, io) {
    io.err('lexroute urn: not implemented yet\n');
    return EXIT_USAGE;
  },
};
