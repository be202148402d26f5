package simulator

import (
	"slices"
	"strconv"
)

// Metrics of one (workload, policy) run.
//
// Everything here is computed by the simulator from what it observed; the
// two counters that only the policy can see (steals and GRQ takes) come from
// the policy's own statistics through the adapter.

// Result is one table row.
type Result struct {
	Workload string
	Policy   string
	Cores    int
	Seed     uint64

	// Makespan is the virtual time at which the last G exited. If the run
	// hit its time limit first, Makespan is the limit and Finished is false.
	Makespan Time
	Finished bool

	// Busy is, per core, the virtual time spent running Gs.
	Busy []Time

	// Waits holds one sample per dispatch: how long the G sat runnable
	// (on some run queue, in runnext, or in the poller's ready set) before
	// a core started running it.
	Waits []Time

	Dispatches  int // runs started
	CtxSwitches int // dispatches of a different G than the core ran last
	Preemptions int // runs ended because the tick said the slice was used
	// WakePreemptions: of those, the ones a woken G in runnext asked for (gmp's wake-up
	// preemption, before the slice ended)
	WakePreemptions int
	Steals          int // Gs moved from another P's queue (policy's count)
	GRQTakes        int // Gs taken from the global run queue (policy's count)

	// Jain is Jain's fairness index over the Gs: x_i = run_i/(run_i+wait_i),
	// the share of the time G i wanted a CPU that it actually got. 1 means
	// every G got the same share; 1/n means one G got everything.
	Jain float64

	Gs     int // Gs created, including the initial ones
	Events int // simulation events handled (a cost measure for the engine)

	// GStats is the per-G detail, in creation order (uid 1, 2, ...).
	GStats []GStat
}

// Utilisation returns core c's busy fraction of the makespan.
func (r *Result) Utilisation(c int) float64 {
	if r.Makespan <= 0 {
		return 0
	}
	return float64(r.Busy[c]) / float64(r.Makespan)
}

// WaitPercentile returns the p-th percentile (0..100) of the run-queue
// waits, by the nearest-rank method. It returns 0 with no samples.
func (r *Result) WaitPercentile(p float64) Time {
	return percentile(r.Waits, p)
}

func percentile(xs []Time, p float64) Time {
	if len(xs) == 0 {
		return 0
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	// Nearest rank: the smallest value with at least p% of samples <= it.
	rank := int(p/100*float64(len(s)) + 0.999999999)
	if rank < 1 {
		rank = 1
	}
	if rank > len(s) {
		rank = len(s)
	}
	return s[rank-1]
}

// jain computes Jain's fairness index (Σx)²/(n·Σx²). Empty or all-zero
// input counts as perfectly fair.
func jain(xs []float64) float64 {
	var sum, sq float64
	for _, x := range xs {
		sum += x
		sq += x * x
	}
	if len(xs) == 0 || sq == 0 {
		return 1
	}
	return sum * sum / (float64(len(xs)) * sq)
}

// FormatDuration prints a virtual duration with a unit chosen for
// readability; the output depends only on d, so tables are reproducible.
func FormatDuration(d Time) string {
	switch {
	case d < Microsecond:
		return strconv.FormatInt(d, 10) + "ns"
	case d < Millisecond:
		return fixed(d, Microsecond) + "µs"
	case d < Second:
		return fixed(d, Millisecond) + "ms"
	default:
		return fixed(d, Second) + "s"
	}
}

// fixed prints d/unit with two decimals using integer arithmetic only.
func fixed(d, unit Time) string {
	hundredths := (d*100 + unit/2) / unit
	frac := hundredths % 100
	s := strconv.FormatInt(hundredths/100, 10) + "."
	if frac < 10 {
		s += "0"
	}
	return s + strconv.FormatInt(frac, 10)
}
