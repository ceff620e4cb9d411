import type { INestApplication } from '@nestjs/common';
import { CLI_ACTOR } from '../common/audit/audit-actor';
import { Clock } from '../common/clock';
import { sha256 } from '../common/sha256';
import { DepartmentsService } from '../modules/directory/departments.service';
import type { DepartmentDto } from '../modules/directory/dto/department.dto';
import { CategoriesRepository } from '../modules/expert-suites/categories.repository';
import { ExpertSuitesService } from '../modules/expert-suites/expert-suites.service';
import { UploadsService } from '../modules/uploads/uploads.service';
import { DepartmentMembersService } from '../modules/users/department-members.service';
import type { UserDto } from '../modules/users/dto/user.dto';
import { UsersService } from '../modules/users/users.service';
import { WebhookEndpointsService } from '../modules/webhooks/webhook-endpoints.service';

/** The demo's names and markers: the rows are found by them again on every start and page load. */
export const DEMO = {
  suiteName: 'demo-suite',
  categoryName: 'General',
  headquarters: { name: 'Demo headquarters', external_id: 'demo-headquarters' },
  team: { name: 'Demo team', external_id: 'demo-team' },
  departmentToDelete: { name: 'Demo department to delete', external_id: 'demo-department-to-delete' },
  user: { user_name: 'demo.user', display_name: 'Demo User', email: 'demo.user@example.com', external_id: 'demo-user' },
  userToDelete: { user_name: 'demo.user-to-delete', display_name: 'Demo user to delete', external_id: 'demo-user-to-delete' },
  // SCIM's get, PUT and PATCH act on a user of their own (a PUT replaces every attribute), its DELETE on another.
  scimUser: { user_name: 'demo.scim-user', display_name: 'Demo SCIM user', external_id: 'demo-scim-user' },
  scimUserToDelete: { user_name: 'demo.scim-user-to-delete', display_name: 'Demo SCIM user to delete', external_id: 'demo-scim-user-to-delete' },
  scimGroup: { name: 'Demo SCIM group', external_id: 'demo-scim-group' },
  scimGroupToDelete: { name: 'Demo SCIM group to delete', external_id: 'demo-scim-group-to-delete' },
  // hooks.example.com is a reserved example name (RFC 2606): the service never sends to it (docs/webhooks.md).
  endpoint: { url: 'https://hooks.example.com/demo', event_types: ['*'], description: 'Demo endpoint (example.com: never sent)' },
  endpointToDelete: { url: 'https://hooks.example.com/demo-to-delete', event_types: ['webhook_endpoint.created'], description: 'Demo endpoint to delete' },
} as const;

/** A 16×16 blue square (PNG: Swagger UI shows an image answer as an image, but an SVG one as XML text). */
const DEMO_ICON = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAABAAAAAQCAIAAACQkWg2AAAAFklEQVR42mPQz79HEmIY1TCqYfhqAABWG3wQAVrYewAAAABJRU5ErkJggg==', 'base64');

/** The ids of the demo's rows, as one load of the page names them in its examples. */
export interface DemoIds {
  expertSuite: string;
  category: string;
  iconUpload: string;
  headquarters: string;
  team: string;
  departmentToDelete: string;
  user: string;
  userToDelete: string;
  scimUser: string;
  scimUserToDelete: string;
  scimGroup: string;
  scimGroupToDelete: string;
  endpoint: string;
  endpointToDelete: string;
  /** A delivery of the demo endpoint; undefined while it has none. */
  delivery: string | undefined;
  /** Names no row holds yet, for the create examples: "Research", else "Research 2", … */
  freeDepartmentName: string;
  freeUserName: string;
  /** The SCIM creates': REST's creates take the names above on the same page. */
  freeScimUserName: string;
  freeScimGroupName: string;
}

/**
 * The rows the demo's Swagger examples act on, found by their names and markers or created (again)
 * when missing: the first start creates them, and a row that an example deleted is back at the next
 * load of the page. Runs through the modules' own services, as the API would, with the CLI's actor.
 */
export class DemoRows {
  private pending: Promise<DemoIds> | undefined;

  constructor(
    private readonly app: INestApplication,
    readonly organizationId: string,
  ) {}

  /** One at a time: two page loads at once must not both create a missing row. */
  ensure(): Promise<DemoIds> {
    const next = (this.pending ?? Promise.resolve()).catch(() => undefined).then(() => this.findOrCreate());
    this.pending = next;
    return next;
  }

