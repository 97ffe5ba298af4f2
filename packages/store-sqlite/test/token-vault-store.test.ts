import {
  describeGrantStoreConformance,
  describeProviderAuthorizationStoreConformance,
  describeRefreshLockConformance,
} from '@keyhold/token-vault/testing';
import {
  createSqliteGrantStore,
  createSqliteRefreshLock,
  createSqliteTokenVaultPendingStore,
} from '../src/token-vault-store.js';
import { temporaryDatabases } from './temp-database.js';

const databases = temporaryDatabases();

for (const [label, open] of [
  ['sqlite (:memory:)', databases.memory],
  ['sqlite (WAL file)', databases.file],
] as const) {
  describeGrantStoreConformance(label, () => createSqliteGrantStore(open()));
  describeProviderAuthorizationStoreConformance(label, () => createSqliteTokenVaultPendingStore(open()));
  describeRefreshLockConformance(label, () => createSqliteRefreshLock(open()));
}
