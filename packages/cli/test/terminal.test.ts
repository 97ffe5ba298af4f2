import { describe, expect, it } from 'vitest';
import { jsonText, printable, terminalText } from '../src/terminal.js';

describe('terminal output never carries escape sequences from data', () => {
  it('printable turns every control character into ?', () => {
    expect(printable('a\u001b[2Jb\nc')).toBe('a?[2Jb?c');
  });

  it('terminalText keeps line breaks and tabs but neutralises escapes and bells', () => {
    expect(terminalText('name\u001b]0;pwned\u0007\n\tnext\r')).toBe('name?]0;pwned?\n\tnext?');
  });

  it('neutralises C1 controls (the one-byte CSI) and the bidirectional controls too', () => {
    expect(printable('a\u009b2Jb\u202etxt.exe\u2066')).toBe('a?2Jb?txt.exe?');
    expect(terminalText('x\u009by\u200f\n')).toBe('x?y?\n');
  });

  it('jsonText escapes what JSON.stringify leaves raw (DEL, C1, bidirectional) and means the same', () => {
    const value = { name: 'a\u007fb\u009b31m\u202ec\u001b' };
    const text = jsonText(value);
    expect(text).toBe('{\n  "name": "a\\u007fb\\u009b31m\\u202ec\\u001b"\n}');
    expect(JSON.parse(text)).toEqual(value);
    expect(jsonText(value, 0)).not.toContain('\n');
  });
});
