#!/usr/bin/env node
import { createRequire as __cgCreateRequire } from 'node:module';
const require = __cgCreateRequire(import.meta.url);

// src/cli/commands/index.ts
var commands = [];

// src/cli/command.ts
var UsageError = class extends Error {
  name = "UsageError";
};

// src/cli/main.ts
function helpText() {
  const width = Math.max(...commands.map((c) => c.name.length), 8);
  return [
    "chaos-gate \u2014 a chaos experiment as a deployment gate",
    "",
    "Usage: chaos-gate <command> [options]   (chaos-gate <command> --help for details)",
    "",
    "Commands:",
    ...commands.map((c) => `  ${c.name.padEnd(width)}  ${c.summary}`)
  ].join("\n");
}
async function main(argv, io) {
  const [name, ...rest] = argv;
  if (name === void 0 || name === "--help" || name === "-h" || name === "help") {
    io.out(helpText());
    return name === void 0 ? 2 : 0;
  }
  const command = commands.find((c) => c.name === name);
  if (!command) {
    io.err(`chaos-gate: unknown command '${name}'.

${helpText()}`);
    return 2;
  }
  if (rest.includes("--help") || rest.includes("-h")) {
    io.out(command.usage);
    return 0;
  }
  try {
    return await command.run(rest, io);
  } catch (error) {
    if (error instanceof UsageError) {
      io.err(`chaos-gate ${name}: ${error.message}

${command.usage}`);
      return 2;
    }
    io.err(`chaos-gate ${name}: ${error instanceof Error ? error.stack ?? error.message : String(error)}`);
    return 1;
  }
}
async function runProcess() {
  const code = await main(process.argv.slice(2), {
    out: (t) => process.stdout.write(t + "\n"),
    err: (t) => process.stderr.write(t + "\n"),
    tty: Boolean(process.stdout.isTTY),
    env: process.env,
    cwd: process.cwd()
  });
  process.exitCode = code;
}

// src/cli/index.ts
void runProcess();
//# sourceMappingURL=cli.js.map
