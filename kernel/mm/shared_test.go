// Shared anonymous mappings.
// SPDX-License-Identifier: BSD-3-Clause

package mm

import "testing"

// TestSharedAnonymous: MAP_SHARED|MAP_ANONYMOUS maps (as on Linux); MADV_DONTNEED keeps the
// data, as shmem does; MADV_FREE is EINVAL; MADV_REMOVE punches a hole that reads as zeros.
// On a private mapping the same advice behaves the other way round.
func TestSharedAnonymous(t *testing.T) {
	boot(t, testRAM)
	rw := uint32(PROT_READ | PROT_WRITE)
	sh, err := Space.Mmap(0, 2*PageSize, rw, MAP_SHARED|MAP_ANONYMOUS, -1, 0)
	if err != OK {
		t.Fatalf("shared anonymous mmap: %v", err)
	}
	if v, _ := Space.VMA(Space.find(sh)); v.Flags&VMAShared == 0 {
		t.Fatalf("VMA flags %#x, want VMAShared", v.Flags)
	}
	write := func(va uintptr, b byte) {
		if !Space.UserRange(va, 1, true) {
			t.Fatalf("UserRange(%#x) failed", va)
		}
		pa, _, _ := Space.PT.Lookup(va)
		FrameBytes(pa)[pa&PageMask] = b
	}
	read := func(va uintptr) byte {
		if !Space.UserRange(va, 1, false) {
			t.Fatalf("UserRange(%#x) failed", va)
		}
		pa, _, _ := Space.PT.Lookup(va)
		return FrameBytes(pa)[pa&PageMask]
	}
	write(sh, 42)
	if err := Space.Madvise(sh, PageSize, MADV_DONTNEED); err != OK || read(sh) != 42 {
		t.Errorf("DONTNEED on shared: %v, reads %d; want OK, 42 (the data stays)", err, read(sh))
	}
	if err := Space.Madvise(sh, PageSize, MADV_FREE); err != EINVAL {
		t.Errorf("FREE on shared: %v, want EINVAL", err)
	}
	if err := Space.Madvise(sh, PageSize, MADV_REMOVE); err != OK || read(sh) != 0 {
		t.Errorf("REMOVE on shared: %v, reads %d; want OK, 0", err, read(sh))
	}

	pr, _ := Space.Mmap(0, PageSize, rw, MAP_PRIVATE|MAP_ANONYMOUS, -1, 0)
	write(pr, 7)
	if err := Space.Madvise(pr, PageSize, MADV_REMOVE); err != EINVAL {
		t.Errorf("REMOVE on private: %v, want EINVAL", err)
	}
	if err := Space.Madvise(pr, PageSize, MADV_DONTNEED); err != OK || read(pr) != 0 {
		t.Errorf("DONTNEED on private: %v, reads %d; want OK, 0", err, read(pr))
	}
	if _, err := Space.Mmap(0, PageSize, rw, MAP_SHARED|MAP_ANONYMOUS|MAP_GROWSDOWN, -1, 0); err != EINVAL {
		t.Errorf("shared GROWSDOWN: %v, want EINVAL", err)
	}
}

// TestMincore: resident pages read 1, untouched and discarded ones 0; the walk stops at the end
// of the VMA; a start outside every VMA is ENOMEM.
func TestMincore(t *testing.T) {
	boot(t, testRAM)
	rw := uint32(PROT_READ | PROT_WRITE)
	va, _ := Space.Mmap(0, 4*PageSize, rw, MAP_PRIVATE|MAP_ANONYMOUS, -1, 0)
	Space.UserRange(va+PageSize, 1, true)
	Space.UserRange(va+3*PageSize, 1, true)
	Space.Madvise(va+3*PageSize, PageSize, MADV_DONTNEED)
	var vec [8]byte
	n, err := Space.Mincore(va, vec[:])
	if err != OK || n != 4 || vec != [8]byte{0, 1, 0, 0} {
		t.Errorf("Mincore = %d, %v, %v; want 4 pages [0 1 0 0]", n, err, vec)
	}
	if _, err := Space.Mincore(va+4*PageSize, vec[:]); err != ENOMEM {
		t.Errorf("past the VMA: %v, want ENOMEM", err)
	}
	if n := testing.AllocsPerRun(10, func() { Space.Mincore(va, vec[:]) }); n != 0 {
		t.Errorf("Mincore allocates %v times", n)
	}
}

