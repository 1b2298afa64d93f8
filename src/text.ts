/** Small pure text helpers shared by options, catalog and tools. */

/** Levenshtein distance; meant for short strings (option and skill names). */
export function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      current[j] = Math.min((previous[j] ?? 0) + 1, (current[j - 1] ?? 0) + 1, (previous[j - 1] ?? 0) + cost);
    }
    previous = current;
  }
  return previous[b.length] ?? 0;
}

/**
 * `names` ordered by closeness to `query`: names containing the query (or
 * contained in it) first, then by edit distance, then alphabetically.
 */
export function closestNames(names: readonly string[], query: string): string[] {
  const q = query.toLowerCase();
  const scored = names.map((name) => {
    const n = name.toLowerCase();
    const contains = q.length > 0 && (n.includes(q) || q.includes(n));
    return { name, contains, distance: editDistance(n, q) };
  });
  scored.sort(
    (x, y) =>
      Number(y.contains) - Number(x.contains) || x.distance - y.distance || (x.name < y.name ? -1 : x.name > y.name ? 1 : 0),
  );
  return scored.map((s) => s.name);
}

/** Collapse every run of whitespace (newlines from block scalars included) to one space. */
export function oneLine(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

/** `512 B`, `1.2 KB`, `3.4 MB`. */
export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KB`;
  return `${(bytes / (1024 * 1024)).toFixed(1)} MB`;
}
