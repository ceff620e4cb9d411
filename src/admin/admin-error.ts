/** A refusal an operator can act on; the CLI prints its message (exit code 1). */
export class AdminError extends Error {}

/** An option's value is malformed (not a uuid, blank, an unknown scope): the CLI adds the command's usage (exit code 2). */
export class AdminArgumentError extends AdminError {}
