package mm

import "testing"

// TestGoRuntimeStartupPattern replays the memory calls an empty Go 1.26
// program makes at startup (docs/runtime-contract.md §3.3, observed with strace) and
// the scavenger cycle, checking the results the runtime depends on.
func TestGoRuntimeStartupPattern(t *testing.T) {
	boot(t, testRAM)
	const (
		kb = 1 << 10
		mb = 1 << 20
	)
	rw := uint32(PROT_READ | PROT_WRITE)
	// persistentalloc and reservations (sysAlloc / sysReserve without hint).
	mustMmap(t, 0, 256*kb, rw, anon)
	for _, n := range []uintptr{128 * kb, 1 * mb, 8 * mb, 64 * mb, 512 * mb, 512 * mb} {
		mustMmap(t, 0, n, PROT_NONE, anon)
	}
	// Heap arena at a randomized 64 MiB-aligned hint below 2^46: the runtime
	// unreserves and retries if the result differs, so it must be honoured.
	const hint = 0x1ac8c0000000
	arenaBase := mustMmap(t, hint, 64*mb, PROT_NONE, anon)
	if arenaBase != hint {
		t.Fatalf("arena hint %#x answered with %#x", uintptr(hint), arenaBase)
	}
	// 32 MiB heap index, then MADV_NOHUGEPAGE on it.
	idx := mustMmap(t, 0, 32*mb, rw, anon)
	if err := Space.Madvise(idx, 32*mb, MADV_NOHUGEPAGE); err != OK {
		t.Fatal(err)
	}
	// sysMap: MAP_FIXED RW inside the arena reservation must return addr.
	heap := mustMmap(t, arenaBase, 4*mb, rw, anon|MAP_FIXED)
	if heap != arenaBase {
		t.Fatalf("sysMap moved: %#x", heap)
	}
	// Nothing has been touched: no user frames yet (only page tables).
	if s := Space.ReadStats(); s.FramesUsed != s.Tables || s.Faults != 0 {
		t.Fatalf("reservations cost frames: %+v", s)
	}
	// sysReserveAligned(nil, 64M, 64M): over-reserve and trim both ends.
	raw := mustMmap(t, 0, 128*mb, PROT_NONE, anon)
	aligned, _ := alignUp(raw, 64*mb)
	if aligned != raw {
		if err := Space.Munmap(raw, aligned-raw); err != OK {
			t.Fatal(err)
		}
	}
	if end := raw + 128*mb; end != aligned+64*mb {
		if err := Space.Munmap(aligned+64*mb, end-(aligned+64*mb)); err != OK {
			t.Fatal(err)
		}
	}
	if i := Space.lookup(aligned); i < 0 || Space.vmas[i].Start != aligned || Space.vmas[i].End != aligned+64*mb {
		t.Fatalf("trimmed reservation wrong: %+v", vmaList(&Space))
	}
	// The heap is used, then scavenged (MADV_DONTNEED) and reused: the
	// runtime does not zero it again (needZeroAfterSysUnusedOS is false).
	for va := heap; va < heap+256*kb; va += PageSize {
		if _, ok, _ := access(&Space, va, true, 0xee); !ok {
			t.Fatal("heap touch failed")
		}
	}
	if err := Space.Madvise(heap, 256*kb, MADV_DONTNEED); err != OK {
		t.Fatal(err)
	}
	for va := heap; va < heap+256*kb; va += PageSize {
		if v, ok, _ := access(&Space, va, false, 0); !ok || v != 0 {
			t.Fatalf("scavenged page %#x reads %#x", va, v)
		}
	}
	// sysFree: munmap the whole arena.
	if err := Space.Munmap(arenaBase, 64*mb); err != OK {
		t.Fatal(err)
	}
	if s := Space.ReadStats(); s.FramesUsed != s.Tables {
		t.Fatalf("frames leaked after sysFree: %+v", s)
	}
	// Address space stays well formed and small.
	if n := Space.NumVMAs(); n > 20 {
		t.Fatalf("%d VMAs: %+v", n, vmaList(&Space))
	}
}
