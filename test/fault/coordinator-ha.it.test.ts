import { coordinatorHaSuite } from './coordinator-ha-scenarios.js'

/** Coordinator takeover with the metadata in in-process dynalite; test/fidelity runs it on moto too. */
coordinatorHaSuite()
