import { resolve } from 'node:path';
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { confineOutput, FileWriteError, outputRoots, writeOutput } from '../files/write.js';
import { errorMessage } from '../errors/message.js';

/** The shape of one CLI subcommand. Commands parse their own flags and call one engine function. */
export interface CliIo {
  out: (text: string) => void;
  err: (text: string) => void;
  /** True when stdout is a terminal (progress lines are printed per tick). */
  tty: boolean;
  /** True when stderr is a terminal (`run` prints its progress there, coloured unless NO_COLOR or CI). */
  errTty?: boolean | undefined;
  env: NodeJS.ProcessEnv;
  cwd: string;
}

export interface CliCommand {
  name: string;
  /** The `--help` text. The one-line summary lives in `commands/index.ts`, which lists every command. */
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
 * (exit 2 with the command's usage), so every command reports bad flags the same way and in our words,
 * never Node's (`ERR_PARSE_ARGS_*` messages quote the option unevenly and suggest `--`).
 */
export function parseFlags<const O extends NonNullable<ParseArgsConfig['options']>>(
  argv: string[],
  options: O,
) {
  try {
    return parseArgs({ args: argv, options, allowPositionals: true, strict: true });
  } catch (error) {
    throw new UsageError(flagProblem(error, argv, options));
  }
}

/** The option a parseArgs error is about: the first quoted `-x`/`--name` in Node's message. */
function optionIn(message: string): string | undefined {
  return /'(--?[^'\s=]+)/.exec(message)?.[1];
}

/** `--journal <value>`, `--json`: how an option is written, for "expected one of". */
function described(name: string, spec: { type: 'string' | 'boolean' }): string {
  return spec.type === 'string' ? `--${name} <value>` : `--${name}`;
}

/** One sentence for a parseArgs failure: what is wrong, the option as given, what is expected. */
export function flagProblem(
  error: unknown,
  argv: readonly string[],
  options: NonNullable<ParseArgsConfig['options']>,
): string {
  const code = (error as { code?: unknown }).code;
  const message = errorMessage(error);
  const option = optionIn(message);
  const known = Object.entries(options).map(([name, spec]) => described(name, spec));
  const expected = known.length > 0 ? `one of ${[...known, '--help'].join(', ')}` : 'no options but --help';
  if (code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION' && option !== undefined) {
    return `unknown option '${option}'; expected ${expected}`;
  }
  if (code === 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE' && option !== undefined) {
    const name = option.replace(/^-+/, '');
    const spec = options[name] ?? Object.entries(options).find(([, s]) => `-${s.short}` === option)?.[1];
    if (spec?.type === 'boolean') {
      const given = argv.find((a) => a.startsWith(`${option}=`));
      return `option '${option}' takes no value${given ? ` (given '${given}')` : ''}; expected ${option} alone`;
    }
    return `option '${option}' needs a value; expected ${option} <value>`;
  }
  return `${message.replace(/\.$/, '')}; expected ${expected}`;
}

/**
 * Where a command may write a file a flag names (files/write.ts): the current directory, the workspace
 * (`GITHUB_WORKSPACE`) and the temp directory (`RUNNER_TEMP`, else the OS's), no symlink followed.
 */
export function cliOutputRoots(io: CliIo): string[] {
  const roots = outputRoots(io.cwd, io.env);
  return io.env.GITHUB_WORKSPACE ? [...new Set([...roots, resolve(io.env.GITHUB_WORKSPACE)])] : roots;
}

/** The absolute path of an output flag's value once confined; bad usage (exit 2) naming flag and value. */
export function confinedOutputPath(io: CliIo, flag: string, value: string): string {
  try {
    return confineOutput(resolve(io.cwd, value), {
      what: `file of ${flag}`,
      roots: cliOutputRoots(io),
      display: value,
    });
  } catch (error) {
    if (error instanceof FileWriteError) throw new UsageError(error.message);
    throw error;
  }
}

/** Writes an output flag's file, confined (see {@link confinedOutputPath}). */
export function writeCliOutput(io: CliIo, flag: string, value: string, data: string): string {
  const abs = confinedOutputPath(io, flag, value);
  try {
    return writeOutput(abs, data, { what: `file of ${flag}`, roots: cliOutputRoots(io), display: value });
  } catch (error) {
    if (error instanceof FileWriteError) throw new UsageError(error.message);
    throw error;
  }
}
