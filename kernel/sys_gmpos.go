package kernel

import (
	"gmpos/kernel/mm"
	"gmpos/sched"
)

// gmpos_info, the kernel's own system call: boot times, scheduler and per-core statistics, and
// deliberate kernel faults for testing the fault report.

// gmpos_info requests.
const (
	infoBootTimes = 1 // buf ← [kernel entry ns, user entry ns] on the CLOCK_MONOTONIC scale
	infoSchedStat = 2 // buf ← scheduler counters (sched.Stat order), n entries
	infoFault     = 3 // deliberately fault in kernel mode (tests of the fault report)
	infoPolicy    = 4 // buf ← policy name (NUL-terminated), n bytes
	infoCPUs      = 5 // buf ← per-core count of thread dispatches, n entries; returns the core count
)

func sysGmposInfoCall(req int, buf, n uintptr) int64 {
	switch req {
	case infoBootTimes:
		if !mm.Space.UserRange(buf, 16, true) {
			return -EFAULT
		}
		store64(buf, uint64(bootTimes.kernelEntry))
		store64(buf+8, uint64(bootTimes.userEntry))
		return 0
	case infoSchedStat:
		if !mm.Space.UserRange(buf, n*8, true) {
			return -EFAULT
		}
		for i := uintptr(0); i < n && i < uintptr(sched.NumStats); i++ {
			store64(buf+8*i, S.Total(sched.Stat(i)))
		}
		return 0
	case infoFault:
		if buf == 2 {
			kernelRecurse(0)
		}
		deliberateFault()
		return 0
	case infoCPUs:
		if !mm.Space.UserRange(buf, n*8, true) {
			return -EFAULT
		}
		for i := uintptr(0); i < n && int(i) < ncpu; i++ {
			store64(buf+8*i, cpuDispatches[i])
		}
		return int64(ncpu)
	case infoPolicy:
		name := S.Policy().Name()
		if n == 0 || !mm.Space.UserRange(buf, n, true) {
			return -EFAULT
		}
		i := uintptr(0)
		for ; i < n-1 && int(i) < len(name); i++ {
			*(*byte)(ptr(buf + i)) = name[i]
		}
		*(*byte)(ptr(buf + i)) = 0
		return int64(i)
	}
	return -EINVAL
}
