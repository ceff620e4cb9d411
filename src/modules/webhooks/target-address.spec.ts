import { isPublicAddress } from './target-address';
import { checkWebhookUrl } from './webhook-url';

describe('isPublicAddress', () => {
  it.each(['8.8.8.8', '2606:4700:4700::1111', '::ffff:8.8.8.8'])('accepts the public address %s', (address) => {
    expect(isPublicAddress(address)).toBe(true);
  });

  it.each([
    '10.1.2.3', '172.16.0.1', '192.168.1.1', '127.0.0.1', '169.254.169.254', '0.0.0.0', '100.64.0.1', '224.0.0.1', '255.255.255.255',
    '::1', '::', 'fe80::1', 'fd00::1', 'ff02::1', '::ffff:127.0.0.1', '::ffff:10.0.0.1', '2002:7f00:1::1', 'not an address',
  ])('refuses %s', (address) => {
    expect(isPublicAddress(address)).toBe(false);
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
    ['https://localhost:8443/', 'invalid_value'],
    ['https://user:pw@hooks.example.com/', 'invalid_value'],
    ['https://hooks.example.com/#x', 'invalid_value'],
    ['ftp://hooks.example.com/', 'invalid_value'],
    ['hooks.example.com', 'invalid_format'],
  ])('refuses %s (%s)', (url, reason) => {
    expect(() => checkWebhookUrl(url, false)).toThrow(expect.objectContaining({ details: expect.objectContaining({ field: 'url', reason }) }));
  });

  it('allows http and private hosts when insecure targets are allowed', () => {
    expect(() => checkWebhookUrl('http://127.0.0.1:8080/hook', true)).not.toThrow();
    expect(() => checkWebhookUrl('ftp://127.0.0.1/', true)).toThrow();
  });
});
