/** Ends a `switch` over a union: a case left out is a compile error, and a value from outside the types throws. */
export function assertNever(value: never): never {
  throw new TypeError(`Unexpected value: ${JSON.stringify(value)}`);
}