  private async findOrCreate(): Promise<DemoIds> {
    const category = await this.category();
    const suite = await this.suite();
    const headquarters = await this.department(DEMO.headquarters, null);
    const team = await this.department(DEMO.team, headquarters.department_id);
    const departmentToDelete = await this.department(DEMO.departmentToDelete, null);
    const user = await this.user(DEMO.user);
    await this.service(DepartmentMembersService).add(this.organizationId, team.department_id, user.user_id, CLI_ACTOR);
    const userToDelete = await this.user(DEMO.userToDelete);
    const scimUser = await this.user(DEMO.scimUser);
    const scimUserToDelete = await this.user(DEMO.scimUserToDelete);
    const scimGroup = await this.department(DEMO.scimGroup, null);
    const scimGroupToDelete = await this.department(DEMO.scimGroupToDelete, null);
    const endpoint = await this.endpoint(DEMO.endpoint);
    const endpointToDelete = await this.endpoint(DEMO.endpointToDelete);
    const deliveries = await this.service(WebhookEndpointsService).listDeliveries(this.organizationId, endpoint, { page_size: 1 });
    return {
      expertSuite: suite.id,
      category,
      iconUpload: suite.iconUpload,
      headquarters: headquarters.department_id,
      team: team.department_id,
      departmentToDelete: departmentToDelete.department_id,
      user: user.user_id,
      userToDelete: userToDelete.user_id,
      scimUser: scimUser.user_id,
      scimUserToDelete: scimUserToDelete.user_id,
      scimGroup: scimGroup.department_id,
      scimGroupToDelete: scimGroupToDelete.department_id,
      endpoint,
      endpointToDelete,
      delivery: deliveries.items[0]?.delivery_id,
      freeDepartmentName: await this.freeTopLevelName('Research'),
      freeUserName: await this.freeUserName('ann.lee'),
      freeScimUserName: await this.freeUserName('cy.diaz'),
      freeScimGroupName: await this.freeTopLevelName('Support'),
    };
  }

  private service<T>(type: new (...args: never[]) => T): T {
    return this.app.get(type);
  }

  private async category(): Promise<string> {
    const categories = this.service(CategoriesRepository);
    const found = await categories.findByName(this.organizationId, DEMO.categoryName);
    if (found) return found.id;
    const created = await categories.insert(this.organizationId, DEMO.categoryName, { actor: CLI_ACTOR, at: this.service(Clock).now() });
    return created!.id;
  }

  /** The demo suite, given an uploaded icon when it has none (a used upload is kept: it never expires). */
  private async suite(): Promise<{ id: string; iconUpload: string }> {
    const suites = this.service(ExpertSuitesService);
    const page = await suites.list(this.organizationId, { page_size: 100 });
    const suite = page.items.find((item) => item.name === DEMO.suiteName);
    if (!suite) throw new Error(`the demo organization has no expert suite named ${DEMO.suiteName}`);
    if (suite.iconUploadId) return { id: suite.id, iconUpload: suite.iconUploadId };
    const icon = await this.service(UploadsService).create(this.organizationId, 'icon', { size: DEMO_ICON.length, sha256: sha256(DEMO_ICON), buffer: DEMO_ICON }, CLI_ACTOR);
    await suites.update(this.organizationId, suite.id, { icon_upload_id: icon.upload_id }, { kind: 'none' }, CLI_ACTOR);
    return { id: suite.id, iconUpload: icon.upload_id };
  }

  private async department(row: { name: string; external_id: string }, parentId: string | null): Promise<DepartmentDto> {
    const departments = this.service(DepartmentsService);
    const [found] = (await departments.list(this.organizationId, { external_id: row.external_id })).items;
    return found ?? departments.create(this.organizationId, { ...row, parent_id: parentId }, CLI_ACTOR);
  }

  private async user(row: { user_name: string; display_name: string; external_id: string; email?: string }): Promise<UserDto> {
    const users = this.service(UsersService);
    const [found] = (await users.list(this.organizationId, { external_id: row.external_id })).items;
    return found ?? users.create(this.organizationId, row, CLI_ACTOR);
  }

  private async endpoint(row: { url: string; event_types: readonly string[]; description: string }): Promise<string> {
    const endpoints = this.service(WebhookEndpointsService);
    const page = await endpoints.list(this.organizationId, { page_size: 100 });
    const found = page.items.find((item) => item.description === row.description);
    if (found) return found.id;
    return (await endpoints.create(this.organizationId, CLI_ACTOR, { ...row, event_types: [...row.event_types] })).id;
  }

  private async freeTopLevelName(base: string): Promise<string> {
    const taken = new Set<string>();
    let pageToken: string | undefined;
    do {
      const page = await this.service(DepartmentsService).list(this.organizationId, { page_size: 100, page_token: pageToken });
      for (const department of page.items) taken.add(department.name.toLowerCase());
      pageToken = page.next_page_token ?? undefined;
    } while (pageToken);
    return candidates(base, ' ').find((name) => !taken.has(name.toLowerCase()))!;
  }

  private async freeUserName(base: string): Promise<string> {
    for (const name of candidates(base, '')) {
      if ((await this.service(UsersService).list(this.organizationId, { user_name: name, page_size: 1 })).items.length === 0) return name;
    }
    throw new Error(`no free user name like ${base}`);
  }
}

/** base, base2, base3, … (with the separator before the number). */
function candidates(base: string, separator: string): string[] {
  return [base, ...Array.from({ length: 999 }, (_, index) => `${base}${separator}${index + 2}`)];
}
