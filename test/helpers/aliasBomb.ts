// A YAML alias bomb: nine levels, each a list of nine aliases of the level below (9^9 values when expanded), which
// the yaml package refuses to expand ("Excessive alias count indicates a resource exhaustion attack").
export function aliasBomb(): string {
  const lines = ['a: &a ["x","x","x","x","x","x","x","x","x"]'];
  for (let i = 1; i < 9; i++) {
    const name = String.fromCharCode(97 + i);
    const below = String.fromCharCode(96 + i);
    lines.push(`${name}: &${name} [${Array(9).fill(`*${below}`).join(',')}]`);
  }
  return `${lines.join('\n')}\n`;
}
