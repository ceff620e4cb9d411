import { Body, Controller, Get, Logger, Param, Post, Res, StreamableFile, UploadedFile, UseInterceptors } from '@nestjs/common';
import { FileInterceptor } from '@nestjs/platform-express';
import {
  ApiBody,
  ApiConsumes,
  ApiCreatedResponse,
  ApiOkResponse,
  ApiOperation,
  ApiParam,
  ApiTags,
} from '@nestjs/swagger';
import type { Response } from 'express';
import { Public, RequireScope } from '../../common/auth/auth.decorators';
import { CurrentPrincipal, type Principal } from '../../common/auth/principal';
import { CurrentActor, type AuditActor } from '../../common/audit/audit-actor';
import { ApiErrorResponses } from '../../common/errors/api-error-responses.decorator';
import { ErrorCode } from '../../common/errors/error-code';
import { AcceptsMultipart } from '../../common/http/json-body.guard';
import { UuidParamPipe } from '../../common/validation/uuid-param.pipe';
import { CreateUploadFormDto } from './dto/create-upload.dto';
import { UploadDto } from './dto/upload.dto';
import { UPLOAD_KINDS } from './upload-kind';
import { MultipartErrorsInterceptor } from './multipart-errors.interceptor';
import { UploadAdmissionInterceptor } from './upload-admission.interceptor';
import type { ReceivedFile } from './upload-receiver';
import { UploadsError } from './uploads.errors';
import { UploadsService } from './uploads.service';
import { ExpertSuitesScope } from '../expert-suites/expert-suites.scopes';

// Nothing in an icon may run: no script, no plugin, no navigation, even when opened directly.
const ICON_CONTENT_SECURITY_POLICY = "default-src 'none'; style-src 'unsafe-inline'; sandbox";

@ApiTags('Uploads')
@Controller('api/openapi/v1/uploads')
export class UploadsController {
  private readonly logger = new Logger('Uploads');

  constructor(private readonly uploads: UploadsService) {}

  @Post()
  @RequireScope(ExpertSuitesScope.Manage)
  @AcceptsMultipart()
  @UseInterceptors(UploadAdmissionInterceptor, MultipartErrorsInterceptor, FileInterceptor('file'))
  @ApiOperation({
    operationId: 'createUpload',
    summary: 'Upload a resource package or an icon',
    description:
      'Multipart form with `kind` (`package` or `icon`) and the file in the part `file`. A package is a zip ' +
      '(suite.json, commands/*.md, skills/<name>/SKILL.md, connectors.json, README.md, README.zh-CN.md) checked ' +
      'at upload: unsafe paths, symlinks, too many entries, too much data or a suspicious compression ratio, and ' +
      'invalid manifests are refused with 400 (details.field `file`, details.reason invalid_archive, unsafe_path, ' +
      'too_many_entries, too_large or invalid_manifest) and nothing is kept. An icon is a PNG, JPEG, WebP or SVG ' +
      'image recognised by its content (else 400 unsupported_type). The upload can be named in a PATCH of a suite ' +
      'of the same organization until expires_at. Send `kind` before `file`: a package then goes to the database as ' +
      'it arrives instead of being held whole. Each instance receives a limited number of uploads at once and holds a ' +
      'limited number of their bytes (503 with Retry-After past either); a body that stops arriving is answered 408; ' +
      "an organization's stored uploads are limited (413 UPLOAD_QUOTA_EXCEEDED).",
  })
  @ApiConsumes('multipart/form-data')
  @ApiBody({
    schema: {
      type: 'object',
      required: ['kind', 'file'],
      properties: {
        // Prefilled in Swagger UI: an image is what a new user has at hand, and icons can be loaded back.
        kind: { type: 'string', enum: [...UPLOAD_KINDS], example: 'icon', description: 'What the file is.' },
        file: { type: 'string', format: 'binary', description: 'The zip of a package (at most 20 MiB by default) or the icon image (1 MiB).' },
      },
    },
  })
  @ApiCreatedResponse({ type: UploadDto })
  @ApiErrorResponses(
    [ErrorCode.VALIDATION_FAILED, 'Missing or bad kind, missing file, or a refused package or icon (details.field file, details.reason why).'],
    [ErrorCode.PAYLOAD_TOO_LARGE, 'The file is over the limit of its kind.'],
    [UploadsError.UPLOAD_QUOTA_EXCEEDED, "The organization's stored uploads and this file would pass its storage quota; nothing was kept."],
    [ErrorCode.UNSUPPORTED_MEDIA_TYPE, 'The body is not multipart/form-data.'],
    [ErrorCode.REQUEST_TIMEOUT, 'The body stopped arriving for UPLOAD_STALL_TIMEOUT_MS; nothing was kept, and the connection is closed.'],
    [
      ErrorCode.SERVICE_UNAVAILABLE,
      'This instance is receiving as many uploads, or holding as many upload bytes, as it may (Retry-After: 1); nothing was kept. Retry, perhaps on another instance.',
      'UPLOADS_BUSY',
    ],
  )
  create(
    @Body() form: CreateUploadFormDto,
    @UploadedFile() file: ReceivedFile | undefined,
    @CurrentPrincipal() principal: Principal,
    @CurrentActor() actor: AuditActor,
  ): Promise<UploadDto> {
    return this.uploads.create(principal.organizationId, form.kind, file, actor);
  }

