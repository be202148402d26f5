// QEMU test: the network poller in the scheduler trace (trace=1) of a guest on two cores.
// SPDX-License-Identifier: BSD-3-Clause

package tests

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net"
	"strconv"
	"strings"
	"testing"

	"gmpos/qemu/runner"
)

// TestGuestNetPollTrace boots the HTTP client (nethttp -mode=client, 4 MiB each way to a server
// in the test) on two cores with the scheduler trace on, and follows the seeds' story in the
// kernel's trace records: a thread parks (Gwaiting), the network poller returns it to the
// scheduler ("pollready", sched's pollOnce), and it runs. At least one thread must have been
// readied by the poller and run afterwards, and the runner's timeline must draw that as a mark
// with an arrow to the run. Readies by the NIC's interrupt ("nicready") are counted and logged:
// whether the interrupt or a poll notices a frame first depends on timing.
//
// When the kernel's ring buffer lost nothing, the trace must also agree with the kernel's
// closing counters (klog=1): one pollready per ready_poll, one nicready per ready_irq.
//
// One boot in every pass of make test (it always asks for two cores); a few seconds of TCG.
func TestGuestNetPollTrace(t *testing.T) {
	skipWithoutPCIDevices(t, opts{})
	requireQEMU(t)
	if native() {
		t.Skip("the trace comes from gmpos's kernel")
	}
	// 4 MiB each way: with 1 MiB a run saw 2–9 poller readies that then ran (arm64, 1 vCPU),
	// and one CI run in many saw none — the poll and the interrupt race for every frame.
	h := newHostServer(4 << 20)
	defer h.srv.Close()
	port := h.srv.Listener.Addr().(*net.TCPAddr).Port
	g := boot(t, pkg("nethttp"), opts{
		args:  []string{"-mode=client", fmt.Sprintf("-url=http://10.0.2.2:%d", port), "-mib=4"},
		kopts: []string{"trace=1", "klog=1"},
		smp:   2,
	})
	if g.code == runner.ExitKernelPanic {
		g.dump(t)
		t.Fatalf("kernel fault (exit %d): %s", g.code, g.why)
	}
	g.wantCode(t, 0)
	wantContains(t, g, "stdout", g.stdout, "client done\n")
	counters := kernelLogLine(g.log, netLogMarker)
	t.Logf("kernel's closing counters: %s", counters)

	// The records, in order: "trace EV CPU G NS".
	type ev struct {
		kind   string
		cpu, g int
	}
	var evs []ev
	counts := map[string]int{}
	for _, r := range g.res.Records {
		if r.Kind != "trace" {
			continue
		}
		f := strings.Fields(r.Text)
		if len(f) != 4 {
			t.Fatalf("bad trace record %q", r.Text)
		}
		cpu, err1 := strconv.Atoi(f[1])
		gid, err2 := strconv.Atoi(f[2])
		if err1 != nil || err2 != nil {
			t.Fatalf("bad trace record %q", r.Text)
		}
		evs = append(evs, ev{f[0], cpu, gid})
		counts[f[0]]++
	}
	if len(evs) == 0 {
		g.dump(t)
		t.Fatal("no trace records: was trace=1 passed to the kernel?")
	}
	t.Logf("%d trace records: %d pollready, %d nicready, %d ready, %d park, %d run",
		len(evs), counts["pollready"], counts["nicready"], counts["ready"], counts["park"], counts["run"])

	// The story, for each thread the poller readied: it was parked before (unless the trace
	// starts after its park: the ring keeps the newest events), no other ready comes between
	// the poll and its next run, and that run comes.
	story := 0
	for i, e := range evs {
		if e.kind != "pollready" {
			continue
		}
		parked := -1 // index of the thread's last park before the poll
		for j := i - 1; j >= 0; j-- {
			if evs[j].g == e.g && (evs[j].kind == "park" || evs[j].kind == "run") {
				if evs[j].kind == "park" {
					parked = j
				}
				break
			}
		}
		ran := false
		for _, n := range evs[i+1:] {
			if n.g != e.g {
				continue
			}
			if n.kind == "ready" || n.kind == "pollready" || n.kind == "nicready" {
				t.Fatalf("thread %d readied again (%s) before it ran after its pollready", e.g, n.kind)
			}
			if n.kind == "run" {
				ran = true
				break
			}
		}
		if ran && parked >= 0 {
			if story == 0 {
				t.Logf("thread %d: parked (record %d), readied by the network poller on core %d (record %d), then ran", e.g, parked, e.cpu, i)
			}
			story++
		}
	}
	if story == 0 {
		t.Fatalf("no thread was parked, readied by the network poller (pollready) and then ran: %d pollready records", counts["pollready"])
	}
	t.Logf("%d threads went parked → pollready → run", story)

	// The trace and the counters tell the same story.
	lost := false
	for _, r := range g.res.Records {
		lost = lost || r.Kind == "trace-lost"
	}
	if lost {
		t.Log("the kernel's trace ring overflowed: not comparing with the counters")
	} else {
		for ev, name := range map[string]string{"pollready": "ready_poll", "nicready": "ready_irq"} {
			want := -1
			for _, kv := range strings.Fields(counters) {
				if v, ok := strings.CutPrefix(kv, name+"="); ok {
					want, _ = strconv.Atoi(v)
				}
			}
			if want < 0 {
				g.dump(t)
				t.Fatalf("no %s in the kernel's closing counters %q (klog=1)", name, counters)
			}
			if counts[ev] != want {
				t.Errorf("%d %s records, but the kernel counted %s=%d", counts[ev], ev, name, want)
			}
		}
	}

	// The timeline draws it: a "readied by the network poller" mark with an arrow to a run.
	var b bytes.Buffer
	st, err := runner.WriteTrace(&b, g.res.Records, "nethttp", "gmp")
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("timeline: %+v", st)
	var f struct {
		TraceEvents []struct {
			Name    string  `json:"name"`
			Cat     string  `json:"cat"`
			BindID  *uint64 `json:"bind_id"`
			FlowIn  bool    `json:"flow_in"`
			FlowOut bool    `json:"flow_out"`
		} `json:"traceEvents"`
	}
	if err := json.Unmarshal(b.Bytes(), &f); err != nil {
		t.Fatal(err)
	}
	from := map[uint64]bool{}
	for _, e := range f.TraceEvents {
		if e.FlowOut && e.BindID != nil && strings.HasSuffix(e.Name, "readied by the network poller") {
			from[*e.BindID] = true
		}
	}
	arrows := 0
	for _, e := range f.TraceEvents {
		if e.FlowIn && e.BindID != nil && from[*e.BindID] && e.Cat == "run" {
			arrows++
		}
	}
	if arrows == 0 {
		t.Fatalf("the timeline has %d network poller marks with an arrow out and none ends on a run", len(from))
	}
	t.Logf("timeline: %d arrows from the network poller to a run", arrows)
}
