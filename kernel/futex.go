// Futexes: the Go runtime's sleep and wake-up between threads.
// SPDX-License-Identifier: BSD-3-Clause

package kernel

import (
	"sync/atomic"

	"gmpos/kernel/mm"
	"gmpos/sched"
)

// Futex operations (include/uapi/linux/futex.h). The Go runtime uses FUTEX_WAIT and FUTEX_WAKE
// with FUTEX_PRIVATE_FLAG (docs/runtime-contract.md §3.5); the bitset variants, REQUEUE,
// CMP_REQUEUE and WAKE_OP are the rest of the classic interface that glibc-era programs use.
const (
	futexWait          = 0
	futexWake          = 1
	futexRequeue       = 3
	futexCmpRequeue    = 4
	futexWakeOp        = 5
	futexWaitBitset    = 9
	futexWakeBitset    = 10
	futexPrivate       = 128
	futexClockRealtime = 256
	futexCmdMask       = ^(futexPrivate | futexClockRealtime)

	futexBitsetMatchAny = 0xffffffff
)

// futexQ is the queue of the waits that begin without the BKL: every thread blocked in
// FUTEX_WAIT, and every one sleeping in nanosleep or clock_nanosleep (waitSleep), whichever path
// put it there (futex_unlocked.go, sleep_unlocked.go, or the calls under the BKL). Linux hashes
// futexes into buckets, each with its own lock (kernel/futex/core.c futex_hash), and keeps its
// sleepers in per-CPU timer queues (hrtimer bases); one list and one lock serve here until its
// contention counter (klog's futex-contended) says otherwise: with two or four cores and the
// BKL around most of the kernel, it has been a small fraction of the BKL's.
//
// The lock makes FUTEX_WAIT's compare-and-block atomic with respect to every FUTEX_WAKE,
// with or without the BKL: the waiter reads the word and queues itself under it, and a waker
// that changed the word before taking it finds the waiter queued. It also orders a sleep's
// timeout (expireQueue, with or without the BKL) against a signal's EINTR (interruptWait).
//
// next is the list's earliest deadline, stored under the lock whenever a timed wait joins or
// leaves the list: the way out of every kernel entry arms the core's timer for it (timer.go),
// and reads it without the lock.
var futexQ = struct {
	lock spinLock
	list waitList     // protected by lock
	next atomic.Int64 // list.earliest() (0: none); stored under lock, read without it
}{lock: spinLock{rank: rankFutex, name: "futexQ"}}

