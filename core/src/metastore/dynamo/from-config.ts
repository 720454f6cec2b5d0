import {
  type Configuration,
  SLUICE_AWS_REGION,
  SLUICE_METASTORE_ENDPOINT,
  SLUICE_METASTORE_REGION,
  SLUICE_METASTORE_TABLE,
} from '../../config/index.js'
import type { MetaStore } from '../metastore.js'
import { DynamoMetaStore } from './dynamo-metastore.js'

/** The metadata store a process's `sluice.metastore.*` options name (region falls back to `sluice.aws.region`). */
export function metaStoreFromConfig(config: Configuration): MetaStore {
  const region = config.getOptional(SLUICE_METASTORE_REGION) ?? config.getOptional(SLUICE_AWS_REGION)
  const endpoint = config.getOptional(SLUICE_METASTORE_ENDPOINT)
  return new DynamoMetaStore({
    tableName: config.get(SLUICE_METASTORE_TABLE),
    ...(region === undefined ? {} : { region }),
    ...(endpoint === undefined ? {} : { endpoint }),
  })
}
