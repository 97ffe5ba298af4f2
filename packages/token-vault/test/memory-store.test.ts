import { createMemoryBrokerStorage } from '../src/index.js';
import { describeTokenVaultStorageConformance } from '../src/testing.js';

describeTokenVaultStorageConformance('memory', {
  grants: () => createMemoryBrokerStorage().grants,
  pending: () => createMemoryBrokerStorage().pending,
  refreshLock: () => createMemoryBrokerStorage().refreshLock,
});