// TestSyncBeforeReuse: a frame freed by munmap is handed out again only after SyncTLB (the
// kernel's shootdown), once, and allocation without a free in between does not ask again.
func TestSyncBeforeReuse(t *testing.T) {
	boot(t, testRAM)
	syncs := 0
	SyncTLB = func() { syncs++ }
	defer func() { SyncTLB = nil }()
	rw := uint32(PROT_READ | PROT_WRITE)
	va, _ := Space.Mmap(0, 2*PageSize, rw, MAP_PRIVATE|MAP_ANONYMOUS|MAP_POPULATE, -1, 0)
	before := syncs
	if err := Space.Munmap(va, 2*PageSize); err != OK {
		t.Fatal(err)
	}
	if syncs != before {
		t.Fatalf("munmap synchronised %d times; the sync belongs to the reuse", syncs-before)
	}
	Space.Mmap(0, 3*PageSize, rw, MAP_PRIVATE|MAP_ANONYMOUS|MAP_POPULATE, -1, 0)
	if syncs != before+1 {
		t.Fatalf("reusing freed frames synchronised %d times, want once", syncs-before)
	}
	Space.Mmap(0, PageSize, rw, MAP_PRIVATE|MAP_ANONYMOUS|MAP_POPULATE, -1, 0)
	if syncs != before+1 {
		t.Fatalf("an allocation with no free since asked again (%d)", syncs-before)
	}
}

// TestUserRangeFailsFirst: a range that UserRange must refuse — it runs past its mapping, or asks
// to write a read-only one — takes no frame before it answers (it used to pre-fault every page up
// to the problem, so one bad 2 GiB read took all of RAM).
func TestUserRangeFailsFirst(t *testing.T) {
	boot(t, testRAM)
	va, _ := Space.Mmap(0, 64*PageSize, PROT_READ, MAP_PRIVATE|MAP_ANONYMOUS, -1, 0)
	_, free := FrameCounts()
	if Space.UserRange(va, 65*PageSize, false) {
		t.Fatal("a read past the mapping passed")
	}
	if Space.UserRange(va, PageSize, true) {
		t.Fatal("a write to a read-only mapping passed")
	}
	if _, after := FrameCounts(); after != free {
		t.Errorf("refusals took %d frames", free-after)
	}
	if !Space.UserRange(va, 64*PageSize, false) {
		t.Error("the mapping itself was refused")
	}
}

// TestKernelDataRefused: a buffer that overlaps a registered kernel variable is refused, for
// reading and writing, even where the VMA allows it; the ranges next to it are not.
func TestKernelDataRefused(t *testing.T) {
	boot(t, testRAM)
	defer func() { protected.n = 0 }()
	va, _ := Space.Mmap(0, 8*PageSize, PROT_READ|PROT_WRITE, MAP_PRIVATE|MAP_ANONYMOUS, -1, 0)
	ProtectKernelData(va+2*PageSize+100, 50)
	ProtectKernelData(va+2*PageSize+150, 10) // adjacent: merged
	ProtectKernelData(va+6*PageSize, 8)
	if protected.n != 2 {
		t.Fatalf("%d ranges, want 2 after merging", protected.n)
	}
	for _, c := range []struct {
		p, n uintptr
		ok   bool
	}{
		{va, 2*PageSize + 100, true},      // ends where the variable starts
		{va, 2*PageSize + 101, false},     // its first byte
		{va + 2*PageSize + 159, 1, false}, // the merged neighbour's last byte
		{va + 2*PageSize + 160, PageSize, true},
		{va + 5*PageSize, 2 * PageSize, false}, // runs over the second one
		{va + 6*PageSize + 8, PageSize, true},
		// The ends of the table (kernelData answers outside them without a search).
		{va + 2*PageSize + 99, 1, true},
		{va + 6*PageSize + 7, 1, false},
		{va + 6*PageSize + 8, 1, true},
		// Within one page: a word beside the variable, then one in it (a page that holds a
		// kernel variable is never remembered as usable: fault.go checkedPages).
		{va + 2*PageSize, 8, true},
		{va + 2*PageSize + 120, 8, false},
	} {
		for _, write := range []bool{false, true} {
			if got := Space.UserRange(c.p, c.n, write); got != c.ok {
				t.Errorf("UserRange(%#x, %#x, write %v) = %v, want %v", c.p-va, c.n, write, got, c.ok)
			}
		}
	}
}
