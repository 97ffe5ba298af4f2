import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readDocumentedMethods } from '../src/doc-comments.js';

function source(name: string, text: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'webhook-kit-'));
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
}

describe('doc comments are read by the TypeScript parser, not by pattern matching', () => {
  it('finds tags on class methods, fields, object literals, functions and variables', () => {
    const path = source(
      'mixed.ts',
      `
      export class Repo {
        /** @webhook a/b */
        async method(): Promise<void> {}
        /** @webhook */
        field = async () => {};
      }
      export const literal = {
        /** @webhook lit */
        inner() {},
      };
      /** @webhook fn */
      export function top() {}
      /** @webhook arrow */
      export const arrow = () => 1;
      `,
    );
    const found = readDocumentedMethods(path).map((m) => [
      m.className ?? '-',
      m.name,
      m.webhookTags.join('|'),
    ]);
    expect(found).toEqual([
      ['Repo', 'method', 'a/b'],
      ['Repo', 'field', ''],
      ['-', 'inner', 'lit'],
      ['-', 'top', 'fn'],
      ['-', 'arrow', 'arrow'],
    ]);
  });

  it('ignores @webhook inside strings, line comments and non-doc block comments', () => {
    const path = source(
      'decoys.ts',
      `
      export class Decoys {
        // @webhook line/comment
        lineCommented() { return '/** @webhook in/string */'; }
        /* @webhook block/comment */
        blockCommented() {}
        /** Mentions the tag in prose: use \`@webhook\` sparingly. */
        prose() {}
      }
      `,
    );
    expect(readDocumentedMethods(path).map((m) => m.webhookTags)).toEqual([[], [], []]);
  });

  it('takes only the doc comment directly attached to the declaration', () => {
    const path = source(
      'attached.ts',
      `
      export class Attached {
        /** @webhook first */
        first() {}

        second() {}
      }
      `,
    );
    expect(readDocumentedMethods(path).map((m) => [m.name, m.webhookTags])).toEqual([
      ['first', ['first']],
      ['second', []],
    ]);
  });

  it('reads several @webhook tags on one method', () => {
    const path = source(
      'multi.js',
      `
      export default class {
        /**
         * @webhook v1/push
         * @webhook v2/push
         */
        push() {}
      }
      `,
    );
    expect(readDocumentedMethods(path)).toEqual([
      { className: 'default', name: 'push', webhookTags: ['v1/push', 'v2/push'], line: 7 },
    ]);
  });
});
