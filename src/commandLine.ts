import type { ServiceContext } from './serviceContext.js';

/**
 * The command line's shapes. A command ends short of success in one of two ways its operator
 * expects: exit 2 with the usage, or exit 1 with one line saying why. Anything else thrown is a
 * bug and prints its stack.
 */

/** A command line that names no command or gives it the wrong arguments. */
export class UsageError extends Error {
  override name = 'UsageError';
}

/** A command that ran and could not do what was asked (an unknown Session, a rebuild already running). */
export class CommandRefused extends Error {
  override name = 'CommandRefused';
}

/** What the usage says of a command, and `svc NAME --help` at more length. */
export interface CommandDescription {
  name: string;
  /** Its arguments as the usage writes them: `NAME | --all [--json]`. */
  synopsis?: string;
  /** What it does, in one line. */
  summary: string;
  /** What its own help adds, made when asked (the projections it can rebuild, say). */
  details?: () => string;
}

/**
 * A command run once and ended with its exit code, declared by the capability it operates on
 * (its record's `commands`). `open` connects to the database the environment names and builds the
 * service's context over it; a command that needs no database never calls it.
 */
export interface OperatorCommand extends CommandDescription {
  run(args: string[], open: () => Promise<ServiceContext>): Promise<number>;
}

/** Either of these among a command's arguments asks for its help, and runs nothing. */
export const HELP_FLAGS: ReadonlySet<string> = new Set(['--help', '-h']);

/** The usage's line for a command: its name and arguments, then what it does. */
export function usageLine(command: CommandDescription): string {
  const head = `  ${command.name}${command.synopsis ? ` ${command.synopsis}` : ''}`;
  return head.length < 22 ? `${head.padEnd(22)}${command.summary}` : `${head}\n${' '.repeat(22)}${command.summary}`;
}

/** What `svc NAME --help` prints. */
export function helpOf(command: CommandDescription): string {
  const lines = [`usage: svc ${command.name}${command.synopsis ? ` ${command.synopsis}` : ''}`, `  ${command.summary}`];
  const details = command.details?.();
  if (details) lines.push(...details.split('\n').map((line) => (line ? `  ${line}` : line)));
  return lines.join('\n');
}
