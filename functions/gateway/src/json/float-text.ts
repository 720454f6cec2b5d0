/**
 * FLOAT/DOUBLE values in JSON: finite values are numbers; NaN and the infinities, which JSON has no
 * number for, are the strings "NaN", "Infinity" and "-Infinity" (both directions).
 */

const SPECIAL: Record<string, number> = { NaN: Number.NaN, Infinity: Infinity, '-Infinity': -Infinity }

export function parseSpecialFloat(text: string): number | undefined {
  return Object.hasOwn(SPECIAL, text) ? SPECIAL[text] : undefined
}

export function doubleToJson(v: number): number | string {
  return Number.isFinite(v) ? v : String(v)
}

/** The shortest decimal that reads back as the same 32-bit float (0.1f → 0.1, not 0.10000000149011612). */
export function floatToJson(v: number): number | string {
  if (!Number.isFinite(v)) return String(v)
  const f = Math.fround(v)
  for (let digits = 1; digits <= 9; digits++) {
    const candidate = Number(f.toPrecision(digits))
    if (Math.fround(candidate) === f) return candidate
  }
  return f
}
