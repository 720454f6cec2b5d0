import { Decimal } from '@sluice/core'

const PLAIN = /^([+-]?)(\d+)(?:\.(\d+))?$/
const SCIENTIFIC = /^(-?)(\d+)(?:\.(\d+))?[eE]([+-]?\d+)$/

/** Longest exponent a JSON number for a DECIMAL may have (precision is at most 38 digits). */
const MAX_EXPONENT = 400

/** Parses plain decimal text (`-123.450`) at the scale it was written with; null when not plain. */
export function parseDecimalText(text: string): Decimal | null {
  const m = PLAIN.exec(text)
  if (m === null) return null
  const frac = m[3] ?? ''
  const unscaled = BigInt(m[2] + frac)
  return new Decimal(m[1] === '-' ? -unscaled : unscaled, frac.length)
}

/**
 * A number literal (`1.5e-7`, `12`) as plain decimal text; null for exponents too large to matter
 * for a DECIMAL (the value is then out of range anyway).
 */
export function numberLiteralToPlain(literal: string): string | null {
  if (PLAIN.test(literal)) return literal
  const m = SCIENTIFIC.exec(literal)
  if (m === null) return null
  const exponent = Number(m[4])
  if (Math.abs(exponent) > MAX_EXPONENT) return null
  const digits = m[2] + (m[3] ?? '')
  const point = m[2].length + exponent
  let body: string
  if (point <= 0) body = `0.${'0'.repeat(-point)}${digits}`
  else if (point >= digits.length) body = digits + '0'.repeat(point - digits.length)
  else body = `${digits.slice(0, point)}.${digits.slice(point)}`
  return `${m[1]}${body}`
}

/** Decimal text with exactly `scale` fraction digits. */
export function formatDecimal(value: Decimal, scale: number): string {
  if (value.scale === scale) return value.toString()
  const diff = scale - value.scale
  const unscaled = diff > 0 ? value.unscaled * 10n ** BigInt(diff) : value.unscaled / 10n ** BigInt(-diff)
  return new Decimal(unscaled, scale).toString()
}
