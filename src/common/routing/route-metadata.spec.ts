import { SetMetadata, type ExecutionContext } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { routeMetadata } from './route-metadata';

const FLAG = 'test:flag';

@SetMetadata(FLAG, 'base')
class BaseController {
  @SetMetadata(FLAG, 'handler')
  marked(): void {}

  inherited(): void {}
}

@SetMetadata(FLAG, 'derived')
class DerivedController extends BaseController {}

const contextOf = (controller: object, handler: () => void) => ({ getClass: () => controller, getHandler: () => handler }) as unknown as ExecutionContext;

describe('routeMetadata', () => {
  it("answers what the reflector answers, the handler's metadata over its controller's", () => {
    const reflector = new Reflector();
    expect(routeMetadata(reflector, FLAG, contextOf(BaseController, BaseController.prototype.marked))).toBe('handler');
    expect(routeMetadata(reflector, FLAG, contextOf(BaseController, BaseController.prototype.inherited))).toBe('base');
    expect(routeMetadata(reflector, 'test:absent', contextOf(BaseController, BaseController.prototype.marked))).toBeUndefined();
  });

  it('asks the reflector once per route and key, telling apart controllers that share a handler', () => {
    const reflector = new Reflector();
    const lookup = jest.spyOn(reflector, 'getAllAndOverride');
    for (let i = 0; i < 3; i++) {
      expect(routeMetadata(reflector, FLAG, contextOf(DerivedController, DerivedController.prototype.inherited))).toBe('derived');
      expect(routeMetadata(reflector, 'test:other', contextOf(DerivedController, DerivedController.prototype.inherited))).toBeUndefined();
    }
    expect(lookup).toHaveBeenCalledTimes(2);
  });
});
