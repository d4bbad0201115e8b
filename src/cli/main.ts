/**
 * `chaos-gate <command>`: dispatches to one subcommand and maps its result to the exit code. Commands are
 * imported on demand (`commands/index.ts`), so `--version` and `--help` load no command at all.
 */
import { commands } from './commands/index.js';
import { UsageError, type CliIo } from './command.js';
import { exitOf } from '../errors/exit.js';
import { errorMessage } from '../errors/message.js';
import { registerEnvironmentSecrets } from '../security/environment.js';
import { redact } from '../security/redact.js';
import { logLines } from '../security/log-text.js';
import { cliVersion } from './version.js';

/** Exit code for bad usage, unreadable input and refusals (the README's exit-code table). */
const EXIT_USAGE = 2;
/** Exit code when the tool itself failed (the README's exit-code table: `failed`). */
const EXIT_FAILED = 1;

export function helpText(): string {
  const width = Math.max(...commands.map((c) => c.name.length), 8);
  return [
    'chaos-gate — a chaos experiment as a deployment gate',
    '',
    'Usage: chaos-gate <command> [options]   (chaos-gate <command> --help for details)',
    '       chaos-gate --version',
    '',
    'Commands:',
    ...commands.map((c) => `  ${c.name.padEnd(width)}  ${c.summary}`),
    '',
    'Exit codes: 0 success (held, valid, ready); 1 the gate did not pass (deviated, aborted, inconclusive,',
    'not-run, failed) or a check found a problem; 2 refused, invalid or unreadable input, or bad usage.',
  ].join('\n');
}

/** The message of an error the CLI did not expect: one line, with the stack only on request. */
function unexpected(error: unknown, env: NodeJS.ProcessEnv): string {
  if (!(error instanceof Error)) return String(error);
  if (env.CHAOS_GATE_DEBUG) return error.stack ?? error.message;
  return `${error.message} (set CHAOS_GATE_DEBUG=1 to print where it happened)`;
}

export async function main(argv: string[], io: CliIo): Promise<number> {
  const [name, ...rest] = argv;
  if (name === undefined) {
    io.err(helpText());
    return EXIT_USAGE;
  }
  if (name === '--help' || name === '-h' || (name === 'help' && rest.length === 0)) {
    io.out(helpText());
    return 0;
  }
  if (name === '--version' || name === '-v' || name === 'version') {
    io.out(cliVersion());
    return 0;
  }
  const asked = name === 'help' ? rest[0] : name;
  const entry = commands.find((c) => c.name === asked);
  if (!entry) {
    const what = asked?.startsWith('-') ? 'option' : 'command';
    io.err(
      `chaos-gate: unknown ${what} '${asked ?? ''}'; expected a command (${commands.map((c) => c.name).join(', ')}), --help or --version`,
    );
    return EXIT_USAGE;
  }
  const command = await entry.load();
  if (name === 'help' || rest.includes('--help') || rest.includes('-h')) {
    io.out(command.usage);
    return 0;
  }
  try {
    return await command.run(rest, io);
  } catch (error) {
    if (error instanceof UsageError) {
      // One reason per line, each naming the command, then the usage.
      const reasons = error.message.split('\n').map((line) => `chaos-gate ${entry.name}: ${line}`);
      io.err(redact(`${reasons.join('\n')}\n\n${command.usage}`));
      return EXIT_USAGE;
    }
    // Bad input (a setting, a URL, a file) is the user's to fix: the message alone, never a stack trace.
    // An error that says how it ends the process (errors/exit.ts): its message alone and its code.
    const exit = exitOf(error);
    if (exit) {
      io.err(redact(`chaos-gate ${entry.name}: ${errorMessage(error)}`));
      return exit.code;
    }
    io.err(redact(`chaos-gate ${entry.name}: ${unexpected(error, io.env)}`));
    return EXIT_FAILED;
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
  // docs/design/principles.md#security: inherited credentials are secrets from the start, and every line printed passes the one
  // redactor (commands register what they read: Prometheus settings, plan variables, SigV4 keys).
  registerEnvironmentSecrets(process.env);
  const code = await main(process.argv.slice(2), {
    // A line of untrusted text cannot issue a CI system's workflow command (security/log-text.ts).
    out: (t) => process.stdout.write(logLines(redact(t)) + '\n'),
    err: (t) => process.stderr.write(logLines(redact(t)) + '\n'),
    tty: Boolean(process.stdout.isTTY),
    errTty: Boolean(process.stderr.isTTY),
    env: process.env,
    cwd: process.cwd(),
  });
  process.exitCode = code;
}
