// Fault-around (kernel/mm/faultaround.go): which pages a first touch maps, as mincore(2) sees
// them, and whether pages mapped ahead keep what other threads write into them meanwhile.
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

// window: a read of page 20 of a fresh region.
func window() {
	b, m := region(48)
	sink = b[20*page+100]
	fmt.Println("read page 20:", resident(b))
	nonzero := 0
	for _, v := range b {
		if v != 0 {
			nonzero++
		}
	}
	fmt.Println("nonzero bytes:", nonzero)
	syscall.Munmap(m)
}

// clipped: a window whose second half another VMA (read-only) covers; a write to page 2.
func clipped() {
	b, m := region(32)
	if err := syscall.Mprotect(b[8*page:16*page], syscall.PROT_READ); err != nil {
		fail("mprotect: %v", err)
	}
	b[2*page] = 1
	fmt.Println("write page 2, pages 8-15 read-only:", resident(b))
	syscall.Munmap(m)
}

// race: pages with data beside pages without. Main writes a mark into every page of a fresh
// region, drops the odd pages (MADV_DONTNEED), and four threads then write marks into every
// fourth page at once: each first touch of an odd page maps the rest of its window, where the
// even pages hold marks that must stay, and other threads may be writing. Every mark is
// checked afterwards, and the dropped pages' first bytes must read zero again.
func race() {
	const threads, rounds, pages = 4, 200, 64
	lost := 0
	for r := 0; r < rounds; r++ {
		b, m := region(pages)
		for p := 0; p < pages; p++ {
			b[p*page] = 0x99
		}
		for p := 1; p < pages; p += 2 {
			if err := syscall.Madvise(b[p*page:(p+1)*page], 4 /* MADV_DONTNEED */); err != nil {
				fail("madvise: %v", err)
			}
		}
		var wg sync.WaitGroup
		for t := 0; t < threads; t++ {
			wg.Add(1)
			go func(t int) {
				defer wg.Done()
				runtime.LockOSThread()
				for p := t; p < pages; p += threads {
					b[p*page+8+8*t] = byte(0x40 + t)
				}
			}(t)
		}
		wg.Wait()
		for p := 0; p < pages; p++ {
			first := byte(0x99)
			if p%2 == 1 {
				first = 0
			}
			if b[p*page] != first || b[p*page+8+8*(p%threads)] != byte(0x40+p%threads) {
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
