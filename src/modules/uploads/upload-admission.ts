import { Injectable } from '@nestjs/common';
import { AppError } from '../../common/errors/app-error';
import { ErrorCode } from '../../common/errors/error-code';
import { RETRY_AFTER_BUSY } from '../../common/errors/error-reply';
import { AppConfig } from '../../config/app-config';

/** What one upload being received has taken of its instance's allowance. */
export interface UploadTicket {
  /** Counts `bytes` more held in memory; throws 503 when the instance's buffer limit would be passed. */
  hold(bytes: number): void;
  /** The upload is over: its place and everything it still holds are given back. Idempotent. */
  leave(): void;
}

/**
 * The per-instance bounds on uploads (docs/uploads.md): how many are received at once
 * (UPLOADS_IN_FLIGHT_LIMIT) and how many of their bytes are held in memory (UPLOAD_BUFFER_LIMIT_BYTES).
 * Past either, the upload is 503 with Retry-After: the instance is busy, not the client at fault.
 * Counted in this process only, as memory is.
 */
@Injectable()
export class UploadAdmission {
  private inFlight = 0;
  private bytesHeld = 0;

  constructor(private readonly config: AppConfig) {}

  /** A place for one more upload, or 503 when every place is taken. */
  enter(): UploadTicket {
    if (this.inFlight >= this.config.UPLOADS_IN_FLIGHT_LIMIT) {
      throw busy(`This instance is receiving ${this.inFlight} uploads, its limit; retry shortly.`);
    }
    this.inFlight++;
    let held = 0;
    let left = false;
    return {
      hold: (bytes) => {
        if (this.bytesHeld + bytes > this.config.UPLOAD_BUFFER_LIMIT_BYTES) {
          throw busy('This instance holds as many upload bytes in memory as it may; retry shortly.');
        }
        this.bytesHeld += bytes;
        held += bytes;
      },
      leave: () => {
        if (left) return;
        left = true;
        this.bytesHeld -= held;
        held = 0;
        this.inFlight--;
      },
    };
  }

  /** For the metrics and the tests. */
  usage(): { inFlight: number; bytesHeld: number } {
    return { inFlight: this.inFlight, bytesHeld: this.bytesHeld };
  }
}

// Uploads in flight end within seconds, or at the stall timeout: a short wait.
function busy(detail: string): AppError {
  return new AppError(ErrorCode.SERVICE_UNAVAILABLE, detail, undefined, { 'Retry-After': RETRY_AFTER_BUSY });
}
