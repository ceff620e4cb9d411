import type { Request } from 'express';
import { holdsSecret } from '../secret-prefixes';
import { loggablePath } from './loggable-path';

const path = (value: string) => loggablePath({ path: value } as Request);

describe('loggablePath', () => {
  it('keeps a path that holds no secret, percent-decoded', () => {
    expect(path('/x/caf%C3%A9/y')).toBe('/x/café/y');
    expect(path('/x/wsk-is-no-key/whsec')).toBe('/x/wsk-is-no-key/whsec');
  });

  it.each([
    ['/x/wsk_AbC123/y', '/x/wsk_[redacted]'],
    ['/x/%77%73%6B_AbC123', '/x/wsk_[redacted]'],
    ['/x/WSK_ABC123%ff', '/x/wsk_[redacted]'],
    ['/x/whsec_Qx9+Zr/Kp7Tw/Vm3Yq=', '/x/whsec_[redacted]'],
    ['/x/whsec_Qx9%2BZr%2FKp7Tw%2FVm3Yq%3D', '/x/whsec_[redacted]'],
    ['/x/%77hsec_Qx9%ff/Kp7Tw', '/x/whsec_[redacted]'],
    ['/x/WhSeC_Qx9', '/x/whsec_[redacted]'],
    ['/x/prefix-whsec_Qx9\nKp7Tw', '/x/prefix-whsec_[redacted]'],
    ['/x/whsec_one/wsk_two', '/x/whsec_[redacted]'],
  ])('cuts %j at its secret: %j', (given, logged) => {
    expect(path(given)).toBe(logged);
  });
});

describe('holdsSecret', () => {
  it('finds the prefix of every kind of secret, in any case', () => {
    expect(['wsk_a', 'trace-WSK_a', 'whsec_a', 'x-WHSEC_a'].map(holdsSecret)).toEqual([true, true, true, true]);
    expect(['trace-1', 'wsk-a', 'whsec', 'sk_a'].map(holdsSecret)).toEqual([false, false, false, false]);
  });
});
