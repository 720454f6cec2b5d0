/**
 * Byte-level helpers of the JSON body reader (body-rows.ts): scans of UTF-8 bytes that are run
 * over whole request bodies, so they avoid per-byte work where they can.
 */

/** Index of the first `byte` at or after `from`; the buffer's length when there is none. */
export function nextIndex(buf: Buffer, byte: number, from: number): number {
  const at = buf.indexOf(byte, from)
  return at < 0 ? buf.length : at
}

const LOW = 0x20202020 | 0
const HIGH = 0x80808080 | 0

/**
 * Whether bytes [start, end) hold a control character (a byte below 0x20), four bytes at a time:
 * a 32-bit word has a byte below 0x20 exactly when `(x - 0x20202020) & ~x & 0x80808080` is not
 * zero (a byte of 0x80 or more never counts: `~x` clears its top bit).
 */
export function hasControl(buf: Uint8Array, start: number, end: number): boolean {
  let i = start
  const head = Math.min(end, start + ((4 - ((buf.byteOffset + start) & 3)) & 3))
  for (; i < head; i++) if (buf[i] < 32) return true
  const words = (end - i) >>> 2
  if (words > 0) {
    const w32 = new Int32Array(buf.buffer, buf.byteOffset + i, words)
    let w = 0
    for (; w + 4 <= words; w += 4) {
      const a = w32[w]
      const b = w32[w + 1]
      const c = w32[w + 2]
      const d = w32[w + 3]
      const low =
        (((a - LOW) | 0) & ~a) | (((b - LOW) | 0) & ~b) | (((c - LOW) | 0) & ~c) | (((d - LOW) | 0) & ~d)
      if ((low & HIGH) !== 0) return true
    }
    for (; w < words; w++) if ((((w32[w] - LOW) | 0) & ~w32[w] & HIGH) !== 0) return true
    i += words * 4
  }
  for (; i < end; i++) if (buf[i] < 32) return true
  return false
}

/** Index after the ASCII digits starting at `at`; -1 when there are none. */
export function digitsEnd(buf: Uint8Array, at: number): number {
  let i = at
  while (buf[i] >= 48 && buf[i] <= 57) i++
  return i === at ? -1 : i
}

/** Index of the first JSON whitespace byte (space, tab, line feed, carriage return) at or after `at` that is not one. */
export function skipWhitespace(buf: Uint8Array, at: number): number {
  let i = at
  let c = buf[i]
  while (c === 32 || c === 10 || c === 13 || c === 9) c = buf[++i]
  return i
}
