import { Controller, Inject, Injectable, Post } from '@nestjs/common';
import { SqlHost } from '../../database/sql-host';
import { TransactionHost } from '../../database/transaction-host';
import { Idempotent } from './idempotent.decorator';
import { pathToModelQueries, sqlOnlyHandlers, transactionKindMismatch } from './transaction-kind-check';

@Injectable()
class SqlService {
  constructor(readonly txHost: SqlHost) {}
}

@Injectable()
class ModelService {
  constructor(readonly txHost: TransactionHost) {}
}

/** Reaches model queries two steps away, through a token given with @Inject. */
@Injectable()
class Facade {
  constructor(
    readonly sql: SqlService,
    @Inject(ModelService) readonly models: unknown,
  ) {}
}

@Controller('sql')
class SqlController {
  constructor(readonly service: SqlService) {}
  @Post() @Idempotent({ sqlOnly: true }) create() {}
}

@Controller('facade')
class FacadeController {
  constructor(readonly facade: Facade) {}
  @Post() @Idempotent({ sqlOnly: true }) create() {}
  @Post('other') @Idempotent() other() {}
}

@Controller('models')
class ModelController {
  constructor(readonly service: ModelService) {}
  @Post() @Idempotent() create() {}
}

describe('The transaction kind of @Idempotent routes, checked at start-up', () => {
  it('finds the handlers that ask for a SQL transaction', () => {
    expect(sqlOnlyHandlers(FacadeController)).toEqual(['create']);
    expect(sqlOnlyHandlers(ModelController)).toEqual([]);
  });

  it('passes a sqlOnly route whose services inject only SqlHost', () => {
    expect(pathToModelQueries(SqlController)).toBeUndefined();
    expect(transactionKindMismatch(SqlController)).toBeUndefined();
  });

  it('refuses a sqlOnly route that reaches TransactionHost, naming the handler and the path', () => {
    expect(pathToModelQueries(FacadeController)).toEqual([FacadeController, Facade, ModelService, TransactionHost]);
    const mismatch = transactionKindMismatch(FacadeController);
    expect(mismatch).toContain('FacadeController.create:');
    expect(mismatch).toContain('FacadeController → Facade → ModelService → TransactionHost');
    expect(mismatch).not.toContain('FacadeController.other');
  });

  it('leaves routes that run in a client transaction alone, whatever they inject', () => {
    expect(pathToModelQueries(ModelController)).toEqual([ModelController, ModelService, TransactionHost]);
    expect(transactionKindMismatch(ModelController)).toBeUndefined();
  });
});
