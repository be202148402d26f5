// Fault-around (kernel/mm/faultaround.go): which pages a run of first touches maps, as
// mincore(2) sees them, and whether pages present in a window keep what threads wrote there
// while a fault maps the rest of it.
// SPDX-License-Identifier: BSD-3-Clause
package main

import (
	"fmt"
	"os"
	"runtime"
	"sync"
	"syscall"
	"unsafe"
)

const page = 4096

var sink byte // a load the compiler keeps

func main() {
	window()
	clipped()
	race()
}

// region maps n pages plus 64 KiB and returns n pages starting at a 64 KiB boundary (the
// kernel's window is aligned), and the whole mapping.
func region(n int) ([]byte, []byte) {
	m, err := syscall.Mmap(-1, 0, n*page+16*page, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_PRIVATE|syscall.MAP_ANON)
	if err != nil {
		fail("mmap: %v", err)
	}
	off := int(-uintptr(unsafe.Pointer(&m[0])) & (16*page - 1))
	return m[off : off+n*page], m
}

// resident is mincore's answer for b's pages, a 0 or 1 each, in groups of 16.
func resident(b []byte) string {
	vec := make([]byte, len(b)/page)
	if _, _, e := syscall.Syscall(syscall.SYS_MINCORE, uintptr(unsafe.Pointer(&b[0])), uintptr(len(b)), uintptr(unsafe.Pointer(&vec[0]))); e != 0 {
		fail("mincore: %v", e)
	}
	s := ""
	for i, v := range vec {
		if i > 0 && i%16 == 0 {
			s += " "
		}
		s += fmt.Sprint(v & 1)
	}
	return s
}

// window: a read of page 20 of a fresh region, alone; then reads of pages 36 and 37, back to
// back, the second continuing the run. The kernel follows one run per address space, so a
// fault by another of the runtime's threads in between (the GC, sysmon, on another vCPU)
// breaks it: up to five fresh regions are tried until the run opens its window.
func window() {
	var b, m []byte
	for try := 0; try < 5; try++ {
		if m != nil {
			syscall.Munmap(m)
		}
		b, m = region(48)
		sink = b[20*page+100]
		sink = b[36*page]
		sink = b[37*page]
		if r := resident(b); r[len(r)-16:] != "0000110000000000" {
			break // the window opened (or something else happened: printed below)
		}
	}
	fmt.Println("read pages 20, 36, 37:", resident(b))
	nonzero := 0
	for _, v := range b {
		if v != 0 {
			nonzero++
		}
	}
	fmt.Println("nonzero bytes:", nonzero)
	syscall.Munmap(m)
}

// clipped: a window whose second half another VMA (read-only) covers; writes to pages 1 and 2
// (the window then ends at the VMA's end, page 7, its marker). Another thread's fault between
// the two breaks the run, as in window: up to five fresh regions are tried.
func clipped() {
	var b, m []byte
	var r string
	for try := 0; try < 5; try++ {
		if m != nil {
			syscall.Munmap(m)
		}
		b, m = region(32)
		if err := syscall.Mprotect(b[8*page:16*page], syscall.PROT_READ); err != nil {
			fail("mprotect: %v", err)
		}
		b[page] = 1
		b[2*page] = 1
		if r = resident(b); r[:16] != "0110000000000000" {
			break // the window opened (or something else happened: printed below)
		}
	}
	fmt.Println("write pages 1 and 2, pages 8-15 read-only:", r)
	syscall.Munmap(m)
}

// race: pages with data beside pages without. Main writes a mark into every page of a fresh
// region and drops all but the first two pages of each 16-page window (MADV_DONTNEED); four
// threads then write marks into a window each, page after page, at once: the first touches
// of the dropped pages are a run, whose faults map the rest of the window, where the first
// pages hold marks that must stay (and the threads' runs interleave on two vCPUs). Every mark
// is checked afterwards, and the dropped pages' first bytes must read zero again.
func race() {
	const threads, rounds, pages = 4, 200, 64
	lost := 0
	for r := 0; r < rounds; r++ {
		b, m := region(pages)
		for p := 0; p < pages; p++ {
			b[p*page] = 0x99
		}
		for w := 0; w < pages; w += 16 {
			if err := syscall.Madvise(b[(w+2)*page:(w+16)*page], 4 /* MADV_DONTNEED */); err != nil {
				fail("madvise: %v", err)
			}
		}
		var wg sync.WaitGroup
		for t := 0; t < threads; t++ {
			wg.Add(1)
			go func(t int) {
				defer wg.Done()
				runtime.LockOSThread()
				for p := 16 * t; p < 16*t+16; p++ {
					b[p*page+8] = byte(0x40 + t)
				}
			}(t)
		}
		wg.Wait()
		for p := 0; p < pages; p++ {
			first := byte(0x99)
			if p%16 >= 2 {
				first = 0
			}
			if b[p*page] != first || b[p*page+8] != byte(0x40+p/16) {
				lost++
			}
		}
		syscall.Munmap(m)
	}
	fmt.Println("marks lost:", lost)
}

func fail(f string, a ...any) {
	fmt.Printf("FAIL "+f+"\n", a...)
	os.Exit(1)
}
