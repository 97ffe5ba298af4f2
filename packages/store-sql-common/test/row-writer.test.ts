import { describe, expect, it } from 'vitest';
import { OAUTH_TABLE_SHAPES } from '../src/oauth-tables.js';
import { insertStatement, rowValues, type SqlWriteDialect, tableShape } from '../src/row-writer.js';

const sqlite: SqlWriteDialect = { placeholder: () => '?', stringArray: (value) => JSON.stringify(value) };
const postgres: SqlWriteDialect = { placeholder: (n) => `$${n}`, stringArray: (value) => [...value] };
const notes = tableShape('notes', ['tenant', 'id'], ['id', 'tags', 'body'], {
  tenantColumn: 'tenant',
  kinds: { tags: 'stringArray' },
});

describe('one column list per table: the dialects differ only in placeholders and array encoding', () => {
  it('writes the same statement in both dialects but for the placeholders', () => {
    expect(insertStatement(notes, sqlite)).toBe(
      'INSERT INTO notes (tenant, id, tags, body) VALUES (?, ?, ?, ?)',
    );
    expect(insertStatement(notes, postgres, { onConflict: 'update' })).toBe(
      'INSERT INTO notes (tenant, id, tags, body) VALUES ($1, $2, $3, $4) ON CONFLICT (tenant, id) DO UPDATE SET tags = excluded.tags, body = excluded.body',
    );
  });

  it('takes each value from the camelCase field, the tenant first, an absent optional field as NULL', () => {
    expect(rowValues(notes, { id: 'n1', tags: ['a'] }, sqlite, 't1')).toEqual(['t1', 'n1', '["a"]', null]);
    expect(rowValues(notes, { id: 'n1', tags: ['a'], body: 'x' }, postgres, 't1')).toEqual([
      't1',
      'n1',
      ['a'],
      'x',
    ]);
  });

  it('joins consent scopes with spaces and writes a client key set as JSON text', () => {
    const consent = { userId: 'u', clientId: 'c', scopes: ['a', 'b'], grantedAt: 1, expiresAt: 2 };
    expect(rowValues(OAUTH_TABLE_SHAPES.consent, consent, postgres, 't')).toEqual([
      't',
      'u',
      'c',
      'a b',
      1,
      2,
    ]);
    const jwks = { keys: [{ kty: 'OKP' }] };
    const values = rowValues(OAUTH_TABLE_SHAPES.client, { clientId: 'c', jwks }, sqlite, 't');
    expect(values[OAUTH_TABLE_SHAPES.client.columns.findIndex((column) => column.name === 'jwks') + 1]).toBe(
      JSON.stringify(jwks),
    );
  });
});
