import { Injectable, PipeTransform, type ArgumentMetadata } from '@nestjs/common';
import { AppError } from '../errors/app-error';
import { lowerCaseUuid } from './string-rules';

/** A path parameter that must be a uuid (any case; lower-cased): 400 VALIDATION_FAILED naming the parameter otherwise. */
@Injectable()
export class UuidParamPipe implements PipeTransform<unknown, string> {
  transform(value: unknown, metadata: ArgumentMetadata): string {
    const name = metadata.data ?? 'id';
    const uuid = lowerCaseUuid(value);
    if (uuid === undefined) throw AppError.validation(name, 'invalid_format', `${name}: must be a uuid.`);
    return uuid;
  }
}
