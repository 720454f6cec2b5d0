export {
  checkValue,
  createValueChecker,
  invalidValue,
  unscaledForColumn,
  type ValueChecker,
} from './check-value.js'
export * from './compacted/index.js'
export * from './iceberg-key-decoder.js'
export * from './iceberg-key-encoder.js'
export * from './key-encoder.js'
export * from './key-encoding.js'
export * from './value.js'
export * from './value-codec.js'
export * from './value-widening.js'
