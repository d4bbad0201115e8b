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
