/**
 * Unscaled decimal values of precision > 18 travel as big-endian two's-complement bytes of minimal
 * length, the same bytes as Java's `BigInteger.toByteArray()` (zero is one 0x00 byte).
 */

/** Minimal big-endian two's-complement bytes of `value`. */
export function unscaledToBytes(value: bigint): Uint8Array {
  const little: number[] = []
  let v = value
  for (;;) {
    const byte = Number(v & 0xffn)
    little.push(byte)
    v >>= 8n
    const signBitSet = (byte & 0x80) !== 0
    if ((v === 0n && !signBitSet) || (v === -1n && signBitSet)) break
  }
  const out = new Uint8Array(little.length)
  for (let i = 0; i < little.length; i++) out[i] = little[little.length - 1 - i]
  return out
}

/** Reads big-endian two's-complement bytes `bytes[start, end)` (non-empty) as a bigint. */
export function bytesToUnscaled(bytes: Uint8Array, start: number, end: number): bigint {
  let v = 0n
  let i = start
  // 6 bytes at a time keeps the intermediate numbers exact
  for (; i + 6 <= end; i += 6) {
    const chunk =
      bytes[i] * 0x100_0000_0000 +
      bytes[i + 1] * 0x1_0000_0000 +
      ((bytes[i + 2] << 24) >>> 0) +
      (bytes[i + 3] << 16) +
      (bytes[i + 4] << 8) +
      bytes[i + 5]
    v = (v << 48n) | BigInt(chunk)
  }
  for (; i < end; i++) v = (v << 8n) | BigInt(bytes[i])
  return (bytes[start] & 0x80) !== 0 ? v - (1n << BigInt((end - start) * 8)) : v
}
