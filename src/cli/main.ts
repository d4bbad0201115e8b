/** `chaos-gate <command>`: dispatches to one subcommand and maps its result to the exit code. */
import { commands } from './commands/index.js';
import { UsageError, type CliIo } from './command.js';

export function helpText(): string {
  const width = Math.max(...commands.map((c) => c.name.length), 8);
  return [
    'chaos-gate — a chaos experiment as a deployment gate',
    '',
    'Usage: chaos-gate <command> [options]   (chaos-gate <command> --help for details)',
    '',
    'Commands:',
    ...commands.map((c) => `  ${c.name.padEnd(width)}  ${c.summary}`),
  ].join('\n');
}

export async function main(argv: string[], io: CliIo): Promise<number> {
  const [name, ...rest] = argv;
  if (name === undefined || name === '--help' || name === '-h' || name === 'help') {
    io.out(helpText());
    return name === undefined ? 2 : 0;
  }
  const command = commands.find((c) => c.name === name);
  if (!command) {
    io.err(`chaos-gate: unknown command '${name}'.\n\n${helpText()}`);
    return 2;
  }
  if (rest.includes('--help') || rest.includes('-h')) {
    io.out(command.usage);
    return 0;
  }
  try {
    return await command.run(rest, io);
  } catch (error) {
    if (error instanceof UsageError) {
      io.err(`chaos-gate ${name}: ${error.message}\n\n${command.usage}`);
      return 2;
    }
    io.err(`chaos-gate ${name}: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
    return 1;
  }
}

/** Runs the CLI as a process: argv, stdio and the exit code. */
export async function runProcess(): Promise<void> {
  // `chaos-gate validate plan.yaml | head -1` closes the pipe early: that is not an error of ours.
  for (const stream of [process.stdout, process.stderr]) {
    stream.on('error', (error: NodeJS.ErrnoException) => {
      if (error.code !== 'EPIPE') throw error;
    });
  }
  const code = await main(process.argv.slice(2), {
    out: (t) => process.stdout.write(t + '\n'),
    err: (t) => process.stderr.write(t + '\n'),
    tty: Boolean(process.stdout.isTTY),
    env: process.env,
    cwd: process.cwd(),
  });
  process.exitCode = code;
}
