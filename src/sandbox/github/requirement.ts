/**
 * The one package the sandbox needs that an install without development dependencies lacks: the GitHub
 * stand-in checks every request against GitHub's REST description, which ships in `@octokit/openapi`
 * (some 100 MB, so the packed product does not depend on it). `chaos-gate sandbox` and `chaos-gate demo`
 * ask here first and, when it is missing, say how to add it instead of failing deep inside the stand-in.
 */
import { createRequire } from 'node:module';
import { sep } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The package, and the major version chaos-gate is tested with (package.json `devDependencies`). */
export const OPENAPI_PACKAGE = '@octokit/openapi';
export const OPENAPI_MAJOR = 23;

/** The package's package.json as Node resolves it from `from`, or undefined when it is not installed. */
export function openApiPackageJson(from: string = import.meta.url): string | undefined {
  try {
    return createRequire(from).resolve(`${OPENAPI_PACKAGE}/package.json`);
  } catch {
    return undefined;
  }
}

/**
 * The directory whose `node_modules` holds chaos-gate when it runs from an installed package (the last
 * `node_modules` in its path), or undefined when it runs from a clone of the repository.
 */
export function installRoot(from: string = import.meta.url): string | undefined {
  const file = from.startsWith('file:') ? fileURLToPath(from) : from;
  const at = file.lastIndexOf(`${sep}node_modules${sep}`);
  return at < 0 ? undefined : file.slice(0, at) || sep;
}

/** The command that adds the package where Node will find it from `from`. */
export function installCommand(from: string = import.meta.url): string {
  const root = installRoot(from);
  return root === undefined
    ? 'npm ci   # in the clone: installs the development dependencies, the sandbox included'
    : `npm install --prefix ${JSON.stringify(root)} --no-save ${OPENAPI_PACKAGE}@${OPENAPI_MAJOR}`;
}

/** What `command` cannot do without the package and how to add it; undefined when it is installed. */
export function missingSandboxDependency(
  command: string,
  from: string = import.meta.url,
): string | undefined {
  if (openApiPackageJson(from) !== undefined) return undefined;
  return [
    `chaos-gate ${command}: the sandbox's GitHub stand-in needs GitHub's REST description from the package`,
    `${OPENAPI_PACKAGE}, which is not installed (chaos-gate was installed without development dependencies).`,
    'Add it beside chaos-gate, then run the command again:',
    `  ${installCommand(from)}`,
  ].join('\n');
}
