// The public barrel. This package's issue fills it; until then it exports nothing.
export {};
