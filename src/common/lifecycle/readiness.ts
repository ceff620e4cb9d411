import { Global, Injectable, Module } from '@nestjs/common';

/** Whether this instance should get new traffic: false from the moment it starts shutting down. */
@Injectable()
export class Readiness {
  private draining = false;

  get isDraining(): boolean {
    return this.draining;
  }

  startDraining(): void {
    this.draining = true;
  }
}

@Global()
@Module({ providers: [Readiness], exports: [Readiness] })
export class ReadinessModule {}
