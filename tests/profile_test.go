// QEMU test: Go's CPU profiler, and the timers and CPU-time clocks behind it.
// SPDX-License-Identifier: BSD-3-Clause

package tests

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/google/pprof/profile"

	"gmpos/qemu/runner"
)

// TestGuestProfile runs testdata/profile, on one core and on two: runtime/pprof must record about
// 100 samples per CPU second with the hot function on top — which needs the per-thread
// CLOCK_THREAD_CPUTIME_ID timers the runtime creates with SIGEV_THREAD_ID, delivering SIGPROF
// with SI_TIMER (the runtime ignores the process-wide ITIMER_PROF's SI_KERNEL signals on a thread
// that has its own timer) — and setitimer/getitimer, POSIX timers on the monotonic and CPU clocks
// and the CPU-time clocks must behave as on Linux. The guest checks itself; the profile it prints
// is decoded here and its top shown with -v.
//
// On two cores the sample rate is reported, not checked: see noisyCPUTime in the program.
func TestGuestProfile(t *testing.T) {
	for _, smp := range []int{1, 2} {
		t.Run(strconv.Itoa(smp), func(t *testing.T) {
			o := opts{smp: smp}
			if smp > 1 && !native() {
				o.args = []string{"noisy"}
			}
			g := boot(t, pkg("profile"), o)
			g.wantCode(t, 0)
			checks := 0
			for _, l := range strings.Split(strings.TrimSpace(g.stdout), "\n") {
				switch {
				case strings.HasPrefix(l, "check "):
					checks++
					if !strings.HasSuffix(l, ": true") {
						t.Errorf("failed: %s", strings.TrimPrefix(l, "check "))
					}
				case strings.HasPrefix(l, "info "):
					t.Log(l)
				case strings.HasPrefix(l, "profile "):
					logProfile(t, strings.TrimPrefix(l, "profile "))
				default:
					t.Errorf("unexpected line %q", l)
				}
			}
			want := 42 // 41 with noisy: the sample rate is not checked
			if len(o.args) > 0 {
				want = 41
			}
			if checks != want {
				t.Errorf("%d checks ran, want %d", checks, want)
			}
			if t.Failed() {
				g.dump(t)
			}
		})
	}
}

// logProfile decodes the guest's CPU profile and logs its top functions by flat samples.
func logProfile(t *testing.T, b64 string) {
	t.Helper()
	raw, err := base64.StdEncoding.DecodeString(b64)
	if err != nil {
		t.Errorf("profile: %v", err)
		return
	}
	p, err := profile.Parse(bytes.NewReader(raw))
	if err != nil {
		t.Errorf("profile: %v", err)
		return
	}
	flat := map[string]int64{}
	var total int64
	for _, s := range p.Sample {
		total += s.Value[0]
		if len(s.Location) > 0 && len(s.Location[0].Line) > 0 {
			flat[s.Location[0].Line[0].Function.Name] += s.Value[0]
		}
	}
	var names []string
	for n := range flat {
		names = append(names, n)
	}
	sort.Slice(names, func(i, j int) bool { return flat[names[i]] > flat[names[j]] })
	var b strings.Builder
	fmt.Fprintf(&b, "profile: %d samples, period %d ns, %d bytes; top leaf functions:", total, p.Period, len(raw))
	for i, n := range names {
		if i == 5 {
			break
		}
		fmt.Fprintf(&b, "\n  %5d %s", flat[n], n)
	}
	t.Log(b.String())
}

// TestGuestMachineProfile runs testdata/spin with -profile: the whole-machine profile must parse
// as pprof, have the busy loop (main.spin) as the program's top function by flat samples, with
// at least a quarter of the program's samples, and show kernel work ("[kernel] write") above the
// program frames that asked for it, and idle time.
//
// Profiling must not change what it measures: the traps the kernel handles without the big
// kernel lock (the timer interrupts that take the program's samples among them) stay without it
// while the profiler runs, and a BKL wait names the work that waited ("[kernel] bkl-wait" over
// "[kernel] madvise").
func TestGuestMachineProfile(t *testing.T) {
	if native() {
		t.Skip("a whole-machine profile is the guest's")
	}
	path := filepath.Join(t.TempDir(), "spin.pb.gz")
	g := boot(t, pkg("spin"), opts{profile: path, kopts: []string{"klog=1"}})
	g.wantCode(t, 0)
	if g.res.ProfileErr != nil {
		t.Fatalf("profile: %v", g.res.ProfileErr)
	}
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	p, err := profile.Parse(bytes.NewReader(raw))
	if err != nil {
		t.Fatalf("the profile does not parse: %v", err)
	}
	flat := map[string]int64{}
	var total int64
	kernelOverProgram, idle := false, false
	for _, s := range p.Sample {
		total += s.Value[0]
		leaf := s.Location[0].Line[0].Function.Name
		flat[leaf] += s.Value[0]
		if leaf == "[kernel] bkl-wait" && (len(s.Location) < 2 || !strings.HasPrefix(s.Location[1].Line[0].Function.Name, "[kernel] ")) {
			t.Errorf("a BKL wait without the work that waited: %v", s.Location[1:])
		}
		switch {
		case strings.HasPrefix(leaf, "[kernel] write") && len(s.Location) > 1 && s.Location[1].Mapping != nil:
			kernelOverProgram = true
		case leaf == "[idle]":
			idle = true
		}
	}
	// The program's top function: on one core it tops the whole profile; on more, idle cores and
	// the BKL's contention may outweigh it.
	top, most := "", int64(0)
	for f, n := range flat {
		if n > most && !strings.HasPrefix(f, "[") {
			top, most = f, n
		}
	}
	t.Logf("%d samples (%+v); top program function %s with %d", total, g.res.Profile, top, most)
	// A quarter, not half: with more vCPUs than host cores (4 on 2 under TCG) the spinning vCPU
	// loses its host core often, and the writer's runtime and system-call code take a larger
	// share (measured on arm64 GICv3, 4 vCPUs: main.spin 77 of 169, still the top).
	if top != "main.spin" || most < int64(g.res.Profile.User)/4 {
		t.Errorf("the program's top function is %s with %d of %d program samples, want main.spin with a quarter or more", top, most, g.res.Profile.User)
	}
	if total < 100 {
		t.Errorf("%d samples for a second of work at %d Hz", total, runner.ProfileHz)
	}
	// A second of spinning is Hz samples of main.spin; a quarter allows for a vCPU that loses its
	// host core (samples skipped, not owed). Timer interrupts left without their sample give far
	// fewer (23 when timerUnlocked did not sample).
	if flat["main.spin"] < int64(runner.ProfileHz)/4 {
		t.Errorf("main.spin has %d samples for a second of spinning at %d Hz", flat["main.spin"], runner.ProfileHz)
	}
	if !kernelOverProgram {
		t.Error("no [kernel] write sample above the program's frames")
	}
	if !idle {
		t.Error("no idle sample")
	}
	// The timer interrupts of the running program, and the sleeps' wake-ups, without the BKL.
	if n := klogCounter(t, g.log, "unlocked-timer"); n == 0 {
		t.Error("no timer interrupt without the BKL while profiling: the profiler serialised the kernel")
	}
	if n := klogCounter(t, g.log, "unlocked-sleep") + klogCounter(t, g.log, "unlocked-timed-futex"); n == 0 {
		t.Error("no sleep without the BKL while profiling")
	}
}
