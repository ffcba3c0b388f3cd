/**
 * The two ways a command ends short of success that its operator expects: exit 2 with the usage,
 * or exit 1 with one line saying why. Anything else thrown is a bug and prints its stack.
 */

/** A command line that names no command or gives it the wrong arguments. */
export class UsageError extends Error {
  override name = 'UsageError';
}

/** A command that ran and could not do what was asked (an unknown Session, a rebuild already running). */
export class CommandRefused extends Error {
  override name = 'CommandRefused';
}
