/** Serves a GitHub stand-in on 127.0.0.1:0 for one test file. */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  createGitHubStandIn,
  type GitHubStandIn,
  type GitHubStandInOptions,
} from '../../src/sandbox/github/index.js';

export interface Served {
  gh: GitHubStandIn;
  url: string;
  close(): Promise<void>;
}

export async function serveStandIn(opts: GitHubStandInOptions = {}): Promise<Served> {
  const gh = createGitHubStandIn(opts);
  const server: Server = createServer(gh.handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    gh,
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((err) => (err ? reject(err) : resolve()));
      }),
  };
}

/** The tokens most tests use: a write-capable Actions token, a read-only one, and a personal token. */
export const TOKENS = {
  'ghs-write': { login: 'github-actions[bot]', id: 41898282, type: 'Bot' as const, installation: true },
  'ghs-readonly': {
    login: 'github-actions[bot]',
    id: 41898282,
    type: 'Bot' as const,
    installation: true,
    readOnly: true,
  },
  'ghp-alice': { login: 'alice', id: 501, type: 'User' as const },
  'ghp-mallory': { login: 'mallory', id: 666, type: 'User' as const },
};
