import { Injectable } from '@nestjs/common';
import type { AuditActor } from '../../common/audit/audit-actor';
import { Clock } from '../../common/clock';
import { AppError } from '../../common/errors/app-error';
import { ErrorCode } from '../../common/errors/error-code';
import { checkRevision, type RevisionRequirement } from '../../common/http/write-preconditions';
import { DEFAULT_PAGE_SIZE } from '../../common/pagination/page-size';
import { pageOfRows, POSITIVE_INT64, startOfPage } from '../../common/pagination/page-token';
import { writeInOneStatement } from '../../common/writes/one-statement-write';
import type { Create__Singular__Dto } from './dto/create-__singular_kebab__.dto';
import type { __Singular__Dto } from './dto/__singular_kebab__.dto';
import type { __Singular__PageDto } from './dto/__singular_kebab__-page.dto';
import type { List__Plural__QueryDto } from './dto/list-__kebab__-query.dto';
import type { Update__Singular__Dto } from './dto/update-__singular_kebab__.dto';
import { to__Singular__Dto } from './__singular_kebab__.mapper';
import { __Plural__Repository } from './__kebab__.repository';

const notFound = (id: string) => new AppError(ErrorCode.NOT_FOUND, `No __singular_words__ ${id} exists in this organization.`);

@Injectable()
export class __Plural__Service {
  constructor(
    private readonly __pluralCamel__: __Plural__Repository,
    private readonly clock: Clock,
  ) {}

  /** Runs in the caller's transaction (the idempotency record's). */
  async create(organizationId: string, input: Create__Singular__Dto, actor: AuditActor): Promise<__Singular__Dto> {
    return to__Singular__Dto(await this.__pluralCamel__.insert(organizationId, input.name, { actor, at: this.clock.now() }));
  }

  async get(organizationId: string, id: string): Promise<__Singular__Dto> {
    const row = await this.__pluralCamel__.findById(organizationId, id);
    if (!row) throw notFound(id);
    return to__Singular__Dto(row);
  }

  /** Keyset pagination on (seq, id), one row more than the page to learn whether another page follows. */
  async list(organizationId: string, query: List__Plural__QueryDto): Promise<__Singular__PageDto> {
    const pageSize = query.page_size ?? DEFAULT_PAGE_SIZE;
    const tokenQuery = ['__snake__', organizationId];
    const position = startOfPage(tokenQuery, POSITIVE_INT64, query.page_token, 'organization');
    const rows = await this.__pluralCamel__.list(organizationId, position, pageSize + 1);
    const page = pageOfRows(tokenQuery, rows, pageSize, (row) => ({ after: String(row.seq), id: row.id }));
    return { items: page.items.map(to__Singular__Dto), next_page_token: page.next_page_token };
  }

  /**
   * Renames in one statement (revision + 1). When it writes nothing, the stored row says why: none
   * (404), another revision (409 or 412), or the same name (a no-op: the __singular_words__ as
   * stored, no event, revision and updated_at untouched); if nothing explains it, the statement
   * stood down for another writer and runs again under the row lock (writeInOneStatement).
   */
  update(organizationId: string, id: string, input: Update__Singular__Dto, requirement: RevisionRequirement, actor: AuditActor): Promise<__Singular__Dto> {
    const attempt = async () => {
      const written =
        input.name === undefined || requirement.kind === 'absent'
          ? undefined
          : await this.__pluralCamel__.rename(organizationId, id, input.name, revisionOf(requirement), { actor, at: this.clock.now() });
      if (written) return to__Singular__Dto(written);
      const current = await this.__pluralCamel__.findById(organizationId, id);
      if (!current) throw notFound(id);
      checkRevision(requirement, current.revision, '__singular_words__');
      return input.name === undefined || input.name === current.name ? to__Singular__Dto(current) : undefined;
    };
    return writeInOneStatement(attempt, (work) => this.__pluralCamel__.withLocked(organizationId, id, work));
  }

  /** Deletes in one statement; the name is free again at once. 404 when there is none, 409/412 at another revision. */
  async delete(organizationId: string, id: string, requirement: RevisionRequirement, actor: AuditActor): Promise<void> {
    const attempt = async () => {
      if (requirement.kind !== 'absent' && (await this.__pluralCamel__.delete(organizationId, id, revisionOf(requirement), { actor, at: this.clock.now() }))) return true;
      const current = await this.__pluralCamel__.findById(organizationId, id);
      if (!current) throw notFound(id);
      checkRevision(requirement, current.revision, '__singular_words__');
      return undefined;
    };
    await writeInOneStatement(attempt, (work) => this.__pluralCamel__.withLocked(organizationId, id, work));
  }
}

const revisionOf = (requirement: RevisionRequirement) => (requirement.kind === 'revision' ? requirement.revision : undefined);
