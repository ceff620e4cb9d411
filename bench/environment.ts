import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { cpus, loadavg, release, totalmem } from 'node:os';
import { join } from 'node:path';

const KEY_PACKAGES = [
  '@nestjs/core',
  '@nestjs/platform-express',
  'express',
  '@prisma/client',
  '@prisma/adapter-pg',
  'pg',
  '@electric-sql/pglite',
  'nestjs-cls',
  '@nestjs/throttler',
  'autocannon',
];

export interface Machine {
  cpuCount: number;
  cpuModel: string;
  memoryGiB: number;
  kernel: string;
  /** 1-minute load average when the benchmark started: other work on a shared machine shows here. */
  loadAverage: number;
}

export function describeMachine(): Machine {
  return {
    cpuCount: cpus().length,
    cpuModel: cpus()[0]?.model.trim() ?? 'unknown',
    memoryGiB: totalmem() / 1024 ** 3,
    kernel: release(),
    loadAverage: loadavg()[0],
  };
}

/**
 * The service's start command as it ships (package.json's `start`, which the image's ENV and CMD
 * repeat): `[NAME=value…] node <options> <script>`, split into the environment it sets, the node
 * options and the script.
 */
export function shippedStartCommand(root: string): { environment: Record<string, string>; nodeOptions: string[]; script: string } {
  const start = (JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts.start;
  const words = start.trim().split(/\s+/);
  const environment: Record<string, string> = {};
  while (words.length > 0 && /^[A-Z_][A-Z0-9_]*=\S*$/.test(words[0])) {
    const assignment = words.shift()!;
    const equals = assignment.indexOf('=');
    environment[assignment.slice(0, equals)] = assignment.slice(equals + 1);
  }
  const [command, ...rest] = words;
  const script = rest.pop();
  if (command !== 'node' || script === undefined || rest.some((word) => !word.startsWith('--'))) {
    throw new Error(`package.json's start script is not "[NAME=value…] node [--option…] script": ${start}`);
  }
  return { environment, nodeOptions: rest, script };
}

export function packageVersions(root: string): Record<string, string> {
  const versions: Record<string, string> = { node: process.version };
  for (const name of KEY_PACKAGES) {
    try {
      versions[name] = (JSON.parse(readFileSync(join(root, 'node_modules', name, 'package.json'), 'utf8')) as { version: string }).version;
    } catch {
      versions[name] = 'not installed';
    }
  }
  return versions;
}

/** The commit measured, marked when the work tree had changes outside docs/ (the reports and the prose about them). */
export function gitCommit(root: string): string {
  try {
    const git = (...args: string[]) => execFileSync('git', args, { cwd: root, encoding: 'utf8' }).trim();
    const changes = git('status', '--porcelain', '--untracked-files=no', '--', '.', ':!docs');
    return `${git('rev-parse', '--short', 'HEAD')}${changes === '' ? '' : ' (with uncommitted changes)'}`;
  } catch {
    return 'unknown';
  }
}
