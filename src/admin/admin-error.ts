/** A refusal an operator can act on; the CLI prints its message. */
export class AdminError extends Error {}
