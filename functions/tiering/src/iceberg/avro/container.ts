// Avro object container files (exact longs) live with the SDK's lake reader; the writer shares them.
export {
  type AvroFile,
  type AvroSchema,
  type AvroWriteOptions,
  avroType,
  readAvroFile,
  writeAvroFile,
} from '@sluice/client/union/iceberg'
