import { Injectable } from '@nestjs/common';
import { AsyncLocalStorage } from 'node:async_hooks';
import type { Prisma } from '../generated/prisma/client';
import { PrismaService } from './prisma.service';

export type DatabaseClient = Prisma.TransactionClient;

/**
 * The one way services reach the database. `tx` is the client of the transaction the caller is
 * in, or the plain client outside one, so that a write joins a transaction opened further up
 * (the idempotency record and the department commit together) without a client being passed
 * through every call. Request context is kept only inside a transaction: nothing runs per request.
 */
@Injectable()
export class TransactionHost {
  private readonly current = new AsyncLocalStorage<DatabaseClient>();

  constructor(private readonly prisma: PrismaService) {}

  get tx(): DatabaseClient {
    return this.current.getStore() ?? this.prisma;
  }

  /** Runs `work` in a transaction, joining the caller's when there is one; rolls back when it throws. */
  withTransaction<T>(work: () => Promise<T>): Promise<T> {
    if (this.current.getStore()) return work();
    return this.prisma.$transaction((tx) => this.current.run(tx, work));
  }
}
