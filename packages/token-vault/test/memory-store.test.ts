import {
  createMemoryGrantStore,
  createMemoryProviderAuthorizationStore,
  createMemoryRefreshLock,
} from '../src/index.js';
import {
  describeGrantStoreConformance,
  describeProviderAuthorizationStoreConformance,
  describeRefreshLockConformance,
} from '../src/testing.js';

describeGrantStoreConformance('memory', () => createMemoryGrantStore());
describeProviderAuthorizationStoreConformance('memory', () => createMemoryProviderAuthorizationStore());
describeRefreshLockConformance('memory', () => createMemoryRefreshLock());
