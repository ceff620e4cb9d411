import { randomUUID } from 'node:crypto';
import { Logger, type INestApplication } from '@nestjs/common';
import type { OpenAPIObject } from '@nestjs/swagger';
import type { ExampleObject, OperationObject, ParameterObject, RequestBodyObject } from '@nestjs/swagger/dist/interfaces/open-api-spec.interface';
import { serveDocumentWithExamples } from '../openapi';
import { EXAMPLE_GROUP_ID, EXAMPLE_USER_ID } from '../modules/scim/scim-groups.controller';
import { DEMO, DemoRows, type DemoIds } from './demo-rows';

/**
 * Makes the demo's rows (creating what is missing) and serves the OpenAPI document with examples
 * naming them, found again at each load of the page. A failure leaves that load's document generic.
 */
export async function serveDemoExamples(app: INestApplication, organizationId: string): Promise<void> {
  const rows = new DemoRows(app, organizationId);
  await rows.ensure();
  const logger = new Logger('DemoExamples');
  serveDocumentWithExamples(app, async (document) => {
    try {
      return withDemoExamples(document, await rows.ensure());
    } catch (error) {
      logger.warn(`The demo's rows could not be read, the document's examples stay generic: ${(error as Error).message}`);
      return document;
    }
  });
}

/** The id a path parameter of that name gets on the demo, unless the operation's own entry says otherwise. */
function pathParameterIds(ids: DemoIds): Record<string, string | undefined> {
  return {
    department_id: ids.team,
    user_id: ids.user,
    resourceId: ids.expertSuite,
    uploadId: ids.iconUpload,
    endpoint_id: ids.endpoint,
    delivery_id: ids.delivery,
    groupId: ids.scimGroup,
    resourceTypeId: 'User',
    schemaId: 'urn:ietf:params:scim:schemas:core:2.0:User',
  };
}

/** Operations whose path parameter names a row of their own: SCIM Users' `id`, too generic a name to map for every operation. */
function operationTargets(ids: DemoIds): Record<string, { parameter: string; id: string }> {
  const scimUser = { parameter: 'id', id: ids.scimUser };
  return { scimGetUser: scimUser, scimReplaceUser: scimUser, scimPatchUser: scimUser };
}

/** Deletes act on rows the demo keeps for deleting, so that the rows the other examples name stay. */
function deleteTargets(ids: DemoIds): Record<string, { parameter: string; id: string; what: string }> {
  return {
    deleteDepartment: { parameter: 'department_id', id: ids.departmentToDelete, what: 'a department kept for deleting' },
    deleteUser: { parameter: 'user_id', id: ids.userToDelete, what: 'a user kept for deleting' },
    deleteWebhookEndpoint: { parameter: 'endpoint_id', id: ids.endpointToDelete, what: 'an endpoint kept for deleting' },
    removeDepartmentMember: { parameter: 'user_id', id: ids.user, what: 'the demo user, a member of the demo team' },
    scimDeleteUser: { parameter: 'id', id: ids.scimUserToDelete, what: 'a user kept for deleting' },
    scimDeleteGroup: { parameter: 'groupId', id: ids.scimGroupToDelete, what: 'a group kept for deleting' },
  };
}

/** Body fields that name a row of the caller's organization: on the demo, the demo's row. */
function referenceFields(ids: DemoIds): Record<string, unknown> {
  return { parent_id: ids.headquarters, category_id: ids.category, department_ids: [ids.team], primary_department_id: ids.team };
}

/** Fields of an operation's first example on the demo: a create's name no row holds at this load of the page. */
function firstExampleFields(ids: DemoIds): Record<string, Record<string, string>> {
  return {
    createDepartment: { name: ids.freeDepartmentName },
    createUser: { user_name: ids.freeUserName },
    scimCreateUser: { userName: ids.freeScimUserName, externalId: ids.freeScimUserName },
    scimCreateGroup: { displayName: ids.freeScimGroupName, externalId: ids.freeScimGroupName },
  };
}

/** Fields of every example of a SCIM PUT on the demo: the identity of the row it replaces, by which the demo finds it again. */
const EVERY_EXAMPLE_FIELDS: Record<string, Record<string, string>> = {
  scimReplaceUser: { userName: DEMO.scimUser.user_name, externalId: DEMO.scimUser.external_id },
  scimReplaceGroup: { displayName: DEMO.scimGroup.name, externalId: DEMO.scimGroup.external_id },
};

