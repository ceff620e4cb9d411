import { Controller, Get, HttpStatus, Param, Req } from '@nestjs/common';
import { ApiExtraModels, ApiOperation, ApiParam, ApiResponse, ApiTags } from '@nestjs/swagger';
import type { Request } from 'express';
import { RequireScope } from '../../common/auth/auth.decorators';
import { ApiErrorResponses } from '../../common/errors/api-error-responses.decorator';
import { ErrorCode } from '../../common/errors/error-code';
import { publicBaseUrl } from '../../common/http/public-base-url';
import { AppConfig } from '../../config/app-config';
import { ScimErrorDto } from './dto/scim-error.dto';
import { scimListResponseSchema } from './dto/scim-user.schema';
import { scimListResponse } from './protocol/list-paging';
import { ScimError } from './protocol/scim-error';
import { resourceTypeDocument, schemaDocument, SCIM_RESOURCE_TYPES, SCIM_SCHEMAS, serviceProviderConfigDocument } from './protocol/schemas';
import { SCIM_BASE_PATH, SCIM_MEDIA_TYPE, ScimJsonAnswers } from './scim-http';
import { ScimScope } from './scim.scopes';

const DOCUMENT = { [SCIM_MEDIA_TYPE]: { schema: { type: 'object', additionalProperties: true, required: ['schemas'], properties: { schemas: { type: 'array', items: { type: 'string' } } } } } };
const LIST = { [SCIM_MEDIA_TYPE]: { schema: scimListResponseSchema({ type: 'object', additionalProperties: true }) } };

/**
 * What the service provider supports (RFC 7644 §4): its configuration, resource types and
 * schemas, the protocol's data served under the caller's base URL. Behind the SCIM scope like every
 * SCIM operation (CONTRACT.md section 12), though RFC 7644 lets them be public.
 */
@ApiTags('SCIM')
@ApiExtraModels(ScimErrorDto)
@Controller('scim/v2')
@ScimJsonAnswers()
export class ScimDiscoveryController {
  constructor(private readonly config: AppConfig) {}

  @Get('ServiceProviderConfig')
  @RequireScope(ScimScope.Provision)
  @ApiOperation({ operationId: 'scimServiceProviderConfig', summary: 'SCIM: service provider configuration', description: 'PATCH, filter (at most 100 results a page) and ETags supported; bulk, sort and changePassword not.' })
  @ApiResponse({ status: HttpStatus.OK, description: 'The configuration.', content: DOCUMENT })
  serviceProviderConfig(@Req() request: Request) {
    return serviceProviderConfigDocument(this.scimBaseUrl(request));
  }

  @Get('ResourceTypes')
  @RequireScope(ScimScope.Provision)
  @ApiOperation({ operationId: 'scimListResourceTypes', summary: 'SCIM: resource types', description: 'User and Group, with their schemas and extensions.' })
  @ApiResponse({ status: HttpStatus.OK, description: 'Every resource type.', content: LIST })
  resourceTypes(@Req() request: Request) {
    const documents = SCIM_RESOURCE_TYPES.map((resourceType) => resourceTypeDocument(resourceType, this.scimBaseUrl(request)));
    return scimListResponse(documents, documents.length, { startIndex: 1, count: documents.length, offset: 0 });
  }

  @Get('ResourceTypes/:resourceTypeId')
  @RequireScope(ScimScope.Provision)
  @ApiOperation({ operationId: 'scimGetResourceType', summary: 'SCIM: resource type' })
  @ApiParam({ name: 'resourceTypeId', description: 'The resource type\'s id: `User` or `Group`.' })
  @ApiResponse({ status: HttpStatus.OK, description: 'The resource type.', content: DOCUMENT })
  @ApiErrorResponses([ErrorCode.NOT_FOUND, 'No resource type has this id.'])
  resourceType(@Param('resourceTypeId') id: string, @Req() request: Request) {
    const resourceType = SCIM_RESOURCE_TYPES.find((candidate) => candidate.id === id);
    if (resourceType === undefined) throw new ScimError(HttpStatus.NOT_FOUND, `No resource type ${id}: the service has User and Group.`);
    return resourceTypeDocument(resourceType, this.scimBaseUrl(request));
  }

  @Get('Schemas')
  @RequireScope(ScimScope.Provision)
  @ApiOperation({ operationId: 'scimListSchemas', summary: 'SCIM: schemas', description: 'The core User (without password), the enterprise User extension, the core Group and the workspace Group extension.' })
  @ApiResponse({ status: HttpStatus.OK, description: 'Every schema.', content: LIST })
  schemas(@Req() request: Request) {
    const documents = SCIM_SCHEMAS.map((schema) => schemaDocument(schema, this.scimBaseUrl(request)));
    return scimListResponse(documents, documents.length, { startIndex: 1, count: documents.length, offset: 0 });
  }

  @Get('Schemas/:schemaId')
  @RequireScope(ScimScope.Provision)
  @ApiOperation({ operationId: 'scimGetSchema', summary: 'SCIM: schema' })
  @ApiParam({ name: 'schemaId', description: 'The schema\'s id, its URN, e.g. `urn:ietf:params:scim:schemas:core:2.0:User`.' })
  @ApiResponse({ status: HttpStatus.OK, description: 'The schema.', content: DOCUMENT })
  @ApiErrorResponses([ErrorCode.NOT_FOUND, 'No schema has this id.'])
  schema(@Param('schemaId') id: string, @Req() request: Request) {
    const schema = SCIM_SCHEMAS.find((candidate) => candidate.id.toLowerCase() === id.toLowerCase());
    if (schema === undefined) throw new ScimError(HttpStatus.NOT_FOUND, `No schema ${id}.`);
    return schemaDocument(schema, this.scimBaseUrl(request));
  }

  private scimBaseUrl(request: Request): string {
    return `${publicBaseUrl(this.config, request)}${SCIM_BASE_PATH}`;
  }
}
