// `@keyhold/claim-codes/node`: what needs the file system. Claim scopes are directories on disk (resolved
// symlink-free), and the default claim store is a file. The main entry stays runtime-neutral; `createClaims`
// loads its scope resolver from `./scope.js` on first use unless it is given its own.
export type { FileClaimStore, FileClaimStoreOptions } from './file-store.js';
export { createFileClaimStore } from './file-store.js';
export { isFileInScope } from './scope.js';