/** The SCIM examples' placeholder ids, anywhere in a value (members, filters in paths, parentId), as the demo's rows. */
function withDemoIds(value: unknown, ids: DemoIds): unknown {
  return JSON.parse(JSON.stringify(value).replaceAll(EXAMPLE_USER_ID, ids.user).replaceAll(EXAMPLE_GROUP_ID, ids.headquarters));
}

const IDEMPOTENCY_KEY = 'Idempotency-Key';

/**
 * A copy of the document whose examples name the embedded demo's rows (docs/operations.md, *The
 * demo organization*), so that every operation answers 2xx as Swagger UI prefills it: path
 * parameters, a fresh Idempotency-Key per operation (the same key and body again replay the stored
 * answer), and the ids in request bodies. Named examples that cannot run as printed say what to type.
 */
export function withDemoExamples(document: OpenAPIObject, ids: DemoIds, newKey: () => string = randomUUID): OpenAPIObject {
  const copy = structuredClone(document);
  const byName = pathParameterIds(ids);
  const deletes = deleteTargets(ids);
  const targets = operationTargets(ids);
  const firstFields = firstExampleFields(ids);
  for (const pathItem of Object.values(copy.paths)) {
    for (const operation of Object.values(pathItem) as OperationObject[]) {
      if (typeof operation !== 'object' || operation === null || !('responses' in operation)) continue;
      const target = operation.operationId ? (deletes[operation.operationId] ?? targets[operation.operationId]) : undefined;
      const deleted = operation.operationId ? deletes[operation.operationId] : undefined;
      let idempotent = false;
      for (const parameter of (operation.parameters ?? []) as ParameterObject[]) {
        if (parameter.in === 'path') {
          const id = target?.parameter === parameter.name ? target.id : byName[parameter.name];
          if (id !== undefined) parameter.example = id;
        } else if (parameter.in === 'header' && parameter.name === IDEMPOTENCY_KEY) {
          parameter.example = newKey();
          idempotent = true;
        }
      }
      if (operation.operationId === 'scimCreateUser' || operation.operationId === 'scimCreateGroup') {
        const name = operation.operationId === 'scimCreateUser' ? 'userName' : 'displayName';
        operation.description =
          `${operation.description ?? ''}\n\n**On the demo** the prefilled ${name} is free at this load of the page: Execute answers 201 once, ` +
          'then 409 uniqueness (SCIM has no Idempotency-Key; a provider that retries looks it up first) until the page is loaded again.';
      }
      if (deleted) {
        operation.description =
          `${operation.description ?? ''}\n\n**On the demo** the prefilled id names ${deleted.what}: Execute answers 2xx once, ` +
          'then 404 (it is gone) until the page is loaded again, which names it anew.';
      }
      const body = operation.requestBody as RequestBodyObject | undefined;
      // Each media type the operation takes has its copy of the examples (Swagger UI shows the first).
      for (const media of Object.values(body?.content ?? {})) {
        const examples = media.examples as Record<string, ExampleObject> | undefined;
        if (!examples) continue;
        const id = operation.operationId ?? '';
        fillBodyExamples(examples, ids, firstFields[id], idempotent);
        for (const example of Object.values(examples)) Object.assign(example.value as object, EVERY_EXAMPLE_FIELDS[id]);
      }
    }
  }
  return copy;
}

function fillBodyExamples(examples: Record<string, ExampleObject>, ids: DemoIds, firstFields: Record<string, string> | undefined, idempotent: boolean): void {
  const references = referenceFields(ids);
  Object.values(examples).forEach((example, index) => {
    example.value = withDemoIds(example.value, ids);
    const value = example.value as Record<string, unknown>;
    for (const field of Object.keys(value)) {
      if (field in references && value[field] !== null) value[field] = references[field];
    }
    if (index === 0) {
      Object.assign(value, firstFields);
      return;
    }
    if (idempotent) {
      example.description =
        `${example.description ? `${example.description} ` : ''}On the demo: type a new Idempotency-Key first (the prefilled one ` +
        'belongs to the first example), and names or external ids no row holds yet when run again.';
    }
  });
}
