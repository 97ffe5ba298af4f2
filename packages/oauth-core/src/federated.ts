// The `@keyhold/oauth-core/federated` entry: federated login through openid-client, kept out of the main entry
// so a host without federated login never loads the relying-party library.
export type {
  FederatedLogin,
  FederatedLoginErrorCode,
  FederatedLoginOptions,
  FederatedLoginResult,
  FederatedLoginStart,
  FederatedProvider,
} from './federated/login.js';
export { createFederatedLogin } from './federated/login.js';
export { createMemoryLoginTransactionStore, createMemoryUserStore } from './federated/memory-store.js';
export type {
  FederatedIdentity,
  LoginTransaction,
  LoginTransactionStore,
  UserStore,
} from './federated/storage.js';
