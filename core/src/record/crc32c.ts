import { crc32c as nativeCrc32c } from '@node-rs/crc32'

/**
 * CRC-32C (Castagnoli), the checksum of Fluss record batches. Returns the unsigned 32-bit value.
 * `initial` continues a running checksum over several pieces.
 */
export function crc32c(bytes: Uint8Array, initial = 0): number {
  return nativeCrc32c(bytes, initial) >>> 0
}
