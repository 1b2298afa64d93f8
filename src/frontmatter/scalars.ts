/**
 * YAML 1.2 core schema resolution of plain scalars, matching what the `yaml`
 * package returns with default options, and the string form of map keys.
 */

const INT = /^[-+]?[0-9]+$/;
const OCT = /^0o[0-7]+$/;
const HEX = /^0x[0-9a-fA-F]+$/;
const FLOAT_EXP = /^[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)[eE][-+]?[0-9]+$/;
const FLOAT = /^[-+]?(?:\.[0-9]+|[0-9]+\.[0-9]*)$/;

function resolveSpecial(text: string): unknown {
  switch (text) {
    case '':
    case '~':
    case 'null':
    case 'Null':
    case 'NULL':
      return null;
    case 'true':
    case 'True':
    case 'TRUE':
      return true;
    case 'false':
    case 'False':
    case 'FALSE':
      return false;
    case '.inf':
    case '.Inf':
    case '.INF':
    case '+.inf':
    case '+.Inf':
    case '+.INF':
      return Number.POSITIVE_INFINITY;
    case '-.inf':
    case '-.Inf':
    case '-.INF':
      return Number.NEGATIVE_INFINITY;
    case '.nan':
    case '.NaN':
    case '.NAN':
      return Number.NaN;
    default:
      return undefined;
  }
}

/** The value of a plain scalar: null, boolean, number or the text itself. */
export function resolvePlain(text: string): unknown {
  if (text.length > 6) {
    // Only numbers can be this long and not a string; skip the switch.
    return resolveNumber(text);
  }
  const special = resolveSpecial(text);
  return special === undefined ? resolveNumber(text) : special;
}

function resolveNumber(text: string): unknown {
  const c = text.charCodeAt(0);
  const numberStart = (c >= 48 && c <= 57) || c === 43 || c === 45 || c === 46;
  if (!numberStart) return text;
  if (OCT.test(text)) return parseInt(text.slice(2), 8);
  if (INT.test(text)) return parseInt(text, 10);
  if (HEX.test(text)) return parseInt(text.slice(2), 16);
  if (FLOAT_EXP.test(text) || FLOAT.test(text)) return parseFloat(text);
  return text;
}

/** Object key for a scalar value, as `yaml` stringifies it (null -> ''). */
export function keyString(value: unknown): string {
  return value === null || value === undefined ? '' : String(value);
}

/** Sets an own data property, even for `__proto__`, never touching prototypes. */
export function setOwn<T>(target: Record<string, T>, key: string, value: T): void {
  if (key === '__proto__') {
    Object.defineProperty(target, key, { value, writable: true, enumerable: true, configurable: true });
  } else {
    target[key] = value;
  }
}
