import { createMemoryStorage } from '../src/index.js';
import { describeOAuthStorageConformance, describeRefreshReuseConformance } from '../src/testing.js';

describeOAuthStorageConformance('memory', () => createMemoryStorage());
describeRefreshReuseConformance('memory', () => createMemoryStorage());
