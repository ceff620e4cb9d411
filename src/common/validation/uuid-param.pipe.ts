import { Injectable, PipeTransform, type ArgumentMetadata } from '@nestjs/common';
import { isUUID } from 'class-validator';
import { AppError } from '../errors/app-error';

/** A path parameter that must be a uuid: 400 VALIDATION_FAILED naming the parameter otherwise. */
@Injectable()
export class UuidParamPipe implements PipeTransform<unknown, string> {
  transform(value: unknown, metadata: ArgumentMetadata): string {
    const name = metadata.data ?? 'id';
    if (typeof value !== 'string' || !isUUID(value)) {
      throw AppError.validation(name, 'invalid_format', `${name}: must be a uuid.`);
    }
    return value.toLowerCase();
  }
}
