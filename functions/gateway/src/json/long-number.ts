/**
 * A JSON number literal that an IEEE double cannot hold exactly: more than 15 significant digits
 * with a fraction or exponent, or an integer beyond ±(2^53 − 1). The request parser keeps its text
 * so DECIMAL and BIGINT columns convert it exactly (or reject it) instead of silently rounding.
 */
export class LongNumber {
  constructor(readonly text: string) {}

  /** The double JSON.parse would have produced. */
  toNumber(): number {
    return Number(this.text)
  }

  get isInteger(): boolean {
    return /^-?\d+$/.test(this.text)
  }

  toJSON(): number {
    return this.toNumber()
  }
}

const MAX_SAFE_DIGITS = '9007199254740991'

/**
 * Whether a number literal (valid JSON syntax) has to be kept as a LongNumber: more than 15
 * significant digits (a double keeps 15 exactly) and not a safe integer.
 */
export function isLongNumberLiteral(text: string, start: number, end: number): boolean {
  let digit = 0
  let first = -1
  let last = -1
  let integer = true
  for (let i = start; i < end; i++) {
    const c = text.charCodeAt(i)
    if (c >= 48 && c <= 57) {
      if (c !== 48) {
        if (first < 0) first = digit
        last = digit
      }
      digit++
    } else if (c === 101 || c === 69) {
      integer = false
      break
    } else if (c === 46) integer = false
  }
  const significant = first < 0 ? 0 : last - first + 1
  if (significant <= 15) return false
  if (!integer) return true
  const digits = text.slice(text.charCodeAt(start) === 45 ? start + 1 : start, end).replace(/^0+/, '')
  return digits.length > 16 || (digits.length === 16 && digits > MAX_SAFE_DIGITS)
}
