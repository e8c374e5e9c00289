/** The application version, recorded with every release in the ledger. */
export const APP_VERSION = '0.1.0';
