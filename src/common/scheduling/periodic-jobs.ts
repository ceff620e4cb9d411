import { Global, Injectable, Logger, Module } from '@nestjs/common';
import { ScheduleModule, SchedulerRegistry } from '@nestjs/schedule';

/**
 * Background jobs that run every N seconds, with the interval taken from the configuration (which
 * the static @Interval() decorator cannot read). The timers are registered in @nestjs/schedule's
 * SchedulerRegistry, which clears them when the application shuts down.
 */
@Injectable()
export class PeriodicJobs {
  private readonly logger = new Logger('PeriodicJobs');

  constructor(private readonly registry: SchedulerRegistry) {}

  /**
   * Runs `job` every `seconds` (0: never). A run still going when the next is due is not started
   * twice; a failed run is logged and the next one runs as planned. The timer does not keep the
   * process alive on its own.
   */
  every(name: string, seconds: number, job: () => Promise<unknown>): void {
    if (seconds === 0) return;
    let running = false;
    const timer = setInterval(() => {
      if (running) return;
      running = true;
      job()
        .catch((error: unknown) => this.logger.warn(`${name} failed: ${(error as Error).message}`))
        .finally(() => {
          running = false;
        });
    }, seconds * 1000);
    timer.unref();
    this.registry.addInterval(name, timer);
  }
}

@Global()
@Module({
  imports: [ScheduleModule.forRoot()],
  providers: [PeriodicJobs],
  exports: [PeriodicJobs],
})
export class PeriodicJobsModule {}
