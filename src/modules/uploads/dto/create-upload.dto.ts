import { EnumField } from '../../../common/validation/fields';
import { UPLOAD_KINDS, type UploadKind } from '../upload-kind';

/** The text fields of the multipart upload form (the file itself is the part named `file`). */
export class CreateUploadFormDto {
  @EnumField({ presence: 'required', values: UPLOAD_KINDS, description: 'package: a zip resource package; icon: an image.' })
  kind: UploadKind;
}
