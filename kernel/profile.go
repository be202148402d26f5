// The whole-machine sampling profiler: profile=HZ.
// SPDX-License-Identifier: BSD-3-Clause

package kernel

import (
	"sync/atomic"
	"unsafe"

	"gmpos/kernel/arch"
	"gmpos/kernel/mm"
	"gmpos/sched"
)

// With profile=HZ on the command line (the runner's -profile FILE), every core's time is sampled
// HZ times a second and the samples go to the runner at exit, which writes a pprof profile
// (qemu/runner/profile.go, docs/profiling.md). A sample is a call stack — program frames from the
// frame-pointer chain (Go keeps frame pointers on amd64 and arm64), under one frame for what the
// kernel was doing — with its core, process and thread:
//
//   - user time: the per-core timer, armed no later than the next sample while a thread runs
//     (armTimer), interrupts it; the sample is its PC and frame chain;
//   - kernel time: the kernel runs with interrupts off, so no interrupt can land in it. Each
//     trap's cycles are counted instead, and every period's worth becomes a sample of the trap's
//     kind (the system call's name, "fault", "timer", "irq"...: ktime.go's buckets) on top of the
//     stack of the thread that trapped — where the program asked for it;
//   - lock time: the part of a trap spent waiting for the big kernel lock is counted apart, as
//     "bkl-wait" samples on the same stack, over a frame for the work that waited ("bkl-wait"
//     atop "futex") — contention, not work, and which work contends;
//   - idle time: each halt's cycles likewise, as an "idle" sample.
//
// So kernel, runtime and program time add up to the cores' wall-clock time, in one profile.
//
// Sampling does not change what it measures: the traps handled without the BKL (smp.go) stay
// without it while the profiler runs, and are sampled there as well — a profile shows the kernel
// as it runs, not one serialised for the profiler.
//
// Context: sampling runs in trap context (interrupt context for the timer), with or without the
// BKL: it allocates nothing, and reads the program's stack as the futex word is read without the
// BKL (peekUser64: the page table's leave, then a load whose fault is a failed read), so neither
// another core's munmap nor a bad frame pointer can fault the kernel. Each core keeps its own
// counters and scratch stack (prof.* indexed by core: only that core touches them); the sample
// store is frames taken at boot, whose slots are claimed with an atomic add and published by a
// slot's done flag.

const (
	profMaxHz    = 10000
	profDepth    = 24 // program frames per sample (a record line must fit a kbuf)
	profPerFrame = mm.PageSize / profSampleSize
	profFrames   = 2048 // 8 MiB of samples: ~39,000, two and a half minutes of one core at 250 Hz

	profUser = -1 // a sample's kind: program time
	profIdle = -2 // a halted core
	profBKL  = -3 // a trap waiting for the big kernel lock (smp.go)
	// Kinds >= 0 are ktime buckets: kernel time.
)

// profSample is one sample (216 bytes, 18 to a frame).
type profSample struct {
	kind int16
	cpu  uint8
	n    uint8 // pcs used
	pid  int32
	tid  int32
	work int32  // profBKL: the ktime bucket of the trap that waited
	done uint32 // stored last (atomic): the sample is complete, for dumpProfile
	pcs  [profDepth]uintptr
}

const profSampleSize = int(unsafe.Sizeof(profSample{}))

// prof is the profiler's state. Immutable after boot except as noted.
var prof struct {
	hz      int64
	period  int64               // ns between samples
	cycles  uint64              // cycles between samples
	frames  [profFrames]uintptr // the sample store's frames (physical)
	nframes int
	n, lost atomic.Uint64 // slots claimed (may pass the store's size), samples dropped for want of room
	// Per core, touched by that core only:
	next    [arch.MaxCPU]int64              // when its next user sample is due (ns)
	kernel  [arch.MaxCPU]uint64             // kernel cycles not yet sampled
	bkl     [arch.MaxCPU]uint64             // cycles waiting for the BKL not yet sampled
	idle    [arch.MaxCPU]uint64             // idle cycles not yet sampled
	at      [arch.MaxCPU]profAt             // where the trap without the BKL found its thread
	scratch [arch.MaxCPU][profDepth]uintptr // the stack being walked
}

// profAt is where a trap handled without the BKL found the thread it interrupted: recorded at
// entry (profEnter), for the samples its way out charges (profChargeUnlocked).
type profAt struct {
	gp     sched.GID // 0: the trap interrupted no thread in user mode
	pc, fp uintptr
	space  uint8 // the thread's address space, whose page table was loaded at entry
}

// profParse reads the value of profile=HZ (boot).
func profParse(v []byte) {
	hz := int64(0)
	for _, c := range v {
		if c < '0' || c > '9' {
			return
		}
		hz = hz*10 + int64(c-'0')
		if hz > profMaxHz {
			hz = profMaxHz
		}
	}
	prof.hz = hz
}

