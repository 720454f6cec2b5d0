import { afterAll, describe } from 'vitest'
import { coordinatorHaSuite } from '../fault/coordinator-ha-scenarios.js'
import { pkFailoverSuite } from '../fault/pk-failover-scenarios.js'
import { replicationFailoverSuite } from '../fault/replication-scenarios.js'
import type { SuiteVariant } from '../fault/suite-variant.js'
import { uniqueName } from '../harness/index.js'
import { startMotoOrSkip } from './moto-server.js'

/**
 * The failover scenarios of test/fault (kill -9 and SIGSTOP of tablet servers, a zombie leader,
 * coordinator takeover, a primary-key leader killed during upserts) with the cluster's metadata in moto's DynamoDB instead of dynalite: leases,
 * ISR changes and fencing then rest on moto's conditional writes. Blobs stay in local files.
 */
const started = await startMotoOrSkip('failover with metadata on moto_server')
const moto = 'moto' in started ? started.moto : undefined

/** Each suite gets its own metadata table, so one cluster's leases never meet the other's. */
function onMoto(): SuiteVariant {
  return {
    title: 'with metadata on moto_server',
    cluster: () => {
      if (moto === undefined) throw new Error('moto_server is not running')
      return { metastore: { endpoint: moto.endpoint, tableName: uniqueName('sluice-failover') } }
    },
  }
}

describe.skipIf(moto === undefined)(
  `failover on moto_server${'skipReason' in started ? ` (skipped: ${started.skipReason})` : ''}`,
  () => {
    afterAll(async () => {
      await moto?.stop()
    })
    replicationFailoverSuite(onMoto())
    coordinatorHaSuite(onMoto())
    pkFailoverSuite(onMoto())
  },
)
