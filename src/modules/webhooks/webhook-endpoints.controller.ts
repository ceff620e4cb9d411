import { CurrentActor, type AuditActor } from '../../common/audit/audit-actor';
import { Body, Controller, Delete, Get, HttpCode, HttpStatus, Param, Post, Query } from '@nestjs/common';
import { ApiAcceptedResponse, ApiCreatedResponse, ApiNoContentResponse, ApiOkResponse, ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import { RequireScope } from '../../common/auth/auth.decorators';
import { CurrentPrincipal, type Principal } from '../../common/auth/principal';
import { ApiErrorResponses, type DocumentedError } from '../../common/errors/api-error-responses.decorator';
import { ErrorCode } from '../../common/errors/error-code';
import { Idempotent, IDEMPOTENT_SUCCESS_HEADERS } from '../../common/idempotency/idempotent.decorator';
import { ApiJsonBody } from '../../common/openapi/api-json-body.decorator';
import { UuidParamPipe } from '../../common/validation/uuid-param.pipe';
import { DeliveryWorker } from './delivery-worker';
import { CreateWebhookEndpointDto } from './dto/create-webhook-endpoint.dto';
import { WebhookPageQueryDto } from './dto/page-query.dto';
import { WebhookDeliveryDto, WebhookDeliveryPageDto } from './dto/webhook-delivery.dto';
import { CreatedWebhookEndpointDto, RotatedSecretDto, WebhookEndpointDto, WebhookEndpointPageDto } from './dto/webhook-endpoint.dto';
import { WebhooksError } from './webhooks.errors';
import { WebhooksScope } from './webhooks.scopes';
import { WebhookEndpointsService } from './webhook-endpoints.service';

const PAGE_ERRORS = [ErrorCode.VALIDATION_FAILED, 'A query parameter is invalid (page_size outside 1–100, a page_token of another query, an unknown parameter); details names it.'] satisfies DocumentedError;

@ApiTags('Webhooks')
@Controller('api/openapi/v1/webhook-endpoints')
export class WebhookEndpointsController {
  constructor(
    private readonly endpoints: WebhookEndpointsService,
    private readonly worker: DeliveryWorker,
  ) {}

  @Post()
  @RequireScope(WebhooksScope.Manage)
  @Idempotent({ keyRequired: false })
  @ApiOperation({
    operationId: 'createWebhookEndpoint',
    summary: 'Create webhook endpoint',
    description:
      'Registers a URL that receives the organization\'s audit events of the given types as Standard Webhooks ' +
      '(docs/webhooks.md). The answer carries the signing secret, shown only this once. Writes the audit event ' +
      '`webhook_endpoint.created`, delivered to the new endpoint too when it subscribes to it. An organization has at most ' +
      'WEBHOOK_ENDPOINTS_PER_ORGANIZATION endpoints (20 unless the operator set another number).',
  })
  @ApiJsonBody(CreateWebhookEndpointDto, {
    everything: { summary: 'Every event type', value: { url: 'https://hooks.example.com/workspace-admin', event_types: ['*'], description: 'HR sync' } },
    someEvents: { summary: 'Some event types', value: { url: 'https://hooks.example.com/departments', event_types: ['department.created', 'api_key.revoked'] } },
  })
  @ApiCreatedResponse({ type: CreatedWebhookEndpointDto, description: 'The created endpoint with its signing secret.', headers: IDEMPOTENT_SUCCESS_HEADERS })
  @ApiErrorResponses([
    ErrorCode.VALIDATION_FAILED,
    'A body value breaks its schema (a url that is not https or names a private address, an unknown event type, a repeated one), or an unknown field was sent; details names the first failing field.',
  ], [WebhooksError.WEBHOOK_ENDPOINT_LIMIT_REACHED, 'The organization has as many endpoints as it may have (WEBHOOK_ENDPOINTS_PER_ORGANIZATION); delete one first.'])
  create(@CurrentPrincipal() principal: Principal, @CurrentActor() actor: AuditActor, @Body() body: CreateWebhookEndpointDto): Promise<CreatedWebhookEndpointDto> {
    return this.endpoints.create(principal.organizationId, actor, body);
  }

  @Get()
  @RequireScope(WebhooksScope.Manage)
  @ApiOperation({
    operationId: 'listWebhookEndpoints',
    summary: 'List webhook endpoints',
    description: 'Lists the organization\'s webhook endpoints in the order they were created, one page at a time (without their secrets).',
  })
  @ApiOkResponse({ type: WebhookEndpointPageDto, description: 'One page of endpoints.' })
  @ApiErrorResponses(PAGE_ERRORS)
  list(@CurrentPrincipal() principal: Principal, @Query() query: WebhookPageQueryDto): Promise<WebhookEndpointPageDto> {
    return this.endpoints.list(principal.organizationId, query);
  }

  @Get(':endpoint_id')
  @RequireScope(WebhooksScope.Manage)
  @ApiOperation({ operationId: 'getWebhookEndpoint', summary: 'Get webhook endpoint', description: 'Reads one webhook endpoint (without its secret).' })
  @ApiParam({ name: 'endpoint_id', format: 'uuid', description: 'Identifier of the endpoint (any case).' })
  @ApiOkResponse({ type: WebhookEndpointDto, description: 'The endpoint.' })
  @ApiErrorResponses([ErrorCode.VALIDATION_FAILED, 'endpoint_id is not a uuid.'], [ErrorCode.NOT_FOUND, 'The organization has no webhook endpoint with this id.'])
  get(@CurrentPrincipal() principal: Principal, @Param('endpoint_id', UuidParamPipe) id: string): Promise<WebhookEndpointDto> {
    return this.endpoints.get(principal.organizationId, id);
  }

  @Delete(':endpoint_id')
  @RequireScope(WebhooksScope.Manage)
  @HttpCode(HttpStatus.NO_CONTENT)
  @ApiOperation({
    operationId: 'deleteWebhookEndpoint',
    summary: 'Delete webhook endpoint',
    description:
      'Removes the endpoint with its secret and its deliveries: deliveries not yet made are dropped, an attempt under way ' +
      'finishes but is not recorded. Writes the audit event `webhook_endpoint.deleted`.',
  })
  @ApiParam({ name: 'endpoint_id', format: 'uuid', description: 'Identifier of the endpoint (any case).' })
  @ApiNoContentResponse({ description: 'The endpoint is gone.' })
  @ApiErrorResponses([ErrorCode.VALIDATION_FAILED, 'endpoint_id is not a uuid.'], [ErrorCode.NOT_FOUND, 'The organization has no webhook endpoint with this id.'])
  async delete(@CurrentPrincipal() principal: Principal, @CurrentActor() actor: AuditActor, @Param('endpoint_id', UuidParamPipe) id: string): Promise<void> {
    await this.endpoints.delete(principal.organizationId, actor, id);
  }

  @Post(':endpoint_id/rotate-secret')
  @RequireScope(WebhooksScope.Manage)
  @HttpCode(HttpStatus.OK)
  @Idempotent({ keyRequired: false })
  @ApiOperation({
    operationId: 'rotateWebhookEndpointSecret',
    summary: 'Rotate webhook secret',
    description:
      'Replaces the signing secret and answers the new one, shown only this once. For 24 hours every delivery carries two ' +
      'signatures, one by each secret, so receivers can switch without missing one; a secret rotated out earlier stops signing at once. ' +
      'Writes the audit event `webhook_endpoint.secret_rotated` (the secrets show only as `redacted`).',
  })
  @ApiParam({ name: 'endpoint_id', format: 'uuid', description: 'Identifier of the endpoint (any case).' })
  @ApiOkResponse({ type: RotatedSecretDto, description: 'The new secret.', headers: IDEMPOTENT_SUCCESS_HEADERS })
  @ApiErrorResponses([ErrorCode.VALIDATION_FAILED, 'endpoint_id is not a uuid.'], [ErrorCode.NOT_FOUND, 'The organization has no webhook endpoint with this id.'])
  rotateSecret(
    @CurrentPrincipal() principal: Principal,
    @CurrentActor() actor: AuditActor,
    @Param('endpoint_id', UuidParamPipe) id: string,
  ): Promise<RotatedSecretDto> {
    return this.endpoints.rotateSecret(principal.organizationId, actor, id);
  }

  @Get(':endpoint_id/deliveries')
  @RequireScope(WebhooksScope.Manage)
  @ApiOperation({
    operationId: 'listWebhookDeliveries',
    summary: 'List webhook deliveries',
    description: 'The endpoint\'s deliveries, newest first, each with the state of its attempts, one page at a time.',
  })
  @ApiParam({ name: 'endpoint_id', format: 'uuid', description: 'Identifier of the endpoint (any case).' })
  @ApiOkResponse({ type: WebhookDeliveryPageDto, description: 'One page of deliveries.' })
  @ApiErrorResponses(PAGE_ERRORS, [ErrorCode.NOT_FOUND, 'The organization has no webhook endpoint with this id.'])
  listDeliveries(
    @CurrentPrincipal() principal: Principal,
    @Param('endpoint_id', UuidParamPipe) id: string,
    @Query() query: WebhookPageQueryDto,
  ): Promise<WebhookDeliveryPageDto> {
    return this.endpoints.listDeliveries(principal.organizationId, id, query);
  }

  @Post('deliveries/:delivery_id/redeliver')
  @RequireScope(WebhooksScope.Manage)
  @HttpCode(HttpStatus.ACCEPTED)
  @ApiOperation({
    operationId: 'redeliverWebhookDelivery',
    summary: 'Redeliver webhook',
    description:
      'Queues a delivery again, due now, with a fresh retry schedule and the same `webhook-id` (delivered, failed or pending alike). ' +
      'Writes the audit event `webhook_delivery.redelivered` (the status and attempts it had).',
  })
  @ApiParam({ name: 'delivery_id', format: 'uuid', description: 'Identifier of the delivery (any case).' })
  @ApiAcceptedResponse({ type: WebhookDeliveryDto, description: 'The delivery, queued.' })
  @ApiErrorResponses([ErrorCode.VALIDATION_FAILED, 'delivery_id is not a uuid.'], [ErrorCode.NOT_FOUND, 'The organization has no webhook delivery with this id.'])
  async redeliver(
    @CurrentPrincipal() principal: Principal,
    @CurrentActor() actor: AuditActor,
    @Param('delivery_id', UuidParamPipe) id: string,
  ): Promise<WebhookDeliveryDto> {
    const delivery = await this.endpoints.redeliver(principal.organizationId, actor, id);
    this.worker.wake();
    return delivery;
  }
}
