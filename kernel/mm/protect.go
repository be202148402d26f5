// The kernel's own memory, which no system call may touch for the program.
// SPDX-License-Identifier: BSD-3-Clause

package mm

// The kernel and the program are one image (doc.go): the kernel's variables — the thread table,
// the scheduler, this package's VMA table, the descriptor tables and kernel stacks of the boot
// path — sit in the image's data and bss among the program's globals, on user-accessible pages.
// A system call whose buffer is one of the program's globals is ordinary (read into a global
// array), but one whose buffer runs into a kernel variable would let the program overwrite the
// kernel through the kernel itself (the system-call fuzzer did it: a 2 MiB gmpos_info reply
// started in its own globals and ended in the thread table). So the kernel registers every one
// of its variables here at boot (the generated zkdata_<arch>.go files), and UserRange refuses
// any range that overlaps one: the call gets EFAULT, as for memory that is not the program's.
//
// This protects the kernel from its system calls, not from the program's own stores, which can
// still reach kernel variables directly (the unikernel's trade-off, doc.go); moving the kernel's
// data to supervisor-only pages would close that too.

// maxProtected bounds the table; ProtectKernelData panics (at boot) beyond it.
const maxProtected = 512

// protected holds the kernel's variables as sorted, disjoint [lo, hi) ranges. Written at boot
// only, before the first system call; read by every UserRange.
var protected struct {
	r [maxProtected]struct{ lo, hi uintptr }
	n int
}

// ProtectKernelData records [p, p+n) as kernel memory. Boot only; the kernel calls it through
// each package's generated KernelData.
func ProtectKernelData(p, n uintptr) {
	if n == 0 {
		return
	}
	lo, hi := p, p+n
	// Insert in order, merging with overlapping or adjacent neighbours.
	i := 0
	for i < protected.n && protected.r[i].hi < lo {
		i++
	}
	j := i
	for j < protected.n && protected.r[j].lo <= hi {
		lo, hi = min(lo, protected.r[j].lo), max(hi, protected.r[j].hi)
		j++
	}
	if i == j && protected.n == maxProtected {
		panic("mm: too many kernel data ranges")
	}
	// Replace entries [i, j) by the merged one.
	shift := 1 - (j - i)
	if shift > 0 {
		copy(protected.r[i+1:protected.n+1], protected.r[i:protected.n])
	} else if shift < 0 {
		copy(protected.r[i+1:], protected.r[j:protected.n])
	}
	protected.n += shift
	protected.r[i].lo, protected.r[i].hi = lo, hi
}

// kernelData reports whether [va, end) overlaps kernel memory. Binary search; no lock (the table
// does not change after boot).
func kernelData(va, end uintptr) bool {
	if protected.n == 0 || end <= protected.r[0].lo || va >= protected.r[protected.n-1].hi {
		return false // outside the image's data, as every heap word is: no search (futex waits ask)
	}
	l, h := 0, protected.n
	for l < h {
		m := int(uint(l+h) >> 1)
		if protected.r[m].hi <= va {
			l = m + 1
		} else {
			h = m
		}
	}
	return l < protected.n && protected.r[l].lo < end
}
