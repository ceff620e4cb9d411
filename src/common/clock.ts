import { Global, Injectable, Module } from '@nestjs/common';

/**
 * The current time, as one injectable provider: code that reasons about time (cache ages,
 * billing cycles) asks it rather than `new Date()`, so tests can pin the time of a running app.
 */
@Injectable()
export class Clock {
  now(): Date {
    return new Date();
  }
}

@Global()
@Module({ providers: [Clock], exports: [Clock] })
export class ClockModule {}
