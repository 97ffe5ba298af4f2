import {
  createMemoryGrantStore,
  createMemoryPendingAuthorizationStore,
  createMemoryRefreshLock,
} from '../src/index.js';
import {
  describeGrantStoreConformance,
  describePendingAuthorizationStoreConformance,
  describeRefreshLockConformance,
} from '../src/testing.js';

describeGrantStoreConformance('memory', () => createMemoryGrantStore());
describePendingAuthorizationStoreConformance('memory', () => createMemoryPendingAuthorizationStore());
describeRefreshLockConformance('memory', () => createMemoryRefreshLock());
