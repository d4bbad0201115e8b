import { parseArgs, type ParseArgsConfig } from 'node:util';

/** The shape of one CLI subcommand. Commands parse their own flags and call one engine function. */
export interface CliIo {
  out: (text: string) => void;
  err: (text: string) => void;
  /** True when stdout is a terminal (progress lines are printed per tick). */
  tty: boolean;
  env: NodeJS.ProcessEnv;
  cwd: string;
}

export interface CliCommand {
  name: string;
  summary: string;
  usage: string;
  /** Returns the process exit code. Throws only for bad usage (reported with exit 2). */
  run(argv: string[], io: CliIo): Promise<number>;
}

/** Thrown for bad flags or unreadable input: exit code 2, message printed with the usage. */
export class UsageError extends Error {
  override name = 'UsageError';
}

/**
 * `node:util` parseArgs in strict mode with positionals allowed; a bad flag becomes a `UsageError`
 * (exit 2 with the command's usage), so every command reports bad flags the same way.
 */
export function parseFlags<const O extends NonNullable<ParseArgsConfig['options']>>(
  argv: string[],
  options: O,
) {
  try {
    return parseArgs({ args: argv, options, allowPositionals: true, strict: true });
  } catch (error) {
    throw new UsageError(error instanceof Error ? error.message : String(error));
  }
}
