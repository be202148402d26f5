package simulator

import (
	"fmt"
	"testing"
)

// BenchmarkSimulate measures the engine: every built-in workload under gmp
// on 4 cores per iteration. It prints BENCH lines with the host time per
// simulated event and how many virtual seconds one host second simulates.
// Run: go test -run '^$' -bench Simulate ./sched/simulator
func BenchmarkSimulate(b *testing.B) {
	var events int
	var virtual Time
	for b.Loop() {
		for _, w := range Workloads {
			r, err := Run(Config{Cores: 4, Seed: 1, Workload: w, Policy: "gmp"})
			if err != nil {
				b.Fatal(err)
			}
			events += r.Events
			virtual += r.Makespan
		}
	}
	host := float64(b.Elapsed().Nanoseconds())
	b.ReportMetric(host/float64(events), "ns/event")
	fmt.Printf("BENCH simulator.event %.1f ns/event\n", host/float64(events))
	fmt.Printf("BENCH simulator.speedup %.1f virtual-s/host-s\n", float64(virtual)/host)
}
