import { metaStoreContract } from '@sluice/core/metastore/contract'
import { onEveryDynamo } from './dynamo-emulators.js'

/** The MetaStore contract against every DynamoDB we can run here: dynalite and moto. */
await onEveryDynamo('sluice-fidelity', (emulator, open) =>
  metaStoreContract(`DynamoMetaStore on ${emulator}`, open),
)