// profInit takes the sample store (boot, after the clock is calibrated). A profile of a machine
// with too little memory is smaller, not absent.
func profInit() {
	if prof.hz == 0 {
		return
	}
	prof.period = 1_000_000_000 / prof.hz
	prof.cycles = uint64(prof.period) << 32 / clock.mult // clock.go: ns = cycles*mult >> 32
	for prof.nframes < profFrames {
		pa, ok := mm.AllocZeroFrame()
		if !ok {
			break
		}
		prof.frames[prof.nframes] = pa
		prof.nframes++
	}
	var k kbuf
	k.s("log profiling at ").d(prof.hz).s(" Hz, room for ").d(int64(prof.nframes * profPerFrame)).s(" samples").record()
}

// profSlot is sample i's place in the store.
func profSlot(i uint64) *profSample {
	pa := prof.frames[i/uint64(profPerFrame)]
	return (*profSample)(ptr(mm.PhysToVirt(pa) + uintptr(i%uint64(profPerFrame))*uintptr(profSampleSize)))
}

// profTimerNext is the earliest time core cpu must interrupt a running thread for a sample (0:
// not profiling). armTimer.
func profTimerNext(cpu int, now int64) int64 {
	if prof.hz == 0 {
		return 0
	}
	if prof.next[cpu] <= now {
		prof.next[cpu] = now + prof.period
	}
	return prof.next[cpu]
}

// profTick samples thread gp, which the timer interrupted in user mode at pc with frame
// pointer fp, if a sample is due; pt is its page table, the one loaded. With or without the
// BKL.
func profTick(gp sched.GID, cpu int, now int64, pc, fp uintptr, pt mm.PageTable) {
	if prof.hz == 0 || now < prof.next[cpu] {
		return
	}
	prof.next[cpu] = now + prof.period
	n := profWalk(cpu, pt, pc, fp)
	profRecord(profUser, cpu, &threads[gp], n, 0)
}

// profCharge counts a trap's kernel cycles, BKL-wait cycles and idle cycles on core cpu, and
// records a sample for each period's worth: kernel ones as bucket b (lock ones as bkl-wait) on
// top of the stack the thread had at entry (pc, fp; gp 0 when the trap interrupted no thread).
// trap, on the way out.
func profCharge(cpu int, b int, kernel, bkl, idle uint64, gp sched.GID, pc, fp uintptr) {
	if prof.hz == 0 {
		return
	}
	prof.idle[cpu] += idle
	profDrainIdle(cpu)
	prof.kernel[cpu] += kernel
	prof.bkl[cpu] += bkl
	if prof.kernel[cpu] < prof.cycles && prof.bkl[cpu] < prof.cycles {
		return
	}
	n := 0
	var t *Thread
	if gp != 0 && live(gp) {
		t = &threads[gp]
		// Walk in the thread's own address space: the trap may have switched to another.
		old := enterProc(gp)
		n = profWalk(cpu, userSpace().PT, pc, fp)
		leaveProc(old)
	}
	profDrain(cpu, b, t, n)
}

// profEnter records, for a trap handled without the BKL on core cpu, the thread f interrupted in
// user mode, if any (gp). trap, at entry, when profiling.
func profEnter(f *arch.Frame, cpu int, gp sched.GID) {
	a := &prof.at[cpu]
	a.gp = 0
	if gp != 0 && f != nil && f.FromUser() {
		a.gp, a.pc, a.fp, a.space = gp, f.PC(), f.FramePointer(), procs[threads[gp].proc].space
	}
}

// profIdleCycles counts idle cycles that a trap without the BKL ended on core cpu; its way out
// (profChargeUnlocked) records them.
func profIdleCycles(cpu int, idle uint64) {
	if prof.hz != 0 {
		prof.idle[cpu] += idle
	}
}

// profChargeUnlocked is profCharge for a trap handled without the BKL: its kernel cycles, as
// bucket b, on the stack of the thread profEnter found. The walk needs that thread's page table
// loaded; if the trap switched to another process's, the sample has the thread's PC alone.
// The thread may be running on another core by now (it blocked, and was woken): its stack is
// read as peekUser64 reads, so a frame it is rewriting yields a wrong caller, never a fault.
// The unlocked paths' way out (wake_unlocked.go).
func profChargeUnlocked(cpu int, b int, kernel uint64) {
	if prof.hz == 0 {
		return
	}
	profDrainIdle(cpu)
	a := prof.at[cpu]
	prof.at[cpu].gp = 0 // charged once: the idle poll's next event is no thread's
	prof.kernel[cpu] += kernel
	if prof.kernel[cpu] < prof.cycles {
		return
	}
	n := 0
	var t *Thread
	if a.gp != 0 {
		t = &threads[a.gp]
		if pt := rootOf(a.space); pt.Root == cpus[cpu].root {
			n = profWalk(cpu, pt, a.pc, a.fp)
		} else {
			prof.scratch[cpu][0], n = a.pc, 1
		}
	}
	profDrain(cpu, b, t, n)
}