// sysFutex implements wait/wake on an aligned 4-byte word (kernel/futex/syscalls.c, waitwake.c,
// requeue.c), checking arguments in Linux's order. A waiter is identified by the word's address
// and its address space (sameSpace), so private and shared futexes are the same thing. The
// Go runtime's calls, private FUTEX_WAIT (with or without a timeout) and FUTEX_WAKE, usually
// never get here: futexUnlocked handles them without the BKL. BKL held.
func sysFutex(t *Thread, gp sched.GID, cpu int, addr uintptr, op int32, val uint32, timeout uintptr, addr2 uintptr, val3 uint32) int64 {
	cmd := op & futexCmdMask
	var deadline int64
	if timeout != 0 && (cmd == futexWait || cmd == futexWaitBitset) {
		ns, err := readTimespec(timeout)
		if err != 0 {
			return err
		}
		if cmd == futexWait {
			deadline = nanotime() + ns // relative
		} else { // absolute, on the chosen clock
			clk := int32(clockMonotonic)
			if op&futexClockRealtime != 0 {
				clk = clockRealtime
			}
			now, _ := clockNow(clk)
			deadline = nanotime() + (ns - now)
		}
	}
	if op&futexClockRealtime != 0 && cmd != futexWaitBitset {
		return -ENOSYS // do_futex: CLOCK_REALTIME only for FUTEX_WAIT_BITSET
	}
	switch cmd {
	case futexWait, futexWaitBitset:
		bitset := uint32(futexBitsetMatchAny)
		if cmd == futexWaitBitset {
			bitset = val3
		}
		if bitset == 0 {
			return -EINVAL
		}
		if e := futexKey(addr); e != 0 {
			return e
		}
		// Faults the page in; the BKL keeps it mapped (an madvise without it may drop the page,
		// which the load below then faults in again: mm_unlocked.go kernelUserFault).
		if !userRange(addr, 4, false) {
			return -EFAULT
		}
		expired := false
		if timeout != 0 {
			expired = deadline <= nanotime()
			deadline = withSlack(deadline) // futex_setup_timer: the hrtimer's range is the slack
		}
		futexQ.lock.lock(cpu)
		r := futexWaitLocked(t, gp, cpu, addr, load32(addr), val, bitset, deadline, expired)
		futexQ.lock.unlock(cpu)
		return r
	case futexWake, futexWakeBitset:
		bitset := uint32(futexBitsetMatchAny)
		if cmd == futexWakeBitset {
			bitset = val3
		}
		if bitset == 0 {
			return -EINVAL
		}
		if e := futexKey(addr); e != 0 {
			return e
		}
		if op&futexPrivate == 0 && !userRange(addr, 4, false) {
			return -EFAULT // a shared futex's key is its page: it must be mapped (get_user_pages)
		}
		futexQ.lock.lock(cpu)
		n := futexWakeN(addr, int32(val), bitset, procs[t.proc].space, cpu)
		futexQ.lock.unlock(cpu)
		return int64(n)
	case futexRequeue, futexCmpRequeue:
		// val: how many to wake; the timeout slot carries val2, how many to requeue.
		nwake, nrequeue := int32(val), int32(uint32(timeout))
		if nwake < 0 || nrequeue < 0 {
			return -EINVAL
		}
		if e := futexKey(addr); e != 0 {
			return e
		}
		if e := futexKey(addr2); e != 0 {
			return e
		}
		if cmd == futexCmpRequeue && !userRange(addr, 4, false) {
			return -EFAULT
		}
		futexQ.lock.lock(cpu)
		r := futexRequeueLocked(addr, addr2, cmd == futexCmpRequeue, val3, nwake, nrequeue, procs[t.proc].space, cpu)
		futexQ.lock.unlock(cpu)
		return r
	case futexWakeOp:
		return futexWakeOpCall(addr, addr2, int32(val), int32(uint32(timeout)), val3, procs[t.proc].space, cpu)
	}
	return -ENOSYS
}

// futexWaitLocked is FUTEX_WAIT's compare-and-block, the word read as cur: EAGAIN if it no
// longer holds val, ETIMEDOUT if the timeout had expired before the call (the word's check
// comes first, as in Linux), else t waits on addr for the bitset's wake-ups until deadline (0:
// none). futexQ's lock held, from before the read.
func futexWaitLocked(t *Thread, gp sched.GID, cpu int, addr uintptr, cur, val, bitset uint32, deadline int64, expired bool) int64 {
	if cur != val {
		return -EAGAIN
	}
	if expired {
		return -ETIMEDOUT
	}
	t.waitObj = addr
	t.waitArg = uint64(bitset)
	block(t, gp, cpu, waitFutex, deadline)
	atomic.AddUint64(&stats.futexWaits, 1)
	return 0
}

// futexRequeueLocked is FUTEX_REQUEUE and FUTEX_CMP_REQUEUE (with cmp, which first checks that
// the word at addr holds val3) once the arguments are checked: wake up to nwake waiters on addr,
// move up to nrequeue of the rest to addr2. futexQ's lock held.
func futexRequeueLocked(addr, addr2 uintptr, cmp bool, val3 uint32, nwake, nrequeue int32, space uint8, cpu int) int64 {
	if cmp && load32(addr) != val3 {
		return -EAGAIN
	}
	woken := 0
	if nwake > 0 { // futex_requeue wakes "++task_count <= nr_wake": none for 0
		woken = futexWakeN(addr, nwake, futexBitsetMatchAny, space, cpu)
	}
	moved := int32(0)
	for i := 0; i < futexQ.list.n && moved < nrequeue; i++ {
		w := &threads[futexQ.list.g[i]]
		if w.wait == waitFutex && w.waitObj == addr && sameSpace(w, space) { // not a sleeper
			w.waitObj = addr2
			moved++
		}
	}
	return int64(woken + int(moved))
}

