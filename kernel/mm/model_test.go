package mm

import (
	"math/rand/v2"
	"testing"
)

// pageModel is the reference semantics of one user page.
type pageModel struct {
	prot    uint32
	present bool // a frame is mapped
	val     byte // byte 0 of the page (0 for a fresh page)
}

// TestRandomizedModel drives random mmap/munmap/mprotect/madvise/access
// sequences against the real address space and a trivial page-set model,
// checking after every step: return codes, the VMA table (sorted, disjoint,
// fully merged, prot per page), which pages have frames, page contents, and
// frame accounting (used frames = page tables + present user pages).
func TestRandomizedModel(t *testing.T) {
	for seed := uint64(1); seed <= 4; seed++ {
		runModel(t, seed, 3000)
	}
}

func runModel(t *testing.T, seed uint64, steps int) {
	boot(t, testRAM)
	rng := rand.New(rand.NewPCG(seed, 99))
	const base = 0x3000_0000_0000
	const window = 64 // pages
	model := map[uintptr]*pageModel{}
	prots := []uint32{PROT_NONE, PROT_READ, PROT_READ | PROT_WRITE}
	pageAt := func(i int) uintptr { return base + uintptr(i)*PageSize }
	rangeArgs := func() (uintptr, uintptr, int, int) {
		lo := rng.IntN(window)
		n := 1 + rng.IntN(8)
		return pageAt(lo), uintptr(n) * PageSize, lo, n
	}
	allMapped := func(start uintptr, n int) bool {
		for i := 0; i < n; i++ {
			if model[start+uintptr(i)*PageSize] == nil {
				return false
			}
		}
		return true
	}
	anyMapped := func(start uintptr, n int) bool {
		for i := 0; i < n; i++ {
			if model[start+uintptr(i)*PageSize] != nil {
				return true
			}
		}
		return false
	}
	for step := 0; step < steps; step++ {
		op := rng.IntN(9)
		fail := func(format string, args ...any) {
			t.Helper()
			t.Fatalf("seed %d step %d op %d: "+format, append([]any{seed, step, op}, args...)...)
		}
		switch op {
		case 0, 1: // mmap MAP_FIXED (replace)
			start, size, _, n := rangeArgs()
			prot := prots[rng.IntN(3)]
			if a, err := Space.Mmap(start, size, prot, anon|MAP_FIXED, -1, 0); err != OK || a != start {
				fail("fixed mmap = %#x %v", a, err)
			}
			for i := 0; i < n; i++ {
				model[start+uintptr(i)*PageSize] = &pageModel{prot: prot}
			}
		case 2: // MAP_FIXED_NOREPLACE
			start, size, _, n := rangeArgs()
			a, err := Space.Mmap(start, size, PROT_READ, anon|MAP_FIXED_NOREPLACE, -1, 0)
			if anyMapped(start, n) {
				if err != EEXIST {
					fail("noreplace over mapping = %#x %v", a, err)
				}
				break
			}
			if err != OK || a != start {
				fail("noreplace free = %#x %v", a, err)
			}
			for i := 0; i < n; i++ {
				model[start+uintptr(i)*PageSize] = &pageModel{prot: PROT_READ}
			}
		case 3: // hinted mmap: honoured iff free; otherwise placed in a free range
			start, size, _, n := rangeArgs()
			a, err := Space.Mmap(start, size, PROT_READ|PROT_WRITE, anon, -1, 0)
			if err != OK {
				fail("hinted mmap: %v", err)
			}
			if !anyMapped(start, n) && a != start {
				fail("free hint %#x not honoured: %#x", start, a)
			}
			if anyMapped(a, n) {
				fail("mmap returned %#x overlapping a live mapping", a)
			}
			for i := 0; i < n; i++ {
				model[a+uintptr(i)*PageSize] = &pageModel{prot: PROT_READ | PROT_WRITE}
			}
		case 4: // munmap
			start, size, _, n := rangeArgs()
			if err := Space.Munmap(start, size); err != OK {
				fail("munmap: %v", err)
			}
			for i := 0; i < n; i++ {
				delete(model, start+uintptr(i)*PageSize)
			}
		case 5: // madvise DONTNEED/FREE
			start, size, _, n := rangeArgs()
			adv := MADV_DONTNEED
			if rng.IntN(2) == 0 {
				adv = MADV_FREE
			}
			want := OK
			if !allMapped(start, n) {
				want = ENOMEM
			}
			if err := Space.Madvise(start, size, adv); err != want {
				fail("madvise = %v, want %v", err, want)
			}
			for i := 0; i < n; i++ {
				if p := model[start+uintptr(i)*PageSize]; p != nil {
					p.present, p.val = false, 0
				}
			}
		case 6: // mprotect
			start, size, _, n := rangeArgs()
			prot := prots[rng.IntN(3)]
			want := OK
			if !allMapped(start, n) {
				want = ENOMEM
			}
			if err := Space.Mprotect(start, size, uint64(prot)); err != want {
				fail("mprotect = %v, want %v", err, want)
			}
			if want == OK {
				for i := 0; i < n; i++ {
					model[start+uintptr(i)*PageSize].prot = prot
				}
			}
		default: // user access (read or write) to a random page
			va := pageAt(rng.IntN(window + 4))
			write := rng.IntN(2) == 0
			val := byte(1 + rng.IntN(255))
			got, ok, code := access(&Space, va, write, val)
			p := model[va]
			switch {
			case p == nil:
				if ok || code != SEGV_MAPERR {
					fail("access to unmapped %#x: ok=%v code=%d", va, ok, code)
				}
			case p.prot == PROT_NONE || write && p.prot&PROT_WRITE == 0:
				if ok || code != SEGV_ACCERR {
					fail("forbidden access to %#x (prot %d, write %v): ok=%v code=%d", va, p.prot, write, ok, code)
				}
			default:
				if !ok {
					fail("allowed access to %#x failed: code %d", va, code)
				}
				p.present = true
				if write {
					p.val = val
				} else if got != p.val {
					fail("read %#x = %#x, model %#x", va, got, p.val)
				}
			}
		}
		checkModel(t, seed, step, model)
	}
	st := Space.ReadStats()
	t.Logf("seed %d: %d pages modelled, faults %d, spurious %d, madvise-dropped %d, unmapped %d, VMAs %d",
		seed, len(model), st.Faults, st.Spurious, st.MadvDropped, st.Unmapped, st.VMAs)
	if st.Faults == 0 || st.MadvDropped == 0 || st.Unmapped == 0 {
		t.Fatalf("seed %d: the random walk did not exercise faults/madvise/munmap", seed)
	}
}

