import { Injectable } from '@nestjs/common';
import type { AuditActor } from '../../common/audit/audit-actor';
import { AuditStatements, sqlChanges } from '../../common/audit/audit-event';
import { Clock } from '../../common/clock';
import { AppError } from '../../common/errors/app-error';
import { ErrorCode } from '../../common/errors/error-code';
import { DEFAULT_PAGE_SIZE } from '../../common/pagination/page-size';
import { pageOfRows, POSITIVE_INT64, startOfPage } from '../../common/pagination/page-token';
import { violations } from '../../database/constraint-violations';
import { SqlHost } from '../../database/sql-host';
import { Prisma } from '../../generated/prisma/client';
import type { Create__Singular__Dto } from './dto/create-__singular_kebab__.dto';
import type { __Singular__Dto } from './dto/__singular_kebab__.dto';
import type { __Singular__PageDto } from './dto/__singular_kebab__-page.dto';
import type { List__Plural__QueryDto } from './dto/list-__kebab__-query.dto';
import { to__Singular__Dto, type __Singular__Row } from './__singular_kebab__.mapper';
import { __Plural__Error } from './__kebab__.errors';
import { __Plural__Audit } from './__kebab__.audit';

const COLUMNS = Prisma.sql`id, name, seq, created_at AS "createdAt"`;

// The unique index of @@unique([organizationId, name]) in prisma/schema.prisma, by the name its
// migration gives it (a name no migration creates is a type error).
const conflicts = violations({
  __snake___organization_id_name_key: () =>
    new AppError(__Plural__Error.__SINGULAR_UPPER___NAME_CONFLICT, 'Another __singular_words__ of the organization already has this name.'),
});

@Injectable()
export class __Plural__Service {
  /** SqlHost: raw statements only, so the create runs in the SQL transaction of @Idempotent({ sqlOnly: true }). */
  constructor(
    private readonly txHost: SqlHost,
    private readonly clock: Clock,
    private readonly audit: AuditStatements,
  ) {}

  /**
   * One statement, which also writes the `__singular_snake__.created` audit event and its webhook deliveries (docs/audit.md);
   * runs in the caller's transaction (the idempotency record's). The unique index refuses a taken name.
   */
  async create(organizationId: string, input: Create__Singular__Dto, actor: AuditActor): Promise<__Singular__Dto> {
    const now = this.clock.now();
    try {
      const [row] = await this.txHost.sql.query<__Singular__Row>(Prisma.sql`
        WITH changed AS (
          INSERT INTO __snake__ (id, organization_id, name, created_at) VALUES (gen_random_uuid(), ${organizationId}::uuid, ${input.name}, ${now})
          RETURNING ${COLUMNS}),
        ${this.audit.insertFrom({ actor, at: now }, Prisma.sql`changed`, {
          organizationId,
          action: __Plural__Audit.Created,
          resourceId: Prisma.sql`changed.id::text`,
          changes: sqlChanges({ name: { old: null, new: Prisma.sql`changed.name` } }),
        })}
        SELECT * FROM changed`);
      return to__Singular__Dto(row);
    } catch (error) {
      throw conflicts(error);
    }
  }

  /** One statement on the primary key; another organization's __singular_words__ is as missing as one that never was. */
  async get(organizationId: string, id: string): Promise<__Singular__Dto> {
    const [row] = await this.txHost.sql.query<__Singular__Row>(Prisma.sql`
      SELECT ${COLUMNS} FROM __snake__ WHERE organization_id = ${organizationId}::uuid AND id = ${id}::uuid`);
    if (!row) throw new AppError(ErrorCode.NOT_FOUND, `No __singular_words__ ${id} exists in this organization.`);
    return to__Singular__Dto(row);
  }

  /** Keyset pagination on (seq, id): one indexed statement per page, fetching one row more than the page to learn whether another follows. */
  async list(organizationId: string, query: List__Plural__QueryDto): Promise<__Singular__PageDto> {
    const pageSize = query.page_size ?? DEFAULT_PAGE_SIZE;
    const tokenQuery = ['__snake__', organizationId];
    const position = startOfPage(tokenQuery, POSITIVE_INT64, query.page_token, 'organization');
    const after = position ? Prisma.sql`AND (seq, id) > (${position.after}::bigint, ${position.id}::uuid)` : Prisma.empty;
    const rows = await this.txHost.sql.query<__Singular__Row>(Prisma.sql`
      SELECT ${COLUMNS} FROM __snake__ WHERE organization_id = ${organizationId}::uuid ${after}
      ORDER BY seq, id LIMIT ${pageSize + 1}`);
    const page = pageOfRows(tokenQuery, rows, pageSize, (row) => ({ after: String(row.seq), id: row.id }));
    return { items: page.items.map(to__Singular__Dto), next_page_token: page.next_page_token };
  }
}
