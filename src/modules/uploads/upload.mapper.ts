import type { UploadDto } from './dto/upload.dto';
import type { KeptUpload } from './uploads.repository';

export function toUploadDto(upload: KeptUpload): UploadDto {
  const contents = upload.manifest;
  return {
    upload_id: upload.id,
    kind: upload.kind,
    size: upload.size,
    sha256: upload.sha256,
    content_type: upload.contentType,
    package: contents
      ? {
          name: contents.name,
          version: contents.version,
          command_count: contents.commands.length,
          skill_count: contents.skills.length,
          connector_count: contents.connectors.length,
        }
      : null,
    created_at: upload.createdAt.toISOString(),
    expires_at: upload.expiresAt.toISOString(),
  };
}
