/**
 * Two of @oclif/core's steps, done here as oclif does them but without what
 * made them cost at every start, and put in its place in the CLI's bundle of
 * oclif by scripts/bundle-cli.mjs (which fails the build when it no longer
 * finds the code it replaces). Both give oclif's answers, byte for byte:
 * test/cli/oclif-start.test.ts compares them with oclif's own.
 */

/**
 * The order of the characters a command id is made of (letters, digits and
 * `:`, `-`, `_`, `.`) in the collation `localeCompare` uses (ICU's root:
 * punctuation, then digits, then letters).
 */
const ID_CHARACTERS = '_-:.0123456789abcdefghijklmnopqrstuvwxyz';
const RANK = new Int8Array(128).fill(-1);
for (let i = 0; i < ID_CHARACTERS.length; i++) RANK[ID_CHARACTERS.charCodeAt(i)] = i;

const rankAt = (text: string, index: number): number => {
  const code = text.charCodeAt(index);
  return code < 128 ? RANK[code]! : -1;
};

/**
 * `a.localeCompare(b)` for oclif's sort of a plugin's commands by id. The
 * first `localeCompare` of a process loads ICU's collator (about 6 ms, a
 * tenth of Node's own start) for the one sort every command's start makes.
 * Ids of the characters above compare by their rank, which is the
 * collator's order for them; any other id goes to `localeCompare` itself.
 */
export function compareCommandIds(a: string, b: string): number {
  const shared = Math.min(a.length, b.length);
  let order = 0;
  for (let i = 0; i < shared; i++) {
    const x = rankAt(a, i);
    const y = rankAt(b, i);
    if (x < 0 || y < 0) return a.localeCompare(b);
    if (x !== y) {
      order = x < y ? -1 : 1;
      break;
    }
  }
  // The collator weighs the whole of each string: the rest must be of the same characters.
  for (const text of [a, b]) for (let i = shared; i < text.length; i++) if (rankAt(text, i) < 0) return a.localeCompare(b);
  if (order !== 0) return order;
  return a.length === b.length ? 0 : a.length < b.length ? -1 : 1;
}

/**
 * oclif's help runs every line it prints (each flag's name and description)
 * through an EJS template for `<%= config.bin %>`: a `new Function` per line
 * per start. A text without `%` has no tag, and EJS gives it back as it is.
 */
export function renderHelpText(text: string, render: (text: string) => string): string {
  return text.includes('%') ? render(text) : text;
}
