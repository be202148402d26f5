package mm

import (
	"fmt"
	"testing"
)

// The mm entry points run in trap context and before the runtime exists:
// they must never allocate.
func TestNoAllocations(t *testing.T) {
	boot(t, testRAM)
	const base = 0x3000_0000_0000
	var va uintptr = base
	check := func(name string, f func()) {
		t.Helper()
		if n := testing.AllocsPerRun(50, f); n != 0 {
			t.Errorf("%s allocates %.1f times per call", name, n)
		}
	}
	check("Mmap+HandleFault+Madvise+Munmap", func() {
		a, err := Space.Mmap(0, 4*PageSize, PROT_READ|PROT_WRITE, anon, -1, 0)
		if err != OK {
			panic("mmap")
		}
		HandleFault(a+PageSize, true, false, true)
		Space.Madvise(a, 4*PageSize, MADV_DONTNEED)
		UserRange(a, 2*PageSize, true)
		Space.Mprotect(a, PageSize, PROT_READ)
		Space.Munmap(a, 4*PageSize)
	})
	check("Linux argument checks and advice", func() {
		a, err := Space.Mmap(0x1000_0000, 4*PageSize, PROT_READ|PROT_WRITE, anon|mapLow32|MAP_GROWSDOWN|MAP_LOCKED, -1, 0)
		if err != OK {
			panic("mmap")
		}
		Space.Madvise(a, 4*PageSize, MADV_POPULATE_WRITE)
		Space.Madvise(a, 4*PageSize, MADV_COLLAPSE)
		Space.Madvise(a, 8*PageSize, MADV_COLD)
		Space.Mprotect(a+PageSize, PageSize, PROT_READ|PROT_GROWSDOWN)
		Space.Mprotect(DirectMapBase, PageSize, PROT_READ)
		Space.Mmap(0, PageSize, PROT_READ, MAP_SHARED_VALIDATE|MAP_SYNC, 3, 0)
		Space.Mmap(0, PageSize, PROT_READ, anon|MAP_HUGETLB, -1, 0)
		Space.Munmap(a, 4*PageSize)
	})
	check("Mmap fixed", func() {
		Space.Mmap(base, 2*PageSize, PROT_READ, anon|MAP_FIXED, -1, 0)
	})
	check("HandleFault", func() {
		HandleFault(base, false, false, true)
		HandleFault(0, false, false, true)
	})
	check("Munmap", func() {
		Space.Munmap(base, PageSize)
	})
	frame, _ := AllocZeroFrame()
	special := uintptr(0x7fff_0000_0000)
	check("MapSpecial", func() {
		Space.MapSpecial(special, frame, PageSize, PROT_READ)
		Space.MapSpecial(special, frame, PageSize, PROT_READ) // EEXIST
		special += PageSize
	})
	check("Map+Lookup+Unmap", func() {
		Kernel.Map(va, 0x300000, AttrUser)
		Kernel.Lookup(va)
		Kernel.Unmap(va)
		va += PageSize
	})
	check("PeekExecutable", func() {
		Kernel.PeekExecutable(0x100000)
		Kernel.PeekExecutable(base)
	})
	check("MapDevice", func() {
		MapDevice(0xfee00000, PageSize)
	})
	check("AllocFrame+FreeFrame", func() {
		pa, _ := AllocZeroFrame()
		FreeFrame(pa)
	})
}

// benchLine prints the BENCH record for a b.Loop benchmark (the function
// body runs once, so this prints once per -count).
func benchLine(b *testing.B, name string) {
	fmt.Printf("BENCH %s %.1f ns/op\n", name, float64(b.Elapsed().Nanoseconds())/float64(b.N))
}

// BenchmarkFault measures a demand-zero fault: VMA lookup, frame
// allocation, 4 KiB clear and PTE install (page tables already exist).
func BenchmarkFault(b *testing.B) {
	boot(b, testRAM)
	const pages = 2048
	a := mustMmap(b, 0, pages*PageSize, PROT_READ|PROT_WRITE, anon)
	HandleFault(a, true, false, true) // build the tables once
	i := uintptr(1)
	for b.Loop() {
		if i == pages {
			b.StopTimer()
			Space.Madvise(a, pages*PageSize, MADV_DONTNEED)
			i = 0
			b.StartTimer()
		}
		if ok, _ := HandleFault(a+i*PageSize, true, false, true); !ok {
			b.Fatal("fault failed")
		}
		i++
	}
	benchLine(b, "mm_fault_demand_zero")
}

// BenchmarkMapUnmap measures installing and removing one 4 KiB translation.
func BenchmarkMapUnmap(b *testing.B) {
	boot(b, testRAM)
	const va = 0x2000_0000_0000
	Kernel.Map(va, 0x300000, AttrUser)
	Kernel.Unmap(va)
	for b.Loop() {
		Kernel.Map(va, 0x300000, AttrUser|AttrWrite)
		Kernel.Unmap(va)
	}
	benchLine(b, "mm_map_unmap_4k")
}

// BenchmarkMmapMunmap measures a non-fixed anonymous mmap plus munmap with
// about 100 VMAs present (placement search and table updates).
func BenchmarkMmapMunmap(b *testing.B) {
	boot(b, testRAM)
	for i := 0; i < 100; i++ {
		prot := uint32(PROT_READ)
		if i%2 == 1 {
			prot = PROT_NONE
		}
		mustMmap(b, 0x1000_0000_0000+uintptr(i)*PageSize, PageSize, prot, anon|MAP_FIXED)
	}
	for b.Loop() {
		a, err := Space.Mmap(0, 64<<10, PROT_READ|PROT_WRITE, anon, -1, 0)
		if err != OK {
			b.Fatal(err)
		}
		Space.Munmap(a, 64<<10)
	}
	benchLine(b, "mm_mmap_munmap_64k")
}

// BenchmarkDontneedRefault measures the scavenger cycle the Go runtime
// drives: MADV_DONTNEED of a touched page, then the fault that refills it.
func BenchmarkDontneedRefault(b *testing.B) {
	boot(b, testRAM)
	a := mustMmap(b, 0, PageSize, PROT_READ|PROT_WRITE, anon)
	for b.Loop() {
		HandleFault(a, true, false, true)
		Space.Madvise(a, PageSize, MADV_DONTNEED)
	}
	benchLine(b, "mm_dontneed_refault")
}

// BenchmarkMunmapReservation measures mmap+munmap of an untouched 1 GiB
// PROT_NONE reservation next to a touched page (the page-table walk must
// skip absent subtrees instead of visiting 262144 pages).
func BenchmarkMunmapReservation(b *testing.B) {
	boot(b, testRAM)
	const size = 1 << 30
	for b.Loop() {
		a, err := Space.Mmap(0, size, PROT_NONE, anon, -1, 0)
		if err != OK {
			b.Fatal(err)
		}
		Space.Mprotect(a, PageSize, PROT_READ)
		HandleFault(a, false, false, true)
		Space.Munmap(a, size)
	}
	benchLine(b, "mm_reserve_munmap_1g")
}
