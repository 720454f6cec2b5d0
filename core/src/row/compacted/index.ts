export {
  CompactedRowDecoder,
  CompactedRowEncoder,
  decodeCompactedRow,
  encodeCompactedRow,
} from './compacted-row.js'
export { CompactedRowReader } from './compacted-row-reader.js'
export { CompactedRowWriter, nullBitSetBytes, varIntSize } from './compacted-row-writer.js'
export { bytesToUnscaled, unscaledToBytes } from './decimal-bytes.js'
