import { detectIconType } from './icon-type';

const bytes = (...parts: Array<string | number[]>) => Buffer.concat(parts.map((part) => (typeof part === 'string' ? Buffer.from(part, 'utf8') : Buffer.from(part))));

describe('detectIconType (by content, never by name)', () => {
  it.each([
    ['PNG signature', bytes([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13]), 'image/png'],
    ['JPEG start of image', bytes([0xff, 0xd8, 0xff, 0xe0]), 'image/jpeg'],
    ['WebP in RIFF', bytes('RIFF', [0, 0, 0, 0], 'WEBPVP8 '), 'image/webp'],
    ['SVG', bytes('<svg xmlns="http://www.w3.org/2000/svg"></svg>'), 'image/svg+xml'],
    ['SVG after BOM, XML declaration, comments and white space', bytes('\uFEFF  <?xml version="1.0"?>\n<!-- made by hand -->\n<!--x--> <svg>'), 'image/svg+xml'],
  ])('recognises %s', (_case, content, type) => {
    expect(detectIconType(content)?.contentType).toBe(type);
  });

  it.each([
    ['empty', bytes()],
    ['text', bytes('hello')],
    ['a PNG cut before its signature ends', bytes([0x89, 0x50, 0x4e, 0x47])],
    ['RIFF that is not WebP', bytes('RIFF', [0, 0, 0, 0], 'WAVEfmt ')],
    ['SVG behind a DOCTYPE (entities live there)', bytes('<?xml version="1.0"?><!DOCTYPE svg [<!ENTITY x "y">]><svg>')],
    ['an unclosed XML declaration', bytes('<?xml version="1.0" <svg>')],
    ['an unclosed comment', bytes('<!-- <svg>')],
    ['an element named like svg', bytes('<svgfoo>')],
    ['HTML', bytes('<html><svg></svg></html>')],
    ['invalid UTF-8 before <svg', bytes([0xc3, 0x28], '<svg>')],
    ['a GIF', bytes('GIF89a')],
  ])('refuses %s', (_case, content) => {
    expect(detectIconType(content)).toBeNull();
  });
});
