/** The algorithms OPA accepts for bundle signatures (`--signing-alg`); in a module of its own so the CLI's flags load nothing else. */
export const SIGNING_ALGORITHMS = ['HS256', 'HS384', 'HS512', 'RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'ES256', 'ES384', 'ES512'] as const;
