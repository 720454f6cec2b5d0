import { pkFailoverSuite } from './pk-failover-scenarios.js'

/** PK leader failover with the metadata in in-process dynalite; test/fidelity runs it on moto too. */
pkFailoverSuite()
