import { ApiProperty } from '@nestjs/swagger';
import { UPLOAD_KINDS } from '../upload-kind';

/** What the archive of a package upload holds, so the caller can check it before applying it. */
export class UploadedPackageDto {
  @ApiProperty({ description: '`name` from suite.json.' })
  name: string;
  @ApiProperty({ description: "`version` from suite.json; applying the package sets the suite's version to it." })
  version: string;
  @ApiProperty({ type: 'integer', format: 'int64', description: 'Number of commands/*.md files.' })
  command_count: number;
  @ApiProperty({ type: 'integer', format: 'int64', description: 'Number of skills/<name>/SKILL.md files.' })
  skill_count: number;
  @ApiProperty({ type: 'integer', format: 'int64', description: 'Number of elements of connectors.json.' })
  connector_count: number;
}

export class UploadDto {
  @ApiProperty({ format: 'uuid', description: 'Name it as upload_id (package) or icon_upload_id (icon) in PATCH /expert-suites/{id}.' })
  upload_id: string;
  @ApiProperty({ enum: UPLOAD_KINDS })
  kind: string;
  @ApiProperty({ type: 'integer', format: 'int64', description: 'Size of the file in bytes.' })
  size: number;
  @ApiProperty({ description: 'SHA-256 of the file, hex.' })
  sha256: string;
  @ApiProperty({
    enum: ['application/zip', 'image/png', 'image/jpeg', 'image/webp', 'image/svg+xml'],
    description: 'The type detected from the content (not the declared one).',
  })
  content_type: string;
  @ApiProperty({ type: UploadedPackageDto, nullable: true, description: 'For a package: what it holds; null for an icon.' })
  package: UploadedPackageDto | null;
  @ApiProperty({ format: 'date-time' })
  created_at: string;
  @ApiProperty({
    format: 'date-time',
    description:
      'After this time the upload can no longer be named in a PATCH (422 UPLOAD_NOT_USABLE), and it is soon removed ' +
      '(then 422 UPLOAD_NOT_FOUND) unless it is an icon a suite uses: such an icon stays served while it is used.',
  })
  expires_at: string;
}
