// Field-id based Avro access lives with the SDK's lake reader; the writer shares it.
export {
  byId,
  type FieldIndex,
  type FieldRef,
  fieldIndex,
  recordFields,
  requiredById,
  toBigInt,
  toBuffer,
  toBytes,
  toSafeNumber,
  unwrapOptional,
} from '@sluice/client/union/iceberg'
