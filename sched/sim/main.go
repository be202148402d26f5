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
package main

import (
	"flag"
	"fmt"
	"os"

	"gmpos/sched/simulator"
)

func main() {
	os.Exit(run(os.Args[1:]))
}

// run is main without os.Exit, returning the exit status: 0 ok, 1 a run or
// the trace failed, 2 bad flags.
func run(args []string) int {
	fs := flag.NewFlagSet("sim", flag.ContinueOnError)
	cores := fs.Int("cores", 4, "simulated cores (Ms, one P each), 1..64")
	seed := fs.Uint64("seed", 1, "random seed (workload durations and steal order)")
	workload := fs.String("workload", "all", "workload name or all; -list shows them")
	policy := fs.String("policy", "all", "policy name or all")
	trace := fs.String("trace", "", "write a Chrome/Perfetto trace-event JSON timeline to this file")
	list := fs.Bool("list", false, "list workloads and policies, then exit")
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "usage: sim [flags]\n\nSimulate the gmpos scheduler policies on workloads in virtual time.\n\n")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if fs.NArg() != 0 {
		fmt.Fprintf(os.Stderr, "sim: unexpected argument %q\n", fs.Arg(0))
		return 2
	}
	if *list {
		for _, w := range simulator.Workloads {
			fmt.Printf("workload %-12s %s\n", w.Name, w.Doc)
		}
		for _, p := range simulator.PolicyNames() {
			fmt.Printf("policy   %s\n", p)
		}
		return 0
	}
	if *cores < 1 || *cores > simulator.MaxCores {
		fmt.Fprintf(os.Stderr, "sim: -cores %d out of range 1..%d\n", *cores, simulator.MaxCores)
		return 2
	}
	ws, err := simulator.LookupWorkloads(*workload)
	if err != nil {
		fmt.Fprintf(os.Stderr, "sim: -workload: %v\n", err)
		return 2
	}
	ps, err := simulator.LookupPolicies(*policy)
	if err != nil {
		fmt.Fprintf(os.Stderr, "sim: -policy: %v\n", err)
		return 2
	}

	var tr *simulator.Trace
	if *trace != "" {
		tr = new(simulator.Trace)
	}
	var results []simulator.Result
	for _, w := range ws {
		for _, p := range ps {
			r, err := simulator.Run(simulator.Config{
				Cores: *cores, Seed: *seed, Workload: w, Policy: p, Trace: tr,
			})
			if err != nil {
				fmt.Fprintf(os.Stderr, "sim: %s/%s: %v\n", w.Name, p, err)
				return 1
			}
			results = append(results, r)
		}
	}
	fmt.Printf("cores=%d seed=%d (virtual time; util%% = busy/makespan per core)\n", *cores, *seed)
	if err := simulator.WriteTable(os.Stdout, results); err != nil {
		fmt.Fprintf(os.Stderr, "sim: %v\n", err)
		return 1
	}
	if tr != nil {
		if err := writeTrace(*trace, tr); err != nil {
			fmt.Fprintf(os.Stderr, "sim: -trace: %v\n", err)
			return 1
		}
		fmt.Printf("trace written to %s (open in https://ui.perfetto.dev)\n", *trace)
	}
	return 0
}

func writeTrace(path string, tr *simulator.Trace) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if _, err := tr.WriteTo(f); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
