// QEMU tests: guest programs under testdata/ and what they must print.
// SPDX-License-Identifier: BSD-3-Clause

package tests

import (
	"bufio"
	"regexp"
	"strings"
	"testing"
	"time"

	"gmpos/qemu/runner"
)

func TestGuestGoroutines(t *testing.T) {
	g := boot(t, pkg("goroutines"), opts{})
	g.wantCode(t, 0)
	g.wantStdout(t, "alive>=10000: true\nsum=49995000 want=49995000\n")
}

func TestGuestChanSelect(t *testing.T) {
	g := boot(t, pkg("chanselect"), opts{})
	g.wantCode(t, 0)
	g.wantStdout(t, "pingpong 1000 closed true\nfifo true\ndefault taken\n"+
		"timeout fired, at least 20ms: true\nfan-in 1000\nticker 3 ticks\n")
}

func TestGuestMutex(t *testing.T) {
	g := boot(t, pkg("mutex"), opts{})
	g.wantCode(t, 0)
	g.wantStdout(t, "counter=320000 atomic=320000 rwwrites=3200 want=320000,3200\n")
}

// TestGuestSleep asserts Go's guarantee (a sleep never returns early) and
// reports the oversleep; accuracy is a figure, not an assertion.
func TestGuestSleep(t *testing.T) {
	g := boot(t, pkg("sleep"), opts{})
	g.wantCode(t, 0)
	if strings.Contains(g.stdout, "EARLY") {
		g.dump(t)
		t.Fatal("a sleep returned before its duration")
	}
	re := regexp.MustCompile(`^sleep (\S+) mean (\S+) worst (\S+)$`)
	n := 0
	sc := bufio.NewScanner(strings.NewReader(g.stdout))
	for sc.Scan() {
		m := re.FindStringSubmatch(sc.Text())
		if m == nil {
			g.dump(t)
			t.Fatalf("unexpected line %q", sc.Text())
		}
		req, _ := time.ParseDuration(m[1])
		mean, _ := time.ParseDuration(m[2])
		worst, _ := time.ParseDuration(m[3])
		t.Logf("sleep %-6v mean %-12v (error %+v, %.1f%%), worst %v", req, mean, mean-req, 100*float64(mean-req)/float64(req), worst)
		n++
	}
	if n != 4 {
		g.dump(t)
		t.Fatalf("%d result lines, want 4", n)
	}
}

func TestGuestGCChurn(t *testing.T) {
	g := boot(t, pkg("gcchurn"), opts{})
	g.wantCode(t, 0)
	wantContains(t, g, "stdout", g.stdout, "allocated>=256MiB: true\n", "gc cycles>0: true\n", "live checksum 49995000 want 49995000\n")
	t.Log(strings.TrimSpace(g.stdout[strings.LastIndex(g.stdout, "stats:"):]))
}

func TestGuestRecursion(t *testing.T) {
	g := boot(t, pkg("recursion"), opts{})
	g.wantCode(t, 0)
	g.wantStdout(t, "main depth 1000000\ngoroutine depth 500000\n")
}

func TestGuestMaps(t *testing.T) {
	g := boot(t, pkg("maps"), opts{})
	g.wantCode(t, 0)
	g.wantStdout(t, "len 50000 sum 2500000000\nstruct keys 70 00 96\ncleared 0\n")
}

func TestGuestDeferPanic(t *testing.T) {
	g := boot(t, pkg("deferpanic"), opts{})
	g.wantCode(t, 0)
	g.wantStdout(t, "defers:210\nrecovered: boom\nrecovered: re-panic of first\n"+
		"recovered: runtime error: index out of range [5] with length 3\n"+
		"recovered: interface conversion: interface {} is string, not int\nerrors.Is: true\n")
}

// TestGuestNilPanic needs the kernel to turn #PF and #DE into SIGSEGV and
// SIGFPE signal frames exactly as Linux does.
func TestGuestNilPanic(t *testing.T) {
	g := boot(t, pkg("nilpanic"), opts{})
	g.wantCode(t, 0)
	g.wantStdout(t, "recovered: runtime error: invalid memory address or nil pointer dereference\n"+
		"recovered: runtime error: integer divide by zero\n"+
		"recovered again: runtime error: invalid memory address or nil pointer dereference\n"+
		"still running\n")
}

func TestGuestUnrecoveredPanic(t *testing.T) {
	g := boot(t, pkg("unrecovered"), opts{})
	g.wantCode(t, 2)
	g.wantStdout(t, "before panic\n")
	wantContains(t, g, "stderr", g.stderr, "panic: boom 42\n", "goroutine 1 [running]:\n",
		"main.explode(", "unrecovered/main.go:10", "main.main()")
	if strings.Contains(g.stdout+g.stderr, "not reached") {
		t.Fatal("execution continued after the panic")
	}
}

// TestGuestExitCodes also checks that arguments with spaces and '%'
// survive the kernel command line.
func TestGuestExitCodes(t *testing.T) {
	for _, code := range []string{"0", "3", "255"} {
		t.Run(code, func(t *testing.T) {
			g := boot(t, pkg("exitcode"), opts{args: []string{code, "two words", "100%"}})
			want := map[string]int{"0": 0, "3": 3, "255": 255}[code]
			g.wantCode(t, want)
			g.wantStdout(t, `args ["`+code+`" "two words" "100%"]`+"\n")
		})
	}
}

func TestGuestHeapGrowth(t *testing.T) {
	g := boot(t, pkg("heapgrowth"), opts{})
	g.wantCode(t, 0)
	g.wantStdout(t, "heap alloc>=160MiB: true\ncorrupt pages: 0\n")
}

// TestGuestTimeout: a guest that never exits is killed at -timeout with a
// clear message and code 124, after having really run.
func TestGuestTimeout(t *testing.T) {
	g := boot(t, pkg("hang"), opts{timeout: 10 * time.Second})
	g.wantCode(t, runner.ExitTimeout)
	g.wantStdout(t, "sleeping forever\n")
	wantContains(t, g, "reason", g.why, "timeout")
}

// TestGuestFaultDisassembly: the kernel option fault=boot makes the kernel
// read an unmapped address before the program starts; the runner must
// disassemble and symbolize the faulting instruction from the "panic"
// record (the kernel's report itself is checked in kernel_test.go).
func TestGuestFaultDisassembly(t *testing.T) {
	if native() {
		t.Skip("a kernel fault has no native equivalent")
	}
	g := boot(t, pkg("exitcode"), opts{kopts: []string{"fault=boot"}, args: []string{"0"}, timeout: time.Minute})
	g.wantCode(t, runner.ExitKernelPanic)
	wantContains(t, g, "runner's explanation", g.why, "kernel panic", "faulting instruction at", "(gmpos/kernel.deliberateFault+")
	if strings.Contains(g.stdout, "args") {
		t.Fatal("the program ran after a kernel fault")
	}
	t.Log(g.res.Fault)
}
