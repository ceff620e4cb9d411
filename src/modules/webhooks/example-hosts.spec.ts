import { isExampleHost } from './example-hosts';

describe('isExampleHost', () => {
  it.each(['example.com', 'hooks.example.com', 'HOOKS.EXAMPLE.ORG', 'a.b.example.net', 'example.com.', 'receiver.example', 'nothing.invalid', 'invalid'])(
    'holds %s for a reserved example name',
    (host) => expect(isExampleHost(host)).toBe(true),
  );

  it.each(['hooks.example.company', 'notexample.com', 'example.com.evil.io', 'receiver.test', 'localhost', 'hooks.acme.io', '93.184.215.14'])(
    'does not hold %s',
    (host) => expect(isExampleHost(host)).toBe(false),
  );
});
