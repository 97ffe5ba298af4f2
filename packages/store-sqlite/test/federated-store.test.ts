import {
  describeLoginTransactionStoreConformance,
  describeUserStoreConformance,
} from '@keyhold/oauth-core/testing';
import { createSqliteLoginTransactionStore, createSqliteUserStore } from '../src/federated-store.js';
import { temporaryDatabases } from './temp-database.js';

const databases = temporaryDatabases();

describeUserStoreConformance('sqlite (:memory:)', () => createSqliteUserStore(databases.memory()));
describeUserStoreConformance('sqlite (WAL file)', () => createSqliteUserStore(databases.file()));
describeLoginTransactionStoreConformance('sqlite (:memory:)', () =>
  createSqliteLoginTransactionStore(databases.memory()),
);
describeLoginTransactionStoreConformance('sqlite (WAL file)', () =>
  createSqliteLoginTransactionStore(databases.file()),
);
