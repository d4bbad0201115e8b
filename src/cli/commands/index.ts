/** Every CLI subcommand, in the order `--help` lists them. Add new commands here. */
import type { CliCommand } from '../command.js';

export const commands: CliCommand[] = [];
