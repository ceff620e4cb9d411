import { Global, Module, type DynamicModule } from '@nestjs/common';
import { Registries } from './registries';

/** Provides the application's Registries, collected by AppModule, to every module. */
@Global()
@Module({})
export class RegistriesModule {
  static forRoot(registries: Registries): DynamicModule {
    return { module: RegistriesModule, providers: [{ provide: Registries, useValue: registries }], exports: [Registries] };
  }
}
