import {
  createMemoryLoginTransactionStore,
  createMemoryUserStore,
} from '../../src/federated/memory-store.js';
import {
  describeLoginTransactionStoreConformance,
  describeUserStoreConformance,
} from '../../src/federated/testing.js';

describeUserStoreConformance('memory', () => createMemoryUserStore());
describeLoginTransactionStoreConformance('memory', () => createMemoryLoginTransactionStore());
