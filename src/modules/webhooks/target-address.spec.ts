import { isPublicAddress } from './target-address';
import { checkWebhookUrl } from './webhook-url';

describe('isPublicAddress', () => {
  it.each(['8.8.8.8', '2606:4700:4700::1111', '::ffff:8.8.8.8', '::ffff:808:808', '::8.8.8.8', '::808:808', '64:ff9b::8.8.8.8', '64:ff9b::808:808'])(
    'accepts the public address %s',
    (address) => {
      expect(isPublicAddress(address)).toBe(true);
    },
  );

  it.each([
    '10.1.2.3', '172.16.0.1', '192.168.1.1', '127.0.0.1', '169.254.169.254', '0.0.0.0', '100.64.0.1', '224.0.0.1', '255.255.255.255',
    '::1', '::', 'fe80::1', 'fe80::1%eth0', 'fd00::1', 'ff02::1', '::ffff:127.0.0.1', '::ffff:10.0.0.1', 'not an address', '', '2130706433', '127.1',
  ])('refuses %s', (address) => {
    expect(isPublicAddress(address)).toBe(false);
  });

  it.each([
    ['IPv4-mapped', ['::ffff:127.0.0.1', '::ffff:7f00:1', '::ffff:169.254.169.254', '::ffff:a9fe:a9fe', '::ffff:10.0.0.1', '::ffff:100.64.0.1']],
    ['IPv4-compatible', ['::127.0.0.1', '::7f00:1', '::169.254.169.254', '::a9fe:a9fe', '::10.0.0.1', '::a00:1', '::192.168.1.1', '::0.0.0.2']],
    ['NAT64 (64:ff9b::/96)', ['64:ff9b::127.0.0.1', '64:ff9b::7f00:1', '64:ff9b::169.254.169.254', '64:ff9b::10.0.0.1', '64:ff9b::c0a8:101']],
  ])('judges an %s address by the IPv4 address it carries, however it is written', (_kind, addresses) => {
    for (const address of addresses) expect({ address, public: isPublicAddress(address) }).toEqual({ address, public: false });
  });

  it.each([
    ['6to4', ['2002:7f00:1::1', '2002:808:808::1']],
    ['Teredo', ['2001:0:4136:e378:8000:63bf:3fff:fdd2', '2001:0:808:808::1']],
    ['local-use NAT64 (64:ff9b:1::/48)', ['64:ff9b:1::808:808', '64:ff9b:1:808:808::']],
    ['IPv4-translated (::ffff:0:0:0/96)', ['::ffff:0:808:808']],
  ])('refuses %s addresses, whatever IPv4 address they hold', (_kind, addresses) => {
    for (const address of addresses) expect({ address, public: isPublicAddress(address) }).toEqual({ address, public: false });
  });
});

describe('checkWebhookUrl', () => {
  it('accepts a public https URL', () => {
    expect(() => checkWebhookUrl('https://hooks.example.com/path?x=1', false)).not.toThrow();
    expect(() => checkWebhookUrl('https://8.8.8.8:8443/hook', false)).not.toThrow();
  });

  it.each([
    ['http://hooks.example.com/', 'invalid_value'],
    ['https://127.0.0.1/', 'invalid_value'],
    ['https://[::1]/', 'invalid_value'],
    ['https://[::ffff:7f00:1]/', 'invalid_value'],
    ['https://[::127.0.0.1]:18408/h', 'invalid_value'],
    ['https://[::169.254.169.254]/', 'invalid_value'],
    ['https://[64:ff9b::10.0.0.1]/', 'invalid_value'],
    ['https://hooks.example.com:0/', 'invalid_value'],
    ['https://hooks.example.com:00/', 'invalid_value'],
    ['https://hooks.example.com/a\r\n X-Injected: 1', 'invalid_format'],
    ['https://hooks.example.com/a\u0000', 'invalid_format'],
    ['https://hooks.example.com/a\u007f', 'invalid_format'],
    ['https://hooks.example.com/a\u009b', 'invalid_format'],
    ['\thttps://hooks.example.com/', 'invalid_format'],
    ['https:\\\\hooks.example.com\\x', 'invalid_format'],
    ['https://hooks.example.com\\@127.0.0.1/', 'invalid_format'],
    ['https://localhost:8443/', 'invalid_value'],
    ['https://user:pw@hooks.example.com/', 'invalid_value'],
    ['https://hooks.example.com/#x', 'invalid_value'],
    ['ftp://hooks.example.com/', 'invalid_value'],
    ['hooks.example.com', 'invalid_format'],
  ])('refuses %s (%s)', (url, reason) => {
    expect(() => checkWebhookUrl(url, false)).toThrow(expect.objectContaining({ details: expect.objectContaining({ field: 'url', reason }) }));
  });

  it('allows http and private hosts when insecure targets are allowed, but never a malformed URL', () => {
    expect(() => checkWebhookUrl('http://127.0.0.1:8080/hook', true)).not.toThrow();
    expect(() => checkWebhookUrl('http://[::127.0.0.1]:8080/hook', true)).not.toThrow();
    expect(() => checkWebhookUrl('ftp://127.0.0.1/', true)).toThrow();
    for (const url of ['http://127.0.0.1:0/hook', 'http://127.0.0.1/a\nb', 'http:\\127.0.0.1\\hook']) {
      expect(() => checkWebhookUrl(url, true)).toThrow(expect.objectContaining({ details: expect.objectContaining({ field: 'url' }) }));
    }
  });

  it('accepts a percent-encoded backslash, which new URL keeps as it is', () => {
    expect(() => checkWebhookUrl('https://hooks.example.com/a%5Cb', false)).not.toThrow();
  });
});
