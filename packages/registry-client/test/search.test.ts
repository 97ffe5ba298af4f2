import { describe, expect, it } from 'vitest';
import { createProviderIndex, searchProviders } from '../src/search.js';
import { httpProvider, stdioProvider } from './helpers/providers.js';

const providers = {
  git: stdioProvider('git', { name: 'Git', description: 'Local repositories.' }),
  github: httpProvider('github', { name: 'GitHub', description: 'Issues and pull requests.' }),
  gitlab: httpProvider('gitlab', { name: 'GitLab', description: 'Merge requests.' }),
  forge: stdioProvider('forge', { name: 'Forge', description: 'A forge compatible with git hosting.' }),
  notion: httpProvider('notion', { name: 'Notion', description: 'Pages and databases.' }),
  digits: stdioProvider('digits', { name: 'Digits', description: 'Counting.' }),
};

describe('provider search (SPEC area E: matches name, description or id)', () => {
  it('matches id, name and description case-insensitively', () => {
    expect(searchProviders(providers, 'NOTION').map((p) => p.id)).toEqual(['notion']);
    expect(searchProviders(providers, 'databases').map((p) => p.id)).toEqual(['notion']);
    expect(searchProviders(providers, 'Pull Requests').map((p) => p.id)).toEqual(['github']);
  });

  it('ranks id and name matches before description matches', () => {
    const ids = searchProviders(providers, 'git').map((p) => p.id);
    expect(ids.indexOf('forge')).toBe(ids.length - 1);
    expect(ids.slice(0, 3).sort()).toEqual(['git', 'github', 'gitlab']);
  });

  it('ranks an exact match first, then prefixes, then substrings', () => {
    expect(searchProviders(providers, 'git').map((p) => p.id)).toEqual([
      'git',
      'github',
      'gitlab',
      'digits',
      'forge',
    ]);
  });

  it('matches nothing for a blank query', () => {
    expect(searchProviders(providers, '   ')).toEqual([]);
  });

  it('searches a list as well as a map, and an index answers repeatedly', () => {
    const index = createProviderIndex(Object.values(providers));
    expect(index.search('lab').map((p) => p.id)).toEqual(['gitlab']);
    expect(index.search('lab').map((p) => p.id)).toEqual(['gitlab']);
  });
});
