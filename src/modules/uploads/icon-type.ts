export interface IconType {
  contentType: 'image/png' | 'image/jpeg' | 'image/webp' | 'image/svg+xml';
  extension: 'png' | 'jpg' | 'webp' | 'svg';
}

const PNG = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
const JPEG = Buffer.from([0xff, 0xd8, 0xff]);

// Hand-written for four formats: the usual sniffing library (file-type) is ESM-only and needs Node >= 22.
/** The image type of an icon, from its bytes (never from its name or the declared type). */
export function detectIconType(bytes: Buffer): IconType | null {
  if (bytes.subarray(0, PNG.length).equals(PNG)) return { contentType: 'image/png', extension: 'png' };
  if (bytes.subarray(0, JPEG.length).equals(JPEG)) return { contentType: 'image/jpeg', extension: 'jpg' };
  if (bytes.length >= 12 && bytes.toString('latin1', 0, 4) === 'RIFF' && bytes.toString('latin1', 8, 12) === 'WEBP') {
    return { contentType: 'image/webp', extension: 'webp' };
  }
  if (isSvg(bytes)) return { contentType: 'image/svg+xml', extension: 'svg' };
  return null;
}

function isSvg(bytes: Buffer): boolean {
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(bytes);
  } catch {
    return false;
  }
  return startsWithSvgElement(text);
}

/**
 * Optional BOM and white space, an optional XML declaration and comments, then the <svg element.
 * A DOCTYPE is not accepted: it is where entity definitions (and their tricks) would live.
 * Scanned by hand, in one pass, rather than with a backtracking regular expression.
 */
function startsWithSvgElement(text: string): boolean {
  let at = text.startsWith('\uFEFF') ? 1 : 0;
  const skipSpace = () => {
    while (at < text.length && /\s/.test(text[at])) at++;
  };
  skipSpace();
  if (text.startsWith('<?xml', at)) {
    const end = text.indexOf('?>', at);
    if (end === -1) return false;
    at = end + 2;
    skipSpace();
  }
  while (text.startsWith('<!--', at)) {
    const end = text.indexOf('-->', at + 4);
    if (end === -1) return false;
    at = end + 3;
    skipSpace();
  }
  return /^<svg[\s>]/.test(text.slice(at, at + 5));
}
