// Command sim runs the gmpos scheduler policies on simulated workloads and
// prints one table row per (workload, policy): makespan, per-core
// utilisation, run-queue wait percentiles, context switches, steals, GRQ
// takes, preemptions and Jain fairness.
//
// Usage:
//
//	go run ./sched/sim [-cores 4] [-seed 1] [-workload all|NAME] [-policy all|NAME] [-trace FILE]
//
// The simulation is deterministic: the same flags print the same bytes and
// write the same trace. -trace writes a Chrome/Perfetto trace-event JSON
// file with one process per run and one track per core; open it in
// https://ui.perfetto.dev. The model and its limits are described in the
// package documentation of gmpos/sched/simulator.
//
// Flags:
//
//	-cores N      simulated cores, one P each (default 4)
//	-seed S       random seed (default 1)
//	-workload W   spawn-storm, fork-join, mixed-io, hog-latency, ping-pong or all (default)
//	-policy P     gmp, global, local, fair or all (default)
//	-trace FILE   write the timeline of every run as trace-event JSON
//	-detail       also print per-G-role statistics for each run
//	-slice D      time slice (default 10ms); -tick D timer period (1ms);
//	-wake D       IPI-to-Schedule latency (5µs); -switch D switch cost (1µs)
//	-wakegrain D  gmp's wake-up preemption: a woken G preempts one that has run D
//	              (default 1ms; 0: never, as in the Go runtime)
//	-list         list workloads and policies
//
// Exit status: 0 on success, 1 if a run or the trace failed, 2 for bad flags.
package main
