#!/usr/bin/env node
// The release workflow's checks and notes (.github/workflows/release.yml), kept here so a test runs them:
//   node scripts/release.mjs check <tag>   the tag is vX.Y.Z and names package.json's version
//   node scripts/release.mjs notes <tag>   Markdown release notes: the commits since the previous vX.Y.Z
//   node scripts/release.mjs major <tag>   the major tag the release moves (v1 for v1.4.2)
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import process from 'node:process';
import { pathToFileURL } from 'node:url';

const RELEASE_TAG = /^v(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)$/;

function git(cwd, ...args) {
  return execFileSync('git', args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
}

/** The problem with `tag`, or undefined when it may be released from this checkout. */
export function checkTag(tag, version) {
  if (!RELEASE_TAG.test(tag)) return `${tag}: a release tag is vMAJOR.MINOR.PATCH, e.g. v1.4.2`;
  if (tag !== `v${version}`)
    return `${tag}: package.json says version ${version}; tag v${version} or bump the version`;
  return undefined;
}

/** The release before `tag`: the newest vX.Y.Z reachable from its parent, or undefined for the first. */
function previousRelease(tag, cwd) {
  try {
    return git(cwd, 'describe', '--tags', '--abbrev=0', '--match', 'v[0-9]*.[0-9]*.[0-9]*', `${tag}^`);
  } catch {
    return undefined;
  }
}

/** Markdown notes: one line per commit (merges left out) since the previous release, newest first. */
export function releaseNotes(tag, cwd = process.cwd()) {
  const previous = previousRelease(tag, cwd);
  const range = previous ? `${previous}..${tag}` : tag;
  const lines = git(cwd, 'log', '--no-merges', '--format=- %s (%h)', range);
  const since = previous ? `since ${previous}` : 'in the first release';
  return `## Changes ${since}\n\n${lines || '- no commits'}\n`;
}

const [command, tag] = process.argv.slice(2);
if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href && command) {
  if (!tag) {
    process.stderr.write('usage: node scripts/release.mjs check|notes|major <tag>\n');
    process.exit(2);
  }
  const { version } = JSON.parse(readFileSync('package.json', 'utf8'));
  const problem = checkTag(tag, version);
  if (problem) {
    process.stderr.write(`${problem}\n`);
    process.exit(1);
  }
  if (command === 'notes') process.stdout.write(releaseNotes(tag));
  else if (command === 'major') process.stdout.write(`${tag.split('.')[0]}\n`);
  else if (command !== 'check') {
    process.stderr.write(`unknown command ${command}: check, notes or major\n`);
    process.exit(2);
  }
}
