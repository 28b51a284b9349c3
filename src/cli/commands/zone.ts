import { EXIT_USAGE, type Command } from '../io.ts';

// Placeholder until its issue lands: says so plainly and exits 2.
export const zoneCommand: Command = {
  name: 'zone',
  summary: 'not implemented yet',
  async run(_argv, io) {
    io.err('lexroute zone: not implemented yet\n');
    return EXIT_USAGE;
  },
};
