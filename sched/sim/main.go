// The sim command: flag parsing, the run loop and output.

package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"time"

	"gmpos/sched/simulator"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// run is main without os.Exit, returning the exit status: 0 ok, 1 a run or
// the trace failed, 2 bad flags.
func run(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("sim", flag.ContinueOnError)
	fs.SetOutput(stderr)
	cores := fs.Int("cores", 4, "simulated cores (Ms, one P each), 1..64")
	seed := fs.Uint64("seed", 1, "random seed (workload durations and steal order)")
	workload := fs.String("workload", "all", "workload name or all; -list shows them")
	policy := fs.String("policy", "all", "policy name or all")
	trace := fs.String("trace", "", "write a Chrome/Perfetto trace-event JSON timeline to this file")
	list := fs.Bool("list", false, "list workloads and policies, then exit")
	detail := fs.Bool("detail", false, "also print per-role statistics (mean/max wait, CPU share) for each run")
	slice := fs.Duration("slice", 10*time.Millisecond, "time slice before preemption (the Sched's Config.Slice)")
	tick := fs.Duration("tick", time.Millisecond, "timer interrupt period of a busy core")
	wake := fs.Duration("wake", 5*time.Microsecond, "latency from IPI or interrupt to a halted core running Schedule")
	switchCost := fs.Duration("switch", time.Microsecond, "time from a G leaving a core to the next Schedule (0 allowed)")
	wakeGrain := fs.Duration("wakegrain", time.Millisecond, "gmp: a woken G preempts a G that has run this long (0: never, the runtime's rule)")
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "usage: sim [flags]\n\nSimulate the gmpos scheduler policies on workloads in virtual time.\n\n")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0 // -h asked for the usage, which is not an error
		}
		return 2
	}
	if fs.NArg() != 0 {
		fmt.Fprintf(stderr, "sim: unexpected argument %q\n", fs.Arg(0))
		return 2
	}
	if *list {
		for _, w := range simulator.Workloads {
			fmt.Fprintf(stdout, "workload %-12s %s\n", w.Name, w.Doc)
		}
		for _, p := range simulator.PolicyNames() {
			fmt.Fprintf(stdout, "policy   %s\n", p)
		}
		return 0
	}
	if *cores < 1 || *cores > simulator.MaxCores {
		fmt.Fprintf(stderr, "sim: -cores %d out of range 1..%d\n", *cores, simulator.MaxCores)
		return 2
	}
	for _, d := range []struct {
		name string
		v    time.Duration
		zero bool
	}{{"slice", *slice, false}, {"tick", *tick, false}, {"wake", *wake, false}, {"switch", *switchCost, true}, {"wakegrain", *wakeGrain, true}} {
		if d.v < 0 || (d.v == 0 && !d.zero) {
			fmt.Fprintf(stderr, "sim: -%s %v: want a positive duration\n", d.name, d.v)
			return 2
		}
	}
	sw := simulator.Time(*switchCost)
	if sw == 0 {
		sw = -1 // Config: <0 means a free switch, 0 means the default
	}
	wg := simulator.Time(*wakeGrain)
	if wg == 0 {
		wg = -1 // Config: <0 means no wake-up preemption, 0 means the default
	}
	ws, err := simulator.LookupWorkloads(*workload)
	if err != nil {
		fmt.Fprintf(stderr, "sim: -workload: %v\n", err)
		return 2
	}
	ps, err := simulator.LookupPolicies(*policy)
	if err != nil {
		fmt.Fprintf(stderr, "sim: -policy: %v\n", err)
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
				Slice: simulator.Time(*slice), TickPeriod: simulator.Time(*tick),
				WakeLatency: simulator.Time(*wake), SwitchCost: sw, WakeGrain: wg,
			})
			if err != nil {
				fmt.Fprintf(stderr, "sim: %s/%s: %v\n", w.Name, p, err)
				return 1
			}
			results = append(results, r)
		}
	}
	fmt.Fprintf(stdout, "cores=%d seed=%d (virtual time; util%% = busy/makespan per core)\n", *cores, *seed)
	if err := simulator.WriteTable(stdout, results); err != nil {
		fmt.Fprintf(stderr, "sim: %v\n", err)
		return 1
	}
	if *detail {
		fmt.Fprintln(stdout)
		if err := simulator.WriteDetail(stdout, results); err != nil {
			fmt.Fprintf(stderr, "sim: %v\n", err)
			return 1
		}
	}
	if tr != nil {
		if err := writeTrace(*trace, tr); err != nil {
			fmt.Fprintf(stderr, "sim: -trace: %v\n", err)
			return 1
		}
		fmt.Fprintf(stdout, "trace written to %s (open in https://ui.perfetto.dev)\n", *trace)
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
