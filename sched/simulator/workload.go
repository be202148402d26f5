package simulator

import (
	"fmt"
	"math/rand/v2"
	"strings"
)

// Workloads: what the simulated Gs do.
//
// A G's behaviour is a Script: a function from its step number to the next
// operation. The engine calls it once per step, so a script is a tiny
// state machine driven by the step counter (and the run's seeded RNG for
// random durations). Only OpCompute consumes CPU; every other op happens
// instantly at the end of the preceding burst, on the core that ran it.

// OpKind is what a G does next.
type OpKind uint8

const (
	OpCompute OpKind = iota // compute for D ns of CPU (may span preemptions)
	OpSpawn                 // create Child; it is readied on the spawner's P (runnext)
	OpSignal                // V on semaphore Sem: ready one waiter or bank a signal
	OpWait                  // P on semaphore Sem: consume a banked signal or park
	OpSleep                 // park; a timer on this core readies the G after D ns
	OpNet                   // park on the network; its packet arrives after D ns and the poller readies it
	OpGosched               // runtime.Gosched: back to the global run queue
	OpGoYield               // goyield: back to the tail of this P's local run queue
	OpExit                  // the G is done
)

var opNames = [...]string{"compute", "spawn", "signal", "wait", "sleep", "net", "gosched", "goyield", "exit"}

func (k OpKind) String() string { return opNames[k] }

// Op is one step of a script.
type Op struct {
	Kind  OpKind
	D     Time   // OpCompute, OpSleep, OpNet
	Sem   int    // OpSignal, OpWait: index into the run's semaphores
	Child *GSpec // OpSpawn
}

// Script returns the op for the G's step-th step (0, 1, 2, ...).
type Script func(step int, r *rand.Rand) Op

// GSpec describes a G to create.
type GSpec struct {
	Label  string // role shown in traces and per-label statistics
	Script Script
}

// Start places an initial G: it becomes runnable at time 0 on core Core's P.
type Start struct {
	Core int
	G    GSpec
}

// Workload builds the initial Gs of a run.
type Workload struct {
	Name  string
	Doc   string
	Setup func(cores int, r *rand.Rand) []Start // initial Gs
}

// Compute, Spawn, ... build ops; they keep scripts readable.
func Compute(d Time) Op                      { return Op{Kind: OpCompute, D: d} }
func Spawn(g *GSpec) Op                      { return Op{Kind: OpSpawn, Child: g} }
func Signal(sem int) Op                      { return Op{Kind: OpSignal, Sem: sem} }
func Wait(sem int) Op                        { return Op{Kind: OpWait, Sem: sem} }
func Sleep(d Time) Op                        { return Op{Kind: OpSleep, D: d} }
func Net(d Time) Op                          { return Op{Kind: OpNet, D: d} }
func Gosched() Op                            { return Op{Kind: OpGosched} }
func GoYield() Op                            { return Op{Kind: OpGoYield} }
func Exit() Op                               { return Op{Kind: OpExit} }
func uniform(r *rand.Rand, lo, hi Time) Time { return lo + r.Int64N(hi-lo+1) }

// Workloads is the registry, in table order.
var Workloads = []Workload{
	SpawnStorm(1000),
	ForkJoin(8, 64),
	MixedIO(32, 40),
	HogLatency(8, 20),
	PingPong(2000),
}

// LookupWorkloads resolves a -workload flag: a name or "all".
func LookupWorkloads(name string) ([]Workload, error) {
	if name == "all" {
		return Workloads, nil
	}
	var names []string
	for _, w := range Workloads {
		if w.Name == name {
			return []Workload{w}, nil
		}
		names = append(names, w.Name)
	}
	return nil, fmt.Errorf("unknown workload %q (have: all, %s)", name, strings.Join(names, ", "))
}

// SpawnStorm: one G on P0 spawns n children back to back (2 µs of work
// per spawn) and exits; each child computes 0.5–1.5 ms. All the work is
// born on one P, so the row shows how a policy spreads it: with stealing
// every core gets busy, without it the other cores idle.
func SpawnStorm(n int) Workload {
	child := &GSpec{Label: "child", Script: func(step int, r *rand.Rand) Op {
		if step == 0 {
			return Compute(uniform(r, 500*Microsecond, 1500*Microsecond))
		}
		return Exit()
	}}
	return Workload{
		Name: "spawn-storm",
		Doc:  fmt.Sprintf("one G on P0 spawns %d children of 0.5-1.5ms each", n),
		Setup: func(cores int, r *rand.Rand) []Start {
			return []Start{{Core: 0, G: GSpec{Label: "spawner", Script: func(step int, r *rand.Rand) Op {
				switch {
				case step >= 2*n:
					return Exit()
				case step%2 == 0:
					return Compute(2 * Microsecond)
				default:
					return Spawn(child)
				}
			}}}}
		},
	}
}

