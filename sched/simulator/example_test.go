package simulator_test

import (
	"fmt"
	"math/rand/v2"
	"os"

	"gmpos/sched/simulator"
)

// A custom workload (the one in the package documentation) run under two
// policies, printed as a table. No Output comment: the figures belong to
// the policies, which change; TestDeterminism pins reproducibility.
func ExampleRun() {
	w := simulator.Workload{Name: "blinker", Setup: func(cores int, r *rand.Rand) []simulator.Start {
		return []simulator.Start{{Core: 0, G: simulator.GSpec{Label: "blink", Script: func(step int, r *rand.Rand) simulator.Op {
			switch {
			case step >= 20:
				return simulator.Exit()
			case step%2 == 0:
				return simulator.Compute(simulator.Millisecond)
			}
			return simulator.Sleep(4 * simulator.Millisecond)
		}}}}
	}}
	var rows []simulator.Result
	for _, p := range []string{"gmp", "local"} {
		res, err := simulator.Run(simulator.Config{Cores: 2, Seed: 1, Workload: w, Policy: p})
		if err != nil {
			fmt.Println(err)
			return
		}
		rows = append(rows, res)
	}
	simulator.WriteTable(os.Stdout, rows)
}
