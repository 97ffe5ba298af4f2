import { describe, expect, it } from 'vitest';
import { printable, terminalText } from '../src/terminal.js';

describe('terminal output never carries escape sequences from data', () => {
  it('printable turns every control character into ?', () => {
    expect(printable('a\u001b[2Jb\nc')).toBe('a?[2Jb?c');
  });

  it('terminalText keeps line breaks and tabs but neutralises escapes and bells', () => {
    expect(terminalText('name\u001b]0;pwned\u0007\n\tnext\r')).toBe('name?]0;pwned?\n\tnext?');
  });
});
