import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readDocumentedMethods, webhookTagsOf } from '../src/doc-comments.js';
import { WebhookError } from '../src/errors.js';
import { fixturePath } from './fixtures/modules.js';
import { parseWithTypescript } from './support/typescript-reader.js';

function source(name: string, text: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'webhook-kit-'));
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
}

describe('doc comments are read by a parser, not by pattern matching', () => {
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

/** `line className.name [tags]` for each declaration, as a reader of the file would list them. */
function listed(file: string): string[] {
  return readDocumentedMethods(fixturePath(`tricky/${file}`)).map(
    (m) => `${m.line} ${m.className ?? '-'}.${m.name} [${m.webhookTags.join('|')}]`,
  );
}

describe('doc comments: tricky sources (test/fixtures/tricky)', () => {
  it('ignores doc-comment look-alikes in strings, template literals, substitutions and regular expressions', () => {
    expect(listed('strings.ts')).toEqual(['13 Strings.one [real/one]', '18 Strings.two [real/two]']);
  });

  it('reads decorated methods, arrow and function fields, overloads, generics and class expressions', () => {
    expect(listed('decorators.ts')).toEqual([
      '2 -.logged []',
      '3 -.route []',
      // The line is where the declaration starts: at its first decorator.
      '9 Decorated.method [decorated/method]',
      // A doc comment between a decorator and the name is not the method's.
      '15 Decorated.afterDecorator []',
      '20 Decorated.arrow [arrow/field]',
      '23 Decorated.fn [function/field]',
      // `wrapped = (() => 1)` is not a method, nor are getters, #private and computed names, constructors.
      // Each overload signature is a declaration with its own tags (discovery adds them up).
      '29 Decorated.overloaded [overload/string]',
      '31 Decorated.overloaded [overload/number]',
      '33 Decorated.overloaded []',
      '38 Decorated.generic [generic]',
      '54 Decorated.quoted-name [quoted]',
      '57 Decorated.create [static]',
      '65 Base.run [abstract]',
      '68 Base.toString [modifiers]',
      // Of two doc comments in a row, the last one counts.
      '75 -.lastWins [second: only the last doc comment counts]',
      '78 -.parse [overloaded/function]',
      '79 -.parse []',
      // `const Expression = class { … }` files its members under the variable's name.
      '85 Expression.inside [expression]',
      '90 default.push [default]',
      // The statement's doc comment belongs to its first variable.
      '94 -.a [multiple]',
      '95 -.b []',
      '97 -.initializer [on/initializer]',
      '101 -.inner [namespaced]',
      '106 -.method [literal/method]',
      '108 -.arrow [literal/arrow]',
      // A function value may carry its own doc comment: it is listed first, as TypeScript lists it.
      '124 -.ordered [order/initializer|order/statement]',
      '128 Ordered.field [order/field-initializer|order/field]',
      '133 -.value [order/value|order/property]',
    ]);
  });

  it('reads files with CRLF line endings, with the lines a Windows editor shows', () => {
    expect(readFileSync(fixturePath('tricky/crlf.ts'), 'utf8')).toContain('\r\n');
    expect(listed('crlf.ts')).toEqual(['7 Crlf.push [crlf/push]', '10 Crlf.pull [crlf/pull]']);
  });

  it('tells tags from e-mail addresses, code spans, links and look-alike tag names', () => {
    expect(listed('tags.ts')).toEqual([
      '3 Tags.prose []',
      '6 Tags.link []',
      '13 Tags.afterParam [after/param]',
      '16 Tags.lookalike []',
      '21 Tags.bare []',
      '24 Tags.inline [inline/tag]',
      '27 Tags.tight [tight]',
      // An `@webhook` in an @example block is a tag to TypeScript too: registration then refuses the path.
      '36 Tags.example [spaced/path|in/example\n```]',
    ]);
  });

  it('reads JSX in .jsx and .tsx files, where an apostrophe in text is not a string', () => {
    expect(listed('jsx-module.jsx')).toEqual(['2 -.Card []', '6 -.push [jsx/push]']);
    expect(listed('view.tsx')).toEqual(['3 View.render [tsx/render]']);
  });

  it('reads a sloppy-mode CommonJS file (legacy octal, `with`)', () => {
    expect(listed('sloppy.cjs')).toEqual(['6 -.push [cjs/push]']);
  });

  it('reads JavaScript that the TypeScript plugin refuses (a function expression named `type`)', () => {
    expect(listed('named-type.js')).toEqual(['4 -.type [named/type]']);
  });

  it('gives, for each tricky file, exactly what the TypeScript compiler reader gave', () => {
    for (const file of [
      'strings.ts',
      'decorators.ts',
      'crlf.ts',
      'tags.ts',
      'jsx-module.jsx',
      'view.tsx',
      'sloppy.cjs',
      'named-type.js',
    ]) {
      const path = fixturePath(`tricky/${file}`);
      expect(readDocumentedMethods(path), file).toEqual(
        parseWithTypescript(path, readFileSync(path, 'utf8')),
      );
    }
  });
});

describe('doc comments: tag text, by the rules of the TypeScript JSDoc reader', () => {
  it.each([
    ['* @webhook a/b ', ['a/b']],
    ['* @webhook', ['']],
    ['*\n * @webhook a\n * @webhook b\n ', ['a', 'b']],
    ['*\r\n * @webhook crlf\r\n ', ['crlf']],
    ['* see `*\\/` then @webhook after/span ', ['after/span']],
    // In the description, only the character before `@` counts: backticks do not hide a tag there.
    ['* prose `@webhook` and `x @webhook y` ', ['y`']],
    ['*\n * @param x `a @webhook b` c\n ', []],
    ['* {@link X @webhook y} ', []],
    ['* {@webhook} a@webhook.b @ webhook ', []],
    ['*\n * @webhook\n *   spans/lines\n ', ['spans/lines']],
  ])('%j → %j', (value, tags) => {
    expect(webhookTagsOf(value)).toEqual(tags);
    expect(parseWithTypescript('tags.ts', `/*${value}*/\nfunction f() {}`)[0]?.webhookTags).toEqual(tags);
  });
});

describe('doc comments: a tagged file that does not parse is an error, not a silent loss of routes', () => {
  it('throws ERR_SOURCE_UNPARSABLE naming the file and the line where parsing stopped', () => {
    const path = source('broken.ts', 'export class Broken {\n  /** @webhook x */\n  method( {}\n}\n');
    let error: unknown;
    try {
      readDocumentedMethods(path);
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(WebhookError);
    expect((error as WebhookError).code).toBe('ERR_SOURCE_UNPARSABLE');
    expect((error as WebhookError).message).toContain(`${path}:4`);
  });
});
