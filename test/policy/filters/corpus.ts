/**
 * Filter policies for the data-filtering differential test: each runs
 * against real OPA and our engine for several inputs, every target and
 * dialect, and over the same SQLite table of fruits.
 */
export const FRUITS = {
  name: 'fruits',
  columns: ['name', 'colour', 'price', 'owner', 'stock', 'organic'],
  rows: [
    ['apple', 'red', 3, 'alice', 10, 1],
    ['banana', 'yellow', 1, 'bob', 0, 0],
    ['cherry', 'red', 8, 'carol', 5, 1],
    ['date', 'brown', 12, 'alice', 2, null],
    ['elderberry', 'black', 20, null, 7, 0],
    ['fig', 'purple', 5, 'bob', 1, 1],
    ['grape', 'green', 4, "o'neil", 30, 0],
    ['honeydew', 'green', 6, 'dave', 0, 1],
    ['kiwi', 'brown', 2, 'carol', 12, null],
    ['lemon', 'yellow', 1.5, 'alice', 40, 0],
  ],
};

export interface FilterCase {
  name: string;
  policy: string;
  inputs: unknown[];
  unknowns?: string[];
  mappings?: Record<string, unknown>;
  maskRule?: string;
  /** The table the SQLite clauses run over, when the mappings rename it (default {@link FRUITS}). */
  table?: typeof FRUITS;
}

export const CASES: FilterCase[] = [
  {
    name: 'equality and conjunctions across rules',
    policy: `package filters
include if input.fruits.name == "apple"
include if {
  input.fruits.price < input.max
  input.fruits.colour != "red"
}
include if input.fruits.owner == input.user
`,
    inputs: [
      { max: 5, user: 'bob' },
      { max: 1, user: 'nobody' },
      { max: 100, user: "o'neil" },
    ],
  },
  {
    name: 'orderings, both ways round',
    policy: `package filters
include if {
  input.fruits.price >= input.min
  input.fruits.price <= input.max
}
include if 30 <= input.fruits.stock
include if input.limit > input.fruits.stock
`,
    inputs: [
      { min: 2, max: 5, limit: 1 },
      { min: 10, max: 1, limit: 0 },
    ],
  },
  {
    name: 'membership',
    policy: `package filters
include if input.fruits.owner in input.users
include if input.fruits.colour in {"green", "black"}
`,
    inputs: [{ users: ['alice', 'carol'] }, { users: [] }],
  },
  {
    name: 'negation',
    policy: `package filters
include if {
  not input.fruits.colour == "red"
  not input.fruits.owner in input.blocked
  input.fruits.stock > 0
}
`,
    inputs: [{ blocked: ['alice'] }, { blocked: ['bob', 'dave', 'carol'] }],
  },
  {
    // A known operand of a (negated) comparison is read from the input; an undefined one makes the negation hold.
    name: 'comparisons with a known ref operand, negated too',
    policy: `package filters
include if {
  input.fruits.colour == input.colour
  not input.fruits.owner == input.user
}
`,
    inputs: [{ colour: 'red', user: 'bob' }, { colour: 'green' }, { user: 'bob' }],
  },
  {
    name: 'helper rules inlined, and negated by De Morgan',
    policy: `package filters
include if {
  cheap
  not banned
}
cheap if input.fruits.price < input.max
cheap if input.fruits.colour == "green"
banned if {
  input.fruits.owner == "bob"
  input.fruits.stock == 0
}
`,
    inputs: [{ max: 5 }, { max: 0 }],
  },
  {
    name: 'known conditions decide whole rules',
    policy: `package filters
include if input.user.role == "admin"
include if {
  input.user.role == "owner"
  input.fruits.owner == input.user.name
}
`,
    inputs: [{ user: { role: 'admin', name: 'x' } }, { user: { role: 'owner', name: 'carol' } }, { user: { role: 'guest', name: 'bob' } }],
  },
  {
    name: 'iteration over known data and copy propagation',
    policy: `package filters
grants := {"cook": ["red", "green"], "baker": ["yellow"]}
include if {
  some role in input.roles
  some colour in grants[role]
  input.fruits.colour == colour
}
include if {
  p := input.fruits.price
  p > input.min
  input.fruits.organic == true
}
`,
    inputs: [
      { roles: ['cook'], min: 7 },
      { roles: ['baker', 'cook'], min: 100 },
      { roles: [], min: 0 },
    ],
  },
  {
    name: 'null and boolean columns',
    policy: `package filters
include if input.fruits.owner == null
include if {
  input.fruits.organic == false
  input.fruits.owner != null
}
`,
    inputs: [{}],
  },
  {
    name: 'string matching builtins (not for SQLite)',
    policy: `package filters
include if startswith(input.fruits.name, input.prefix)
include if endswith(input.fruits.name, "rry")
include if contains(input.fruits.owner, "a_%\\\\")
`,
    inputs: [{ prefix: 'b' }, { prefix: 'it\'s\n\t"q"' }],
  },
  {
    name: 'escaping of string values',
    policy: `package filters
include if input.fruits.owner == input.user
include if input.fruits.name in input.names
`,
    inputs: [{ user: "o'neil", names: ['a\\b', 'tab\there', 'quote"d', 'nl\nx'] }],
  },
  {
    name: 'always and never',
    policy: `package filters
include if input.open
include if {
  input.closed == false
  input.fruits.stock > 100
}
`,
    inputs: [{ open: true }, { open: false, closed: true }, { open: false, closed: false }],
  },
  {
    name: 'numbers keep the text they were written with',
    policy: `package filters
include if input.fruits.price == 2.50
include if input.fruits.stock >= 1e1
include if input.fruits.price in [1.5, 3, 5e0]
`,
    inputs: [{}],
  },
  {
    name: 'column against column',
    policy: `package filters
include if input.fruits.price < input.fruits.stock
`,
    inputs: [{}],
  },
  {
    name: 'mappings rename tables and columns',
    policy: `package filters
include if input.fruits.colour == "red"
include if input.fruits.price > 10
`,
    inputs: [{}],
    mappings: { fruits: { $self: 'f', colour: 'col' } },
    table: { ...FRUITS, name: 'f', columns: FRUITS.columns.map((c) => (c === 'colour' ? 'col' : c)) },
  },
  {
    name: 'column masks',
    policy: `package filters
include if input.fruits.stock > 0
masks := {"fruits": {"owner": {"replace": {"value": "***"}}}} if input.user != "admin"
`,
    inputs: [{ user: 'bob' }, { user: 'admin' }],
    maskRule: 'data.filters.masks',
  },
  {
    name: 'refused: default rule',
    policy: `package filters
default include := false
include if input.fruits.name == "apple"
`,
    inputs: [{}],
  },
  {
    name: 'refused: default helper, unsupported builtin, every, nested column, bare column',
    policy: `package filters
include if {
  h
  input.fruits.stock > 1
}
default h := false
h if input.fruits.name == "x"
include if lower(input.fruits.name) == "apple"
include if every x in [1] { input.fruits.stock == x }
include if input.fruits.name.first == "a"
include if input.fruits.organic
`,
    inputs: [{}],
  },
];

export const TARGETS: Array<[string, string]> = [
  ['sql', 'postgresql'],
  ['sql', 'mysql'],
  ['sql', 'sqlserver'],
  ['sql', 'sqlite'],
  ['ucast', 'all'],
  ['ucast', 'minimal'],
  ['ucast', 'prisma'],
  ['ucast', 'linq'],
];
