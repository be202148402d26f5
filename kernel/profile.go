// The whole-machine sampling profiler: profile=HZ.
// SPDX-License-Identifier: BSD-3-Clause

package kernel

import (
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
//     "bkl-wait" samples on the same stack — contention, not work;
//   - idle time: each halt's cycles likewise, as an "idle" sample.
//
// So kernel, runtime and program time add up to the cores' wall-clock time, in one profile.
//
// Context: sampling runs in trap context (interrupt context for the timer): it allocates nothing
// and reads user memory only through pages the thread's page table maps (no fault, no demand
// paging). The sample store is frames taken at boot. Protected by the BKL.

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

// profSample is one sample (208 bytes, 19 to a frame).
type profSample struct {
	kind int16
	cpu  uint8
	n    uint8 // pcs used
	pid  int32
	tid  int32
	_    int32
	pcs  [profDepth]uintptr
}

const profSampleSize = int(unsafe.Sizeof(profSample{}))

// prof is the profiler's state. Immutable after boot except as noted; BKL.
var prof struct {
	hz      int64
	period  int64               // ns between samples
	cycles  uint64              // cycles between samples
	frames  [profFrames]uintptr // the sample store's frames (physical)
	nframes int
	n, lost uint64              // samples taken, and dropped for want of room (BKL)
	next    [arch.MaxCPU]int64  // per core: when its next user sample is due (ns)
	kernel  [arch.MaxCPU]uint64 // per core: kernel cycles not yet sampled
	bkl     [arch.MaxCPU]uint64 // per core: cycles waiting for the BKL not yet sampled
	idle    [arch.MaxCPU]uint64 // per core: idle cycles not yet sampled
	scratch [profDepth]uintptr  // the stack being walked
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

// profTick samples the thread the timer interrupted in user mode, if a sample is due.
func profTick(t *Thread, gp sched.GID, cpu int, now int64) {
	if prof.hz == 0 || now < prof.next[cpu] {
		return
	}
	prof.next[cpu] = now + prof.period
	n := profWalk(t.frame.PC(), t.frame.FramePointer(), 0)
	profRecord(profUser, cpu, t, n)
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
	for ; prof.idle[cpu] >= prof.cycles; prof.idle[cpu] -= prof.cycles {
		profRecord(profIdle, cpu, nil, 0)
	}
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
		n = profWalk(pc, fp, 0)
		leaveProc(old)
	}
	for ; prof.kernel[cpu] >= prof.cycles; prof.kernel[cpu] -= prof.cycles {
		profRecord(int16(b), cpu, t, n)
	}
	for ; prof.bkl[cpu] >= prof.cycles; prof.bkl[cpu] -= prof.cycles {
		profRecord(profBKL, cpu, t, n)
	}
}

// profWalk collects pc and the return addresses of the frame-pointer chain from fp into
// prof.scratch[from:]: each frame holds the caller's frame pointer at fp and the return address
// at fp+8 (the amd64 and arm64 Go ABIs). The chain ends at a null or non-increasing pointer, at
// a page the current page table does not map, or at profDepth frames.
func profWalk(pc, fp uintptr, from int) int {
	n := from
	prof.scratch[n] = pc
	n++
	as := userSpace()
	for n < profDepth && fp != 0 && fp&7 == 0 && fp < mm.UserEnd-16 {
		if _, _, ok := as.PT.Lookup(fp); !ok {
			break
		}
		if (fp+8)&(mm.PageSize-1) == 0 { // the return address is on the next page
			if _, _, ok := as.PT.Lookup(fp + 8); !ok {
				break
			}
		}
		next, ret := uintptr(load64(fp)), uintptr(load64(fp+8))
		if ret == 0 {
			break
		}
		prof.scratch[n] = ret
		n++
		if next <= fp {
			break
		}
		fp = next
	}
	return n
}

// profRecord stores a sample of kind with the first n pcs of prof.scratch.
func profRecord(kind int16, cpu int, t *Thread, n int) {
	if prof.n >= uint64(prof.nframes*profPerFrame) {
		prof.lost++
		return
	}
	s := profSlot(prof.n)
	prof.n++
	s.kind, s.cpu, s.n = kind, uint8(cpu), uint8(n)
	s.pid, s.tid = 0, 0
	if t != nil {
		s.pid, s.tid = procOf(t).pid, t.tid
	}
	copy(s.pcs[:n], prof.scratch[:n])
}

// dumpProfile sends the samples on the control channel at exit (docs/contract.md, "Profile"):
//
//	prof-hz HZ
//	prof KIND CPU PID TID PC...   KIND: user, idle or the kernel's name for the work; PCs in hex
//	prof-lost N
func dumpProfile() {
	if prof.hz == 0 {
		return
	}
	var k kbuf
	k.s("prof-hz ").d(prof.hz).record()
	for i := uint64(0); i < prof.n; i++ {
		s := profSlot(i)
		k.n = 0
		k.s("prof ")
		switch s.kind {
		case profUser:
			k.s("user")
		case profIdle:
			k.s("idle")
		case profBKL:
			k.s("bkl-wait")
		default:
			ktimeName(&k, int(s.kind))
		}
		k.c(' ').d(int64(s.cpu)).c(' ').d(int64(s.pid)).c(' ').d(int64(s.tid))
		for j := 0; j < int(s.n); j++ {
			k.c(' ').x(uint64(s.pcs[j]))
		}
		k.record()
	}
	if prof.lost != 0 {
		k.n = 0
		k.s("prof-lost ").d(int64(prof.lost)).record()
	}
}
