/**
 * Offsets -> 1-based line and column, worked out once per text and only when
 * asked: tokens and errors carry offsets, and a position is computed at the
 * edge, when a diagnostic or a field needs one (eemeli/yaml's LineCounter).
 */

export interface Position {
  line: number;
  column: number;
}

export class LineIndex {
  /** Offset at which each line starts; built on the first query. */
  private starts: number[] | undefined;

  /** `firstLine`: the 1-based line the text's first line has in its file. */
  constructor(
    private readonly src: string,
    private readonly firstLine = 1,
  ) {}

  private lineStarts(): number[] {
    if (this.starts === undefined) {
      const starts = [0];
      for (let i = this.src.indexOf('\n'); i >= 0; i = this.src.indexOf('\n', i + 1)) starts.push(i + 1);
      this.starts = starts;
    }
    return this.starts;
  }

  /** 0-based index of the line holding `offset`. */
  private lineOf(offset: number): number {
    const starts = this.lineStarts();
    let low = 0;
    let high = starts.length - 1;
    while (low < high) {
      const mid = (low + high + 1) >> 1;
      if ((starts[mid] ?? 0) <= offset) low = mid;
      else high = mid - 1;
    }
    return low;
  }

  /** Offset at which the line holding `offset` starts. */
  lineStart(offset: number): number {
    return this.lineStarts()[this.lineOf(offset)] ?? 0;
  }

  /** The 1-based line (counted from `firstLine`) and 1-based column of `offset`. */
  position(offset: number): Position {
    const line = this.lineOf(offset);
    return { line: line + this.firstLine, column: offset - (this.lineStarts()[line] ?? 0) + 1 };
  }
}