// sameSpace reports whether waiter t is in address space space, the caller's: a futex is an
// address in one (Linux's private key: mm and address, get_futex_key). Two children have their
// images at the same addresses (proc.go); a vfork child shares its parent's.
func sameSpace(t *Thread, space uint8) bool { return procs[t.proc].space == space }

// futexKey checks a futex address as Linux's get_futex_key does before it touches the word:
// EINVAL if misaligned, EFAULT if it is not a user address at all (access_ok). An unmapped user
// address is fine for a wake-up, which never reads the word.
func futexKey(addr uintptr) int64 {
	if addr&3 != 0 {
		return -EINVAL
	}
	if addr >= mm.UserEnd {
		return -EFAULT
	}
	return 0
}

// futexWakeN wakes threads of address space space waiting on addr whose bitset intersects
// bitset: n of them, but at least one (futex_wake counts after waking: "if (++ret >= nr_wake)
// break"). Sleepers share the list; only futex waits match. futexQ's lock held.
func futexWakeN(addr uintptr, n int32, bitset uint32, space uint8, cpu int) int {
	woken := 0
	for i := 0; i < futexQ.list.n; {
		gp := futexQ.list.g[i]
		t := &threads[gp]
		if t.wait == waitFutex && t.waitObj == addr && sameSpace(t, space) && uint32(t.waitArg)&bitset != 0 {
			wakeThread(gp, 0, cpu) // swaps the last waiter into slot i
			woken++
			if int32(woken) >= n {
				break
			}
			continue
		}
		i++
	}
	return woken
}

// futexWakeOpCall is FUTEX_WAKE_OP: atomically apply an operation to the word at addr2, wake up
// to n waiters on addr, and, if the word's old value passes a comparison, up to n2 waiters on
// addr2 (kernel/futex/waitwake.c futex_wake_op, futex_atomic_op_inuser). encoded packs
// op:4 cmp:4 oparg:12 cmparg:12 (FUTEX_OP in futex.h); with FUTEX_OP_OPARG_SHIFT (op bit 3) the
// operand is 1<<oparg.
func futexWakeOpCall(addr, addr2 uintptr, n, n2 int32, encoded uint32, space uint8, cpu int) int64 {
	op, cmp := encoded>>28&7, encoded>>24&15
	oparg, cmparg := int32(encoded<<8)>>20, int32(encoded<<20)>>20
	if encoded>>28&8 != 0 {
		oparg = 1 << uint(oparg&31) // Linux warns about an operand outside 0..31 and masks it
	}
	if e := futexKey(addr); e != 0 {
		return e
	}
	if e := futexKey(addr2); e != 0 {
		return e
	}
	if op > 4 {
		return -ENOSYS
	}
	if !userRange(addr2, 4, true) {
		return -EFAULT
	}
	futexQ.lock.lock(cpu)
	r := futexWakeOpLocked(addr, addr2, n, n2, op, cmp, oparg, cmparg, space, cpu)
	futexQ.lock.unlock(cpu)
	return r
}

// futexWakeOpLocked is FUTEX_WAKE_OP once the arguments are checked. futexQ's lock held.
func futexWakeOpLocked(addr, addr2 uintptr, n, n2 int32, op, cmp uint32, oparg, cmparg int32, space uint8, cpu int) int64 {
	old := int32(load32(addr2))
	nv := [...]int32{oparg, old + oparg, old | oparg, old &^ oparg, old ^ oparg}[op] // SET ADD OR ANDN XOR
	store32(addr2, uint32(nv))
	var pass bool
	switch cmp {
	case 0:
		pass = old == cmparg
	case 1:
		pass = old != cmparg
	case 2:
		pass = old < cmparg
	case 3:
		pass = old <= cmparg
	case 4:
		pass = old > cmparg
	case 5:
		pass = old >= cmparg
	default:
		return -ENOSYS // after the operation, as in Linux
	}
	woken := futexWakeN(addr, n, futexBitsetMatchAny, space, cpu)
	if pass {
		woken += futexWakeN(addr2, n2, futexBitsetMatchAny, space, cpu)
	}
	return int64(woken)
}