func checkModel(t *testing.T, seed uint64, step int, model map[uintptr]*pageModel) {
	t.Helper()
	vs := vmaList(&Space)
	for i := 1; i < len(vs); i++ {
		a, b := vs[i-1], vs[i]
		if a.End > b.Start || a.Start >= a.End {
			t.Fatalf("seed %d step %d: VMAs overlap/unsorted: %+v %+v", seed, step, a, b)
		}
		if a.End == b.Start && a.Prot == b.Prot && a.Flags == b.Flags {
			t.Fatalf("seed %d step %d: unmerged neighbours %+v %+v", seed, step, a, b)
		}
	}
	var userPages uintptr
	for _, v := range vs {
		if v.Flags&VMAPinned != 0 {
			continue
		}
		for va := v.Start; va < v.End; va += PageSize {
			p := model[va]
			if p == nil || p.prot != v.Prot {
				t.Fatalf("seed %d step %d: VMA %+v page %#x vs model %+v", seed, step, v, va, p)
			}
			userPages++
		}
	}
	if userPages != uintptr(len(model)) {
		t.Fatalf("seed %d step %d: VMAs cover %d pages, model %d", seed, step, userPages, len(model))
	}
	var present uintptr
	for va, p := range model {
		pa, fl, ok := Space.PT.Lookup(va)
		if ok != p.present {
			t.Fatalf("seed %d step %d: page %#x present=%v, model %v", seed, step, va, ok, p.present)
		}
		if !ok {
			continue
		}
		present++
		if fl&AttrOwned == 0 {
			t.Fatalf("seed %d step %d: user page %#x not owned", seed, step, va)
		}
		if p.prot != PROT_NONE && !satisfies(fl, false, false) {
			t.Fatalf("seed %d step %d: readable page %#x flags %#x", seed, step, va, fl)
		}
		if fl.Writable() != (p.prot&PROT_WRITE != 0) || fl.Executable() {
			t.Fatalf("seed %d step %d: page %#x flags %#x, prot %d", seed, step, va, fl, p.prot)
		}
		if got := *(*byte)(ptrAt(PhysToVirt(pa))); got != p.val {
			t.Fatalf("seed %d step %d: page %#x holds %#x, model %#x", seed, step, va, got, p.val)
		}
	}
	s := Space.ReadStats()
	if s.FramesUsed != s.Tables+present {
		t.Fatalf("seed %d step %d: frames used %d != tables %d + present %d", seed, step, s.FramesUsed, s.Tables, present)
	}
}
