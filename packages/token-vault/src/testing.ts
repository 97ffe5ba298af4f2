// A public entry point of this package; its issue fills it.
export {};
