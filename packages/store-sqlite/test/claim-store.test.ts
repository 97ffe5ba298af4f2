import { describeClaimStoreConformance } from '@keyhold/claim-codes/testing';
import { createSqliteClaimStore } from '../src/claim-store.js';
import { temporaryDatabases } from './temp-database.js';

const databases = temporaryDatabases();

describeClaimStoreConformance('sqlite (:memory:)', () => createSqliteClaimStore(databases.memory()));
describeClaimStoreConformance('sqlite (WAL file)', () => createSqliteClaimStore(databases.file()));
