// gmpos_info, the kernel's own system call.
// SPDX-License-Identifier: BSD-3-Clause

package kernel

import (
	"sync/atomic"

	"gmpos/kernel/netabi"
	"gmpos/sched"
)

// gmpos_info(req, buf, n) gives guest programs and tests the kernel's own facts — boot
// timestamps, scheduler and per-core statistics, interrupt counts — and, for tests of the kernel's
// failure paths, deliberate kernel faults and the interrupt self-test. Its number, nrGmposInfo, is
// outside Linux's range. Arrays are copied with userArray, whose byte count cannot overflow.
const nrGmposInfo = 0x6d70 // "mp"

// gmpos_info requests.
const (
	infoBootTimes = 1 // buf ← [kernel entry ns, user entry ns] on the CLOCK_MONOTONIC scale
	infoSchedStat = 2 // buf ← scheduler counters (sched.Stat order), n entries
	infoFault     = 3 // deliberately fault in kernel mode: buf selects how (faultKinds)
	infoPolicy    = 4 // buf ← policy name (NUL-terminated), n bytes
	infoCPUs      = 5 // buf ← per-core count of thread dispatches, n entries; returns the core count
	infoIRQTest   = 6 // wait for buf interrupts of the board's test source at n Hz (irq.go)
	infoIRQStats  = 7 // buf ← [test line, rate Hz, last test's ns, count of each line...], n entries
	// netabi.InfoNetStats = 8: buf ← the network counters (net_svc.go), n entries
	infoCPUTime = 9 // buf ← [kernel ns, idle ns] per core, n entries (pairs); returns the core count
	// buf ← how many times each system call 0..n-1 was made so far (ktime.go's counts), n
	// entries; returns how many numbers the kernel counts
	infoSyscalls = 10
	infoTicks    = 11 // buf ← [ticks, idle ticks, timer writes, early timers] of all cores (stats), n entries
)

// The ways infoFault makes the kernel fault (tests of the fault report, tests/kernel_test.go).
const (
	faultRead     = 0 // read an unmapped kernel address: #PF
	faultOverflow = 2 // recurse until the kernel stack's guard page: #DF
	faultInMM     = 3 // fault inside mm with its lock held: the report must not need the lock
	faultInlined  = 4 // fault in an inlined function: symbolizing it would allocate
)

func sysGmposInfo(t *Thread, gp sched.GID, cpu int, req int32, buf, n uintptr) int64 {
	switch req {
	case infoBootTimes:
		if !userArray(buf, 2, 8, true) {
			return -EFAULT
		}
		store64(buf, uint64(bootTimes.kernelEntry))
		store64(buf+8, uint64(bootTimes.userEntry))
		return 0
	case infoSchedStat:
		if !userArray(buf, n, 8, true) {
			return -EFAULT
		}
		for i := uintptr(0); i < n && i < uintptr(sched.NumStats); i++ {
			store64(buf+8*i, S.Total(sched.Stat(i)))
		}
		return 0
	case infoFault:
		deliberateFault(int(buf))
		return 0
	case infoCPUs:
		if !userArray(buf, n, 8, true) {
			return -EFAULT
		}
		for i := uintptr(0); i < n && int(i) < ncpu; i++ {
			store64(buf+8*i, cpus[i].dispatches)
		}
		return int64(ncpu)
	case infoCPUTime:
		if !userArray(buf, n, 8, true) {
			return -EFAULT
		}
		for i := uintptr(0); i+1 < n && int(i/2) < ncpu; i += 2 {
			k, idle := cpuTime(int(i / 2))
			store64(buf+8*i, uint64(k))
			store64(buf+8*i+8, uint64(idle))
		}
		return int64(ncpu)
	case infoSyscalls:
		if !userArray(buf, n, 8, true) {
			return -EFAULT
		}
		for i := uintptr(0); i < n && i < uintptr(ktimeSyscalls); i++ {
			store64(buf+8*i, ktime.count[i])
		}
		return int64(ktimeSyscalls)
	case infoTicks:
		if !userArray(buf, n, 8, true) {
			return -EFAULT
		}
		vals := [4]uint64{atomic.LoadUint64(&stats.ticks), atomic.LoadUint64(&stats.idleTicks), atomic.LoadUint64(&stats.timerArms), atomic.LoadUint64(&stats.earlyTimers)}
		for i := uintptr(0); i < n && i < uintptr(len(vals)); i++ {
			store64(buf+8*i, vals[i])
		}
		return int64(len(vals))
	case infoPolicy:
		name := S.Policy().Name()
		if n == 0 || !userRange(buf, n, true) {
			return -EFAULT
		}
		i := uintptr(0)
		for ; i < n-1 && int(i) < len(name); i++ {
			store8(buf+i, name[i])
		}
		store8(buf+i, 0)
		return int64(i)
	case infoIRQTest:
		if buf > 1<<20 || n > 1<<16 {
			return -EINVAL
		}
		return irqTestStart(t, gp, cpu, int(buf), int(n), 2_000_000_000)
	case netabi.InfoNetStats:
		if !userArray(buf, n, 8, true) {
			return -EFAULT
		}
		for i := uintptr(0); i < n && i < netabi.NumNetStats; i++ {
			store64(buf+8*i, netStat(int(i)))
		}
		return netabi.NumNetStats
	case infoIRQStats:
		if !userArray(buf, n, 8, true) {
			return -EFAULT
		}
		vals := [3]uint64{uint64(int64(irqTest.line)), uint64(irqTest.rate), uint64(irqTest.elapsed)}
		for i := uintptr(0); i < n; i++ {
			v := uint64(0)
			switch {
			case i < 3:
				v = vals[i]
			case int(i-3) < len(irqTable):
				v = irqTable[i-3].count
			}
			store64(buf+8*i, v)
		}
		return int64(len(irqTable))
	}
	return -EINVAL
}
