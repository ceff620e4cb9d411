import 'reflect-metadata';
import { plainToInstance } from 'class-transformer';
import { validate } from 'class-validator';
import { defineAuditAction } from '../audit/audit-actions';
import type { AppError } from '../errors/app-error';
import { collectRegistries } from '../registries/registries';
import { registryList } from '../registries/registry-list';
import { BodyValidationPipe } from './body-validation.pipe';
import { EnumField, EnumListField } from './fields';

class Subscription {
  @EnumListField({ presence: 'required', values: registryList('audit_actions', ['*']), minItems: 1 })
  event_types: string[];

  @EnumField({ values: registryList('audit_resource_types') })
  resource_type?: string;
}

const registriesWith = (...actions: string[]) => collectRegistries([{ name: 'ProbeModule', definitions: { auditActions: Object.fromEntries(actions.map((action) => [action, defineAuditAction(action)])) } }]);

/** What the pipe answers for a body: the value, or the refusal's code, field, reason and detail. */
async function answer(pipe: BodyValidationPipe, body: object): Promise<unknown> {
  try {
    return await pipe.transform(body, { type: 'body', metatype: Subscription });
  } catch (error) {
    const { code, details, detail } = error as AppError;
    return { code, field: details?.field, reason: details?.reason, detail };
  }
}

describe('fields whose values are a registry list', () => {
  it("take the values of the pipe's application, each pipe its own", async () => {
    const gadgets = new BodyValidationPipe(registriesWith('gadget.created', 'gadget.deleted'));
    const widgets = new BodyValidationPipe(registriesWith('widget.created'));

    expect(await answer(gadgets, { event_types: ['*', 'gadget.deleted'], resource_type: 'gadget' })).toBeInstanceOf(Subscription);
    expect(await answer(widgets, { event_types: ['widget.created'] })).toBeInstanceOf(Subscription);
    expect(await answer(widgets, { event_types: ['gadget.created'] })).toEqual({
      code: 'VALIDATION_FAILED',
      field: 'event_types',
      reason: 'invalid_value',
      detail: 'event_types: each value must be one of *, widget.created',
    });
    expect(await answer(gadgets, { event_types: ['*'], resource_type: 'widget' })).toMatchObject({ field: 'resource_type', reason: 'invalid_value', detail: 'resource_type: must be one of gadget' });
  });

  it('cannot be validated outside the pipe, which alone knows the registries', () => {
    expect(() => validate(plainToInstance(Subscription, { event_types: ['x.y'] }))).toThrow('Subscription.event_types: its values are a registry list, which only BodyValidationPipe resolves');
  });
});
