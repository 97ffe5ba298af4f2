import { createMemoryClaimStore } from '../src/memory-store.js';
import { describeClaimStoreConformance } from '../src/testing.js';

describeClaimStoreConformance('memory', () => createMemoryClaimStore());
