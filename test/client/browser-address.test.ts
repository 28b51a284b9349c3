/**
 * The page's fallback for an S/A host the browser cannot resolve
 * (src/client/browser.ts): the URL by the address DoH gave, plain http only.
 */
import { describe, expect, it } from 'vitest';
import { addressedUrl } from '../../src/client/browser.ts';

const pins = [
  { host: 'resolver.lex.campinas.sp.gov.br.', address: '127.0.0.2' },
  { host: 'v6.example', address: '2001:db8::53' },
];

describe('addressedUrl', () => {
  it('puts the pinned address in place of the host, port, path and query kept', () => {
    expect(
      addressedUrl('http://Resolver.lex.campinas.sp.gov.br:8300/uri-res/N2L?urn:lex:br', pins),
    ).toBe('http://127.0.0.2:8300/uri-res/N2L?urn:lex:br');
    expect(addressedUrl('http://v6.example/uri-res/N2Ls?x', pins)).toBe(
      'http://[2001:db8::53]/uri-res/N2Ls?x',
    );
  });

  it('keeps https (the certificate names the host), unpinned hosts and bad URLs as they are', () => {
    expect(addressedUrl('https://v6.example/uri-res/N2L?x', pins)).toBeUndefined();
    expect(addressedUrl('http://other.example/', pins)).toBeUndefined();
    expect(addressedUrl('not a url', pins)).toBeUndefined();
  });
});
