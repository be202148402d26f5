// Guest: sysfuzz's memory probes: user-mode accesses checked against a model of mm's answers.
// SPDX-License-Identifier: BSD-3-Clause

package main

import (
	"fmt"
	"runtime/debug"
	"sync/atomic"
	"syscall"
	"unsafe"
)

// Random calls only show that the kernel survives; whether memory then behaves as the calls said
// needs an access from user mode. Every probeEvery calls, each worker changes one page of its own
// private region (mprotect, madvise, munmap, mmap) or reads/writes it from user mode, and checks
// the outcome against its model: a write to a read-only page must fault, a PROT_NONE or unmapped
// page must fault on reading, MADV_DONTNEED and a new mapping must read as zero, and data must
// survive protection changes. The worker's thread runs on whichever core the scheduler picks, so
// with -smp a stale TLB entry left by a missing shootdown shows up as an access that should
// have faulted, or as data that should have gone.
//
// The region is the worker's alone: no generated pointer or range reaches it.
const (
	probeEvery = 64
	probePages = 4
	privBase   = 0x5b5b_0000_0000 // hint for the private regions (one reservation for all workers)
	privStride = 16 * pageSize
)

// page states in the model.
const (
	pRW = iota
	pRO
	pNone
	pUnmapped
)

var pStateName = [...]string{"read-write", "read-only", "PROT_NONE", "unmapped"}

// probe is one worker's private region and its model.
type probe struct {
	base  uintptr
	state [probePages]int
	val   [probePages]uint64 // what the first word of each page holds
	seq   uint64
}

// setupProbes reserves the private regions, one per worker, all read-write and zero.
func (f *fuzzer) setupProbes(ws []*worker) {
	size := uintptr(len(ws)) * privStride
	r, _, e := syscall.RawSyscall6(nrMmap, privBase, size, syscall.PROT_READ|syscall.PROT_WRITE,
		syscall.MAP_PRIVATE|syscall.MAP_ANONYMOUS, ^uintptr(0), 0)
	if e != 0 {
		fmt.Printf("sysfuzz: cannot map the probe regions: %v\n", e)
		return
	}
	for i, w := range ws {
		w.probe = &probe{base: r + uintptr(i)*privStride}
	}
}

// access reads (or writes v to) the first word of page i from user mode and reports whether it
// faulted. The atomics make sure the compiler really performs the accesses.
func (p *probe) access(i int, write bool, v uint64) (got uint64, faulted bool) {
	defer func() {
		if recover() != nil {
			faulted = true
		}
	}()
	old := debug.SetPanicOnFault(true)
	defer debug.SetPanicOnFault(old)
	addr := p.base + uintptr(i)*pageSize
	w := (*uint64)(*(*unsafe.Pointer)(unsafe.Pointer(&addr)))
	if write {
		atomic.StoreUint64(w, v)
		return v, false
	}
	return atomic.LoadUint64(w), false
}

// step makes one probe action, chosen by r, and returns what went wrong ("" if nothing).
func (w *worker) probeStep(r *rng) string {
	p := w.probe
	if p == nil {
		return ""
	}
	i := r.intn(probePages)
	act := r.intn(9)
	addr := p.base + uintptr(i)*pageSize
	sys := func(nr, a0, a1, a2 uintptr) syscall.Errno {
		_, _, e := syscall.RawSyscall6(uintptr(nr), a0, a1, a2, 0, 0, 0)
		return e
	}
	where := func(what string) string {
		return fmt.Sprintf("probe page %d (%#x, model: %s, holds %#x): %s", i, addr, pStateName[p.state[i]], p.val[i], what)
	}
	switch act {
	case 0, 1: // read from user mode
		got, faulted := p.access(i, false, 0)
		switch {
		case p.state[i] == pNone || p.state[i] == pUnmapped:
			if !faulted {
				return where(fmt.Sprintf("a read did not fault (read %#x)", got))
			}
		case faulted:
			return where("a read faulted")
		case got != p.val[i]:
			return where(fmt.Sprintf("read %#x", got))
		}
	case 2, 3: // write from user mode
		p.seq++
		v := w.seed<<32 | p.seq
		_, faulted := p.access(i, true, v)
		switch {
		case p.state[i] != pRW:
			if !faulted {
				return where("a write did not fault")
			}
		case faulted:
			return where("a write faulted")
		default:
			p.val[i] = v
		}
	case 4: // mprotect to a random protection
		prot := []uintptr{syscall.PROT_READ | syscall.PROT_WRITE, syscall.PROT_READ, syscall.PROT_NONE}[r.intn(3)]
		e := sys(nrMprotect, addr, pageSize, prot)
		if p.state[i] == pUnmapped {
			if e != syscall.ENOMEM {
				return where(fmt.Sprintf("mprotect of an unmapped page: %v, want ENOMEM", errName(e)))
			}
			return ""
		}
		if e != 0 {
			return where(fmt.Sprintf("mprotect(%d): %v", prot, errName(e)))
		}
		p.state[i] = map[uintptr]int{syscall.PROT_READ | syscall.PROT_WRITE: pRW, syscall.PROT_READ: pRO, syscall.PROT_NONE: pNone}[prot]
	case 5: // discard
		e := sys(nrMadvise, addr, pageSize, 4) // MADV_DONTNEED
		if p.state[i] == pUnmapped {
			if e != syscall.ENOMEM {
				return where(fmt.Sprintf("madvise of an unmapped page: %v, want ENOMEM", errName(e)))
			}
			return ""
		}
		if e != 0 {
			return where(fmt.Sprintf("madvise(MADV_DONTNEED): %v", errName(e)))
		}
		p.val[i] = 0
	case 6: // unmap
		if e := sys(nrMunmap, addr, pageSize, 0); e != 0 {
			return where(fmt.Sprintf("munmap: %v", errName(e)))
		}
		p.state[i], p.val[i] = pUnmapped, 0
	case 7, 8: // map anew, read-write and zero
		if p.state[i] == pUnmapped || act == 8 {
			r, _, e := syscall.RawSyscall6(nrMmap, addr, pageSize, syscall.PROT_READ|syscall.PROT_WRITE,
				syscall.MAP_PRIVATE|syscall.MAP_ANONYMOUS|syscall.MAP_FIXED, ^uintptr(0), 0)
			if e != 0 || r != addr {
				return where(fmt.Sprintf("mmap(MAP_FIXED) = %#x %v", r, errName(e)))
			}
			p.state[i], p.val[i] = pRW, 0
		}
	}
	return ""
}
