package kernel

import (
	"gmpos/kernel/arch/amd64"
	"gmpos/sched"
)

// A Thread is what Linux calls a task and the Go runtime an M: a kernel-schedulable context. The
// kernel's scheduler (package sched) sees it as a G, identified by the same small integer: thread i
// is sched GID i. All threads share the one address space (CLONE_VM is the only mode).
type Thread struct {
	frame amd64.Frame // user registers while not running on a core
	fp    [512 + 16]byte
	tid   int32
	state threadState

	fsbase uintptr

	// Waiting (state == threadBlocked).
	wait     waitKind
	waitAddr uintptr // futex word, or epoll fd
	waitArg  uint64  // futex bitset / epoll event buffer
	waitArg2 uint64  // epoll maxevents
	deadline int64   // monotonic ns, 0 = none

	// Signals (signal.go).
	sigmask    uint64
	sigpending uint64
	faultCode  int32   // si_code of the pending synchronous fault signal
	faultAddr  uintptr // si_addr of the pending synchronous fault signal
	altSP      uintptr
	altSize    uintptr
	altFlags   int32
}

type threadState uint8

const (
	threadFree threadState = iota
	threadRunnable
	threadRunning
	threadBlocked
	threadDead
)

type waitKind uint8

const (
	waitNone waitKind = iota
	waitFutex
	waitSleep
	waitEpoll
)

// MaxThreads is the size of the thread table: one slot per scheduler G.
const MaxThreads = sched.MaxG

var threads [MaxThreads]Thread

// S is the kernel's scheduler: one P per core (M), the policy chosen by sched=NAME.
var S sched.Sched

// curThread[cpu] is the thread running on that core (0: idle).
var curThread [amd64.MaxCPU]sched.GID

// fpArea returns the 16-byte-aligned FXSAVE area of t.
//
//go:nosplit
func (t *Thread) fpArea() uintptr {
	return (uintptr(ptrOf(&t.fp[0])) + 15) &^ 15
}

// initFP gives t the FPU state a new Linux process starts with: x87 control word 0x37f (all
// exceptions masked, 64-bit precision) and MXCSR 0x1f80 (SDM Vol. 1 §10.5.1, Table 10-2).
func (t *Thread) initFP() {
	a := t.fpArea()
	for i := uintptr(0); i < 512; i++ {
		*(*byte)(ptr(a + i)) = 0
	}
	*(*uint16)(ptr(a)) = 0x37f
	*(*uint32)(ptr(a + 24)) = 0x1f80
	*(*uint32)(ptr(a + 28)) = 0xffff // MXCSR_MASK as FXSAVE reports it
}

// copyFP copies the FP state of src into t (clone inherits it, as on Linux).
func (t *Thread) copyFP(src *Thread) {
	d, s := t.fpArea(), src.fpArea()
	for i := uintptr(0); i < 512; i += 8 {
		*(*uint64)(ptr(d + i)) = *(*uint64)(ptr(s + i))
	}
}

// newThread takes a G from the scheduler and clears the matching thread. The G is not runnable
// yet (sched.NewG): the caller fills in the thread, then calls startThread — with several cores,
// another core could otherwise pick the G up before its registers exist.
func newThread(cpu int) (*Thread, sched.GID) {
	gp := S.NewG(cpu, sched.DefaultWeight)
	if gp == 0 {
		return nil, 0
	}
	t := &threads[gp]
	*t = Thread{}
	tidGen[gp]++
	t.tid = tidFor(gp)
	return t, gp
}

// Thread IDs. A slot of the thread table is reused as soon as its thread exits, but its tid must
// not be: the Go runtime signals threads by tid (tgkill for SIGURG preemption), and a signal meant
// for a thread that just exited must not reach its successor. Like Linux's cyclic PID allocation,
// the tid therefore counts the slot's reuses: tid = generation*MaxThreads + slot, so the slot is
// still found in O(1) (tid % MaxThreads) and a stale tid no longer matches. The first thread of
// slot 1 — the main thread — gets tid 1, which is also the process ID.
var tidGen [MaxThreads]uint32

func tidFor(gp sched.GID) int32 {
	gen := (tidGen[gp] - 1) % (1 << 31 / MaxThreads)
	return int32(gen)*MaxThreads + int32(gp)
}

// threadByTid returns the live thread with tid, or nil.
func threadByTid(tid int) (*Thread, sched.GID) {
	if tid <= 0 {
		return nil, 0
	}
	gp := sched.GID(tid % MaxThreads)
	t := &threads[gp]
	if gp == 0 || int(t.tid) != tid || t.state == threadFree || t.state == threadDead {
		return nil, 0
	}
	return t, gp
}

// startThread makes a thread from newThread runnable (sched.StartG: runnext of this core's P).
func startThread(gp sched.GID, cpu int) {
	threads[gp].state = threadRunnable
	S.StartG(gp, cpu)
}
