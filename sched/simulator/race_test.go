//go:build race

package simulator

// raceEnabled: the race detector makes every atomic load in
// Sched.CheckInvariants' walk of the G table ~100x dearer (a few random
// workloads took a minute), so under -race the tests skip the per-event
// invariant check and run fewer random workloads. The engine is single
// threaded; -race here guards the test helpers and the Sched's atomics,
// and the invariants are checked by the ordinary go test run.
const raceEnabled = true