// profDrainIdle records core cpu's idle cycles not yet sampled, a sample per period's worth.
func profDrainIdle(cpu int) {
	for ; prof.idle[cpu] >= prof.cycles; prof.idle[cpu] -= prof.cycles {
		profRecord(profIdle, cpu, nil, 0, 0)
	}
}

// profDrain records core cpu's sampled-but-unrecorded kernel and BKL-wait cycles, a sample per
// period's worth, on thread t's stack: the first n pcs of the core's scratch.
func profDrain(cpu, b int, t *Thread, n int) {
	for ; prof.kernel[cpu] >= prof.cycles; prof.kernel[cpu] -= prof.cycles {
		profRecord(int16(b), cpu, t, n, 0)
	}
	for ; prof.bkl[cpu] >= prof.cycles; prof.bkl[cpu] -= prof.cycles {
		profRecord(profBKL, cpu, t, n, b)
	}
}

// profWalk collects pc and the return addresses of the frame-pointer chain from fp into core
// cpu's scratch stack: each frame holds the caller's frame pointer at fp and the return address
// at fp+8 (the amd64 and arm64 Go ABIs). The chain ends at a null or non-increasing pointer, at
// a word the loaded page table does not let the program read (peekUser64), or at profDepth
// frames. pt is the page table loaded on this core.
func profWalk(cpu int, pt mm.PageTable, pc, fp uintptr) int {
	sc := &prof.scratch[cpu]
	sc[0] = pc
	n := 1
	for n < profDepth && fp != 0 && fp&7 == 0 && fp < mm.UserEnd-16 {
		next, ok1 := peekUser64(pt, fp)
		ret, ok2 := peekUser64(pt, fp+8)
		if !ok1 || !ok2 || ret == 0 {
			break
		}
		sc[n] = uintptr(ret)
		n++
		if uintptr(next) <= fp {
			break
		}
		fp = uintptr(next)
	}
	return n
}

// profRecord stores a sample of kind with the first n pcs of prof.scratch; work is the ktime
// bucket that waited, for a profBKL sample.
func profRecord(kind int16, cpu int, t *Thread, n int, work int) {
	i := prof.n.Add(1) - 1
	if i >= profCapacity() {
		prof.lost.Add(1)
		return
	}
	s := profSlot(i)
	s.kind, s.cpu, s.n, s.work = kind, uint8(cpu), uint8(n), int32(work)
	s.pid, s.tid = 0, 0
	if t != nil {
		s.pid, s.tid = procOf(t).pid, t.tid
	}
	copy(s.pcs[:n], prof.scratch[cpu][:n])
	atomic.StoreUint32(&s.done, 1)
}

// profCapacity is how many samples the store holds.
func profCapacity() uint64 { return uint64(prof.nframes * profPerFrame) }

// dumpProfile sends the samples on the control channel at exit (docs/contract.md, "Profile"):
//
//	prof-hz HZ
//	prof KIND CPU PID TID PC...   KIND: user, idle, the kernel's name for the work, or
//	                              bkl-wait/WORK (the work that waited for the BKL); PCs in hex
//	prof-lost N
func dumpProfile() {
	if prof.hz == 0 {
		return
	}
	var k kbuf
	k.s("prof-hz ").d(prof.hz).record()
	for i := uint64(0); i < min(prof.n.Load(), profCapacity()); i++ {
		s := profSlot(i)
		if atomic.LoadUint32(&s.done) == 0 {
			continue // claimed by a core that has not finished it: that core still runs
		}
		k.n = 0
		k.s("prof ")
		switch s.kind {
		case profUser:
			k.s("user")
		case profIdle:
			k.s("idle")
		case profBKL:
			k.s("bkl-wait/")
			ktimeName(&k, int(s.work))
		default:
			ktimeName(&k, int(s.kind))
		}
		k.c(' ').d(int64(s.cpu)).c(' ').d(int64(s.pid)).c(' ').d(int64(s.tid))
		for j := 0; j < int(s.n); j++ {
			k.c(' ').x(uint64(s.pcs[j]))
		}
		k.record()
	}
	if lost := prof.lost.Load(); lost != 0 {
		k.n = 0
		k.s("prof-lost ").d(int64(lost)).record()
	}
}