  @Get(':uploadId/content')
  @Public()
  @ApiOperation({
    operationId: 'getUploadContent',
    // Stated as "no authentication" rather than left out, which readers and linters take for an omission.
    security: [],
    summary: 'Load an uploaded icon',
    description:
      'Public, so that browsers can load a suite\'s icon_url; the address is unguessable (a random uuid). Served ' +
      'with the type detected at upload, `X-Content-Type-Options: nosniff` and a Content-Security-Policy that ' +
      'forbids scripts (an SVG cannot run script even when opened directly). Packages are never served.',
  })
  @ApiParam({ name: 'uploadId', format: 'uuid', description: 'The upload_id of an icon upload (the end of its suite\'s icon_url).' })
  // The image types belong to the 200 alone (@ApiProduces would give them to the JSON errors too).
  @ApiOkResponse({
    description: 'The icon.',
    content: Object.fromEntries(['image/png', 'image/jpeg', 'image/webp', 'image/svg+xml'].map((type) => [type, { schema: { type: 'string', format: 'binary' } }])),
  })
  @ApiErrorResponses(
    [ErrorCode.VALIDATION_FAILED, 'uploadId is not a uuid.'],
    [ErrorCode.NOT_FOUND, 'No icon with this id.'],
    [ErrorCode.SERVICE_UNAVAILABLE, 'The database, which holds the icon, is unreachable (Retry-After: 5) or busy (Retry-After: 1); retry later.'],
  )
  async content(@Param('uploadId', UuidParamPipe) uploadId: string, @Res({ passthrough: true }) response: Response): Promise<StreamableFile> {
    const icon = await this.uploads.iconContent(uploadId);
    response.setHeader('X-Content-Type-Options', 'nosniff');
    response.setHeader('Content-Security-Policy', ICON_CONTENT_SECURITY_POLICY);
    response.setHeader('Cross-Origin-Resource-Policy', 'cross-origin');
    // The bytes under an upload id never change.
    response.setHeader('Cache-Control', 'public, max-age=31536000, immutable');
    const svg = icon.contentType === 'image/svg+xml';
    return new StreamableFile(icon.bytes, {
      type: icon.contentType,
      length: icon.size,
      disposition: svg ? 'attachment; filename="icon.svg"' : 'inline',
    }).setErrorLogger((error) => this.logger.warn(`Icon ${uploadId}: the response was broken off, the rest of its bytes could not be read: ${error.message}`));
  }
}
