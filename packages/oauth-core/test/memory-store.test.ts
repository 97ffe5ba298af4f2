import { createMemoryStorage } from '../src/index.js';
import { describeOAuthStorageConformance } from '../src/testing.js';

describeOAuthStorageConformance('memory', () => createMemoryStorage());
