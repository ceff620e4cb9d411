import { IsIn, IsString } from 'class-validator';
import { Required } from '../../../../common/validation/field-rules';
import { UPLOAD_KINDS, type UploadKind } from '../upload-kind';

/** The text fields of the multipart upload form (the file itself is the part named `file`). */
export class CreateUploadFormDto {
  @Required()
  @IsString()
  @IsIn(UPLOAD_KINDS, { message: `must be one of ${UPLOAD_KINDS.join(', ')}` })
  kind: UploadKind;
}
