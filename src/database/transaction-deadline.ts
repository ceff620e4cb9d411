import { AsyncLocalStorage } from 'node:async_hooks';

/**
 * The time limit of the SQL transaction being opened when its caller bounds it another way than
 * TRANSACTION_TIMEOUT_MS (a streamed upload is bounded by its request). SqlDriver sets it around
 * opening the transaction; PostgresPool gives the connection it checks out that deadline.
 */
export const openingTransactionTimeout = new AsyncLocalStorage<number>();
