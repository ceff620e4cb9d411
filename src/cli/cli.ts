import { parseArgs } from 'node:util';
import { AdminArgumentError, AdminError } from '../admin/admin-error';
import type { AdminService } from '../admin/admin.service';
import { APP_REGISTRIES } from '../app.module';

export interface CliIo {
  out: (line: string) => void;
  err: (line: string) => void;
}

/** The command line names no command, an unknown option, or leaves one out (exit code 2, with the usage). */
export class UsageError extends Error {
  constructor(
    message: string,
    readonly usage: string,
  ) {
    super(message);
  }
}

/**
 * What a failed command prints on stderr: one JSON object on one line, with a stable `code`
 * (`usage_error`, `invalid_argument`, `operation_refused`, `internal_error`), the message, and the
 * command's usage where the command line was at fault.
 */
export function errorLine(code: string, message: string, usage?: string): string {
  return JSON.stringify({ error: { code, message, ...(usage === undefined ? {} : { usage }) } });
}

/** `--scopes all`: every scope of the catalog (the `scopes` command lists them). */
const ALL_SCOPES = 'all';

interface Command {
  usage: string;
  options: Record<string, { type: 'string' }>;
  /** false: the command never opens the database, so it also runs beside a service holding the embedded one. */
  usesDatabase?: false;
  run: (admin: AdminService, values: Record<string, string>) => Promise<unknown>;
}

const COMMANDS: Record<string, Command> = {
  scopes: {
    usage: 'scopes',
    options: {},
    usesDatabase: false,
    run: () => Promise.resolve({ scopes: APP_REGISTRIES.scopes.all }),
  },
  'org list': {
    usage: 'org list',
    options: {},
    run: (admin) => admin.listOrganizations(),
  },
  'demo-key': {
    usage: 'demo-key',
    options: {},
    run: (admin) => admin.createDemoKey(),
  },
  'org create': {
    usage: 'org create --name NAME',
    options: { name: { type: 'string' } },
    run: (admin, v) => admin.createOrganization(v.name),
  },
  'apikey create': {
    usage: 'apikey create --org ORG_ID --scopes all|SCOPE[,SCOPE...]',
    options: { org: { type: 'string' }, scopes: { type: 'string' } },
    run: (admin, v) => admin.createApiKey(v.org, v.scopes.trim() === ALL_SCOPES ? [...APP_REGISTRIES.scopes.names] : v.scopes.split(',')),
  },
  'apikey list': {
    usage: 'apikey list --org ORG_ID',
    options: { org: { type: 'string' } },
    run: (admin, v) => admin.listApiKeys(v.org),
  },
  'apikey revoke': {
    usage: 'apikey revoke --id KEY_ID',
    options: { id: { type: 'string' } },
    run: (admin, v) => admin.revokeApiKey(v.id),
  },
  'expert-suite create': {
    usage: 'expert-suite create --org ORG_ID --name NAME',
    options: { org: { type: 'string' }, name: { type: 'string' } },
    run: (admin, v) => admin.createExpertSuite(v.org, v.name),
  },
  'category create': {
    usage: 'category create --org ORG_ID --name NAME',
    options: { org: { type: 'string' }, name: { type: 'string' } },
    run: (admin, v) => admin.createCategory(v.org, v.name),
  },
  'uploads import': {
    usage: 'uploads import --from UPLOAD_DIR',
    options: { from: { type: 'string' } },
    run: (admin, v) => admin.importUploadFiles(v.from),
  },
  'subscription set': {
    usage: 'subscription set --org ORG_ID --anchor ISO_DATE_TIME',
    options: { org: { type: 'string' }, anchor: { type: 'string' } },
    run: (admin, v) => admin.setSubscriptionAnchor(v.org, v.anchor),
  },
};

export const USAGE = ['Usage: npm run --silent cli -- <command>', ...Object.values(COMMANDS).map((c) => `  ${c.usage}`)].join('\n');

/** True when the command never opens the database (see Command.usesDatabase). */
export function usesDatabase(parsed: ParsedCommand): boolean {
  return parsed.command.usesDatabase !== false;
}

export interface ParsedCommand {
  command: Command;
  values: Record<string, string>;
}

/** Checks the words and options before anything touches the database. */
export function parseCommand(argv: string[]): ParsedCommand {
  const words = COMMANDS[argv[0]] ? 1 : 2;
  const name = argv.slice(0, words).join(' ');
  const command = COMMANDS[name];
  if (!command) throw new UsageError(`Unknown command "${name}".`, USAGE);
  let values: Record<string, string | undefined>;
  try {
    ({ values } = parseArgs({ args: argv.slice(words), options: command.options, strict: true, allowPositionals: false }));
  } catch (error) {
    throw new UsageError((error as Error).message, command.usage);
  }
  const missing = Object.keys(command.options).filter((option) => values[option] === undefined);
  if (missing.length > 0) throw new UsageError(`Missing ${missing.map((m) => `--${m}`).join(', ')}.`, command.usage);
  return { command, values: values as Record<string, string> };
}

/**
 * Runs one command and prints its result as one JSON object on stdout, or its error as one on
 * stderr (errorLine); returns the exit code: 0, 1 for a refused operation, 2 for a malformed option
 * value. `admin` may be undefined only for a command that uses no database.
 */
export async function runCommand(parsed: ParsedCommand, admin: AdminService | undefined, io: CliIo): Promise<number> {
  try {
    io.out(JSON.stringify(await parsed.command.run(admin as AdminService, parsed.values)));
    return 0;
  } catch (error) {
    if (error instanceof AdminArgumentError) {
      io.err(errorLine('invalid_argument', error.message, parsed.command.usage));
      return 2;
    }
    if (error instanceof AdminError) {
      io.err(errorLine('operation_refused', error.message));
      return 1;
    }
    throw error;
  }
}