// ForkJoin: a root G runs rounds of "spawn width workers, wait for all".
// Workers compute 0.1–2 ms, so each round ends on its slowest worker:
// imbalance shows up directly in the makespan.
func ForkJoin(rounds, width int) Workload {
	const join = 0
	worker := &GSpec{Label: "worker", Script: func(step int, r *rand.Rand) Op {
		switch step {
		case 0:
			return Compute(uniform(r, 100*Microsecond, 2*Millisecond))
		case 1:
			return Signal(join)
		}
		return Exit()
	}}
	// One round: width spawns, then width waits, then 50 µs of serial work.
	per := 2*width + 1
	return Workload{
		Name: "fork-join",
		Doc:  fmt.Sprintf("%d rounds of spawning %d workers (0.1-2ms) and joining them", rounds, width),
		Setup: func(cores int, r *rand.Rand) []Start {
			return []Start{{Core: 0, G: GSpec{Label: "root", Script: func(step int, r *rand.Rand) Op {
				if step >= rounds*per {
					return Exit()
				}
				switch i := step % per; {
				case i < width:
					return Spawn(worker)
				case i < 2*width:
					return Wait(join)
				default:
					return Compute(50 * Microsecond)
				}
			}}}}
		},
	}
}

// MixedIO: n Gs spread over the cores alternate a CPU burst (exponential,
// mean 200 µs) with a network wait (exponential, mean 1 ms) loops times.
// Parked Gs come back only through the poller, so this row exercises the
// non-blocking poll in findRunnable and the blocking poll of idle cores.
func MixedIO(n, loops int) Workload {
	return Workload{
		Name: "mixed-io",
		Doc:  fmt.Sprintf("%d Gs x %d rounds of CPU burst (mean 200us) then network wait (mean 1ms)", n, loops),
		Setup: func(cores int, r *rand.Rand) []Start {
			var s []Start
			for i := 0; i < n; i++ {
				s = append(s, Start{Core: i % cores, G: GSpec{Label: "io", Script: func(step int, r *rand.Rand) Op {
					switch {
					case step >= 2*loops:
						return Exit()
					case step%2 == 0:
						return Compute(expo(r, 200*Microsecond))
					default:
						return Net(expo(r, Millisecond))
					}
				}}})
			}
			return s
		},
	}
}

// HogLatency: one CPU hog per core (150 ms of pure computation each) and
// n latency-sensitive Gs that sleep 2–5 ms and then need 50 µs of CPU,
// loops times. Every wake-up finds all cores busy with a hog, so the
// latency Gs' run-queue waits measure how fast the policy preempts.
func HogLatency(n, loops int) Workload {
	return Workload{
		Name: "hog-latency",
		Doc:  fmt.Sprintf("one 150ms hog per core + %d Gs x %d rounds of sleep 2-5ms, run 50us", n, loops),
		Setup: func(cores int, r *rand.Rand) []Start {
			var s []Start
			for c := 0; c < cores; c++ {
				s = append(s, Start{Core: c, G: GSpec{Label: "hog", Script: func(step int, r *rand.Rand) Op {
					if step == 0 {
						return Compute(150 * Millisecond)
					}
					return Exit()
				}}})
			}
			for i := 0; i < n; i++ {
				s = append(s, Start{Core: i % cores, G: GSpec{Label: "latency", Script: func(step int, r *rand.Rand) Op {
					switch {
					case step >= 2*loops:
						return Exit()
					case step%2 == 0:
						return Sleep(uniform(r, 2*Millisecond, 5*Millisecond))
					default:
						return Compute(50 * Microsecond)
					}
				}}})
			}
			return s
		},
	}
}

// PingPong: one producer/consumer pair per core, each doing rounds
// hand-offs of 20 µs work through two semaphores. Each wake-up lands in the
// waker's runnext, so a pair tends to stay on one P and share its slice.
func PingPong(rounds int) Workload {
	return Workload{
		Name: "ping-pong",
		Doc:  fmt.Sprintf("one producer/consumer pair per core, %d hand-offs of 20us each", rounds),
		Setup: func(cores int, r *rand.Rand) []Start {
			var s []Start
			for c := 0; c < cores; c++ {
				ping, pong := 2*c, 2*c+1
				s = append(s,
					Start{Core: c, G: GSpec{Label: "producer", Script: PingPongScript(ping, pong, rounds, true)}},
					Start{Core: c, G: GSpec{Label: "consumer", Script: PingPongScript(ping, pong, rounds, false)}})
			}
			return s
		},
	}
}

// PingPongScript is one side of a ping-pong pair: the producer runs then
// signals ping and waits for pong; the consumer waits for ping, runs and
// signals pong.
func PingPongScript(ping, pong, rounds int, producer bool) Script {
	return func(step int, r *rand.Rand) Op {
		if step >= 3*rounds {
			return Exit()
		}
		i := step % 3
		if producer {
			return [3]Op{Compute(20 * Microsecond), Signal(ping), Wait(pong)}[i]
		}
		return [3]Op{Wait(ping), Compute(20 * Microsecond), Signal(pong)}[i]
	}
}

// expo draws an exponential duration with the given mean, at least 1 µs.
func expo(r *rand.Rand, mean Time) Time {
	d := Time(r.ExpFloat64() * float64(mean))
	if d < Microsecond {
		d = Microsecond
	}
	return d
}
