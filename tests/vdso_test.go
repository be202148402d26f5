// QEMU tests of the vDSO: the clocks a program reads without system calls.
// SPDX-License-Identifier: BSD-3-Clause

package tests

import (
	"regexp"
	"strconv"
	"testing"
)

var extraCalls = regexp.MustCompile(`clock_gettime system calls beyond the program's own \d+: (-?\d+)\n`)
var clockReads = regexp.MustCompile(`runtime clock reads: (\d+)\n`)

// TestGuestVDSO boots testdata/vdso on 2 cores, which checks the vDSO from inside: its symbols
// and versions, its read-only pages, that nanotime and time.Now agree with the clock_gettime
// system call and never go back across threads and cores, the fallbacks to the kernel — and
// that the runtime's clock reads made no clock_gettime system call at all. With -kopt vdso=0
// there is no vDSO, the same reads agree, and every one is a system call again.
func TestGuestVDSO(t *testing.T) {
	if native() {
		t.Skip("asks gmpos's kernel for its system-call counts")
	}
	agree := []string{
		"agree with the system call: monotonic true realtime true\n",
		"monotonic across threads: true\n",
	}
	// What each architecture's vDSO exports (Linux's vdso.lds.S): arm64 has no time function,
	// and its signal trampoline instead.
	symbols, direct := "symbols: __vdso_clock_getres@LINUX_2.6 __vdso_clock_gettime@LINUX_2.6 __vdso_gettimeofday@LINUX_2.6 __vdso_time@LINUX_2.6\n",
		"gettimeofday and time agree with time.Now: true\n"
	if testArch() == "arm64" {
		symbols, direct = "symbols: __kernel_clock_getres@LINUX_2.6.39 __kernel_clock_gettime@LINUX_2.6.39 __kernel_gettimeofday@LINUX_2.6.39 __kernel_rt_sigreturn@LINUX_2.6.39\n",
			"gettimeofday agrees with time.Now: true\n"
	}
	t.Run("on", func(t *testing.T) {
		g := boot(t, pkg("vdso"), opts{smp: 2})
		g.wantCode(t, 0)
		wantContains(t, g, "stdout", g.stdout, append(agree,
			"vdso: present\n",
			symbols,
			"read-only: image true vvar true\n",
			"fallback: process-cputime 0 bad-id -22\n",
			"clock_getres(REALTIME_COARSE) = the system call's: true\n",
			direct)...)
		if extra := count(t, g, extraCalls); extra != 0 {
			g.dump(t)
			t.Fatalf("%d clock_gettime system calls from the runtime's clock reads; want none with a vDSO", extra)
		}
	})
	t.Run("off", func(t *testing.T) {
		g := boot(t, pkg("vdso"), opts{smp: 2, kopts: []string{"vdso=0"}})
		g.wantCode(t, 0)
		wantContains(t, g, "stdout", g.stdout, append(agree, "vdso: absent\n")...)
		if extra, reads := count(t, g, extraCalls), count(t, g, clockReads); extra < reads {
			g.dump(t)
			t.Fatalf("%d clock_gettime system calls for %d clock reads: with vdso=0 each read is one", extra, reads)
		}
	})
}

// count is the number re matches in the guest's output.
func count(t *testing.T, g guest, re *regexp.Regexp) int64 {
	t.Helper()
	m := re.FindStringSubmatch(g.stdout)
	if m == nil {
		g.dump(t)
		t.Fatalf("no line matching %q", re)
	}
	n, _ := strconv.ParseInt(m[1], 10, 64)
	return n
}
