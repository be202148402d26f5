package simulator

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"
)

// Table printing. One row per (workload, policy) run; the column set is the
// one issue #3 asks for. Only integer and fixed-precision formatting is used
// so the bytes depend on the results alone (the determinism test compares
// them).

// WriteTable prints results as an aligned text table.
func WriteTable(w io.Writer, results []Result) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "workload\tpolicy\tmakespan\tutil% per core\tp50 wait\tp99 wait\tctx sw\tsteals\tGRQ takes\tpreempt\tJain\t")
	for i := range results {
		r := &results[i]
		makespan := FormatDuration(r.Makespan)
		if !r.Finished {
			makespan = ">" + makespan // hit the time limit
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%d\t%d\t%d\t%d\t%s\t\n",
			r.Workload, r.Policy, makespan, utilString(r),
			FormatDuration(r.WaitPercentile(50)), FormatDuration(r.WaitPercentile(99)),
			r.CtxSwitches, r.Steals, r.GRQTakes, r.Preemptions,
			strconv.FormatFloat(r.Jain, 'f', 3, 64))
	}
	return tw.Flush()
}

// utilString lists per-core utilisation as whole percents, "98/97/99/96".
// Beyond maxListedCores cores the list would swamp the table, so it prints
// "min-max avg N" instead.
func utilString(r *Result) string {
	pct := func(c int) int { return int(r.Utilisation(c)*100 + 0.5) }
	if len(r.Busy) > maxListedCores {
		lo, hi, sum := 100, 0, 0
		for c := range r.Busy {
			p := pct(c)
			lo, hi, sum = min(lo, p), max(hi, p), sum+p
		}
		return strconv.Itoa(lo) + "-" + strconv.Itoa(hi) + " avg " + strconv.Itoa((sum+len(r.Busy)/2)/len(r.Busy))
	}
	parts := make([]string, len(r.Busy))
	for c := range r.Busy {
		parts[c] = strconv.Itoa(pct(c))
	}
	return strings.Join(parts, "/")
}

const maxListedCores = 8

// WriteDetail prints, per run, one line per G role (label): how many Gs,
// dispatches, mean and worst run-queue wait per dispatch, and the mean
// share x = run/(run+wait) that the Jain index is computed from. It shows
// who paid for a policy's choices (e.g. latency Gs behind hogs).
func WriteDetail(w io.Writer, results []Result) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "workload\tpolicy\trole\tGs\truns\tCPU\tmean wait\tmax wait\tmean share\t")
	for i := range results {
		r := &results[i]
		type agg struct {
			gs, runs        int
			run, wait, maxW Time
			share           float64
		}
		var order []string
		by := map[string]*agg{}
		for _, st := range r.GStats {
			a := by[st.Label]
			if a == nil {
				a = &agg{}
				by[st.Label] = a
				order = append(order, st.Label)
			}
			a.gs++
			a.runs += st.Runs
			a.run += st.Run
			a.wait += st.Wait
			a.maxW = max(a.maxW, st.MaxWait)
			if st.Run+st.Wait > 0 {
				a.share += float64(st.Run) / float64(st.Run+st.Wait)
			}
		}
		for _, l := range order {
			a := by[l]
			mean := Time(0)
			if a.runs > 0 {
				mean = a.wait / Time(a.runs)
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%d\t%s\t%s\t%s\t%s\t\n", r.Workload, r.Policy, l, a.gs, a.runs,
				FormatDuration(a.run), FormatDuration(mean), FormatDuration(a.maxW),
				strconv.FormatFloat(a.share/float64(a.gs), 'f', 3, 64))
		}
	}
	return tw.Flush()
}
