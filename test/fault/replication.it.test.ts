import { replicationFailoverSuite } from './replication-scenarios.js'

/** Replication faults with the metadata in in-process dynalite; test/fidelity runs them on moto too. */
replicationFailoverSuite()
