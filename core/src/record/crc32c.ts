import { crc32cJs } from '../native/crc32c-js.js'
import { optionalModule } from '../native/optional-module.js'

const native = optionalModule<{ crc32c(bytes: Uint8Array, initial?: number): number }>('@node-rs/crc32')

/**
 * CRC-32C (Castagnoli), the checksum of Fluss record batches. Returns the unsigned 32-bit value.
 * `initial` continues a running checksum over several pieces. Native (SIMD) where installed,
 * portable JavaScript otherwise (bundled Lambda functions).
 */
export const crc32c: (bytes: Uint8Array, initial?: number) => number = native
  ? (bytes, initial = 0) => native.crc32c(bytes, initial) >>> 0
  : crc32cJs
